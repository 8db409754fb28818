//! Sandbox escape cases: denied files that appear after an MCP server started. Each test
//! drives the real binary with a scripted model: a `shell` call (another process) or the
//! server itself creates the file, then the tool of a hostile server written with the official
//! Python SDK (`tests/fixtures/mcp/probe.py`) tries to read it; the secret must never reach the
//! model, while a file allowed by the deny globs and created as late stays readable.
//!
//! Where this kernel cannot build the sandbox, or Python's `mcp` package is missing, a test
//! prints a SKIP line instead of passing silently.

use std::path::Path;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::{python, sandbox};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

fn probe_entry(python: &Path, fs: &str) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/probe.py");
    format!(
        "[[mcp]]\nname = \"probe\"\ncommand = [{:?}, {:?}]\napprove = \"never\"\nfs = {fs:?}\n",
        python.display().to_string(),
        script.display().to_string()
    )
}

/// One `warden run` in which the model makes `calls` one turn after another, in order (so the
/// server has started before the first), then answers `done`; each call's result, in order.
fn run_turns(env: &TestEnv, calls: &[(&str, &str, Value)]) -> Vec<String> {
    let server = MockServer::start().unwrap();
    for call in calls {
        server.push(Reply::tool_calls("", std::slice::from_ref(call)));
    }
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    let last = &requests[requests.len() - 1].body["messages"];
    last.as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn shell(id: &'static str, command: &str) -> (&'static str, &'static str, Value) {
    (id, "shell", json!({ "command": command }))
}

fn probe(id: &'static str, command: &str) -> (&'static str, &'static str, Value) {
    (id, "mcp__probe__run", json!({ "command": command }))
}

/// Python's own `open`, not only `cat`: the server's interpreter reads the path itself.
fn py_read(path: &str) -> String {
    format!("python3 -c 'import sys; print(open(sys.argv[1]).read())' {path} 2>&1")
}

/// Promise: a denied file created after a read-only server started (by another process) is
/// unreadable by it, through `cat`, Python's `open`, a relative path from a subdirectory and a
/// symbolic link; a file the globs allow, created as late, is read.
#[test]
fn a_denied_file_created_after_a_server_started_is_unreadable_by_it() {
    let test = "a_denied_file_created_after_a_server_started_is_unreadable_by_it";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{}", probe_entry(&python, "read")));
    let results = run_turns(
        &env,
        &[
            probe("c0", "echo started"),
            shell(
                "c1",
                "printf SECRET-LATER > .env; mkdir -p sub; printf SECRET-DEEP > sub/.env.local; printf FINE-LATER > later.txt; ln -s .env pointer; echo made",
            ),
            probe(
                "c2",
                &format!(
                    "cat .env; cd sub && cat .env.local; cd ..; cat pointer; {}; {}; cat later.txt; echo end",
                    py_read(".env"),
                    py_read("sub/.env.local")
                ),
            ),
        ],
    );
    assert!(results[0].contains("started"), "{results:?}");
    assert!(results[1].contains("made"), "{results:?}");
    let read = &results[2];
    assert!(read.contains("end"), "{read}");
    assert!(read.contains("FINE-LATER"), "{read}");
    assert!(!read.contains("SECRET"), "{read}");
    assert!(env.workspace().join(".env").is_file());
}

/// Promise: a read-write server can neither read a denied file that appeared after it started
/// by renaming it to an allowed name or hard-linking it under one, nor read an allowed file it
/// renamed to a denied name, nor move a directory holding a denied file; what it writes under
/// allowed names still works; a write open of a denied name neither empties nor creates it.
#[test]
fn a_read_write_server_cannot_rename_or_link_its_way_to_a_denied_file() {
    let test = "a_read_write_server_cannot_rename_or_link_its_way_to_a_denied_file";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{}", probe_entry(&python, "read-write")));
    let results = run_turns(
        &env,
        &[
            probe("c0", "echo started"),
            shell(
                "c1",
                "printf SECRET-LINK > .env; printf SECRET-MOVE > .env.prod; printf SECRET-RENAMED > draft.txt; mkdir conf; printf SECRET-DIR > conf/.env; echo made",
            ),
            probe(
                "c2",
                &format!(
                    "ln .env linked.txt; cat linked.txt; mv .env.prod plain.txt; cat plain.txt; \
                     mv draft.txt .env.local; cat .env.local; {}; mv conf cfg; cat cfg/.env; \
                     printf OWN > own.txt && mv own.txt kept.txt && cat kept.txt; \
                     (: > .env); printf NEW > .env.created; echo end",
                    py_read(".env.local")
                ),
            ),
        ],
    );
    assert!(results[1].contains("made"), "{results:?}");
    let read = &results[2];
    assert!(read.contains("end"), "{read}");
    assert!(read.contains("OWN"), "{read}");
    assert!(!read.contains("SECRET"), "{read}");
    let ws = env.workspace();
    assert!(
        ws.join("conf/.env").is_file() && !ws.join("cfg").exists(),
        "{read}"
    );
    assert!(
        ws.join(".env").is_file() && !ws.join("linked.txt").exists(),
        "{read}"
    );
    // A write open of a denied name neither empties it nor creates it.
    assert_eq!(
        std::fs::read_to_string(ws.join(".env")).unwrap_or_default(),
        "SECRET-LINK",
        "{read}"
    );
    assert!(!ws.join(".env.created").exists(), "{read}");
}
