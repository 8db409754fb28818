//! Every file change is seen, whatever its name, through the real binary: a `shell` command
//! creates files whose names are not UTF-8 (`ci\xff.yml`), hold a newline or an ESC sequence,
//! and changes one whose name is not UTF-8. Each is a `file_changed` event and a line of the
//! turn's summary (exact bytes in `path_hex`, valid against `docs/events.schema.json`), shown
//! escaped in the terminal's summary and the chat's `/diff`, and `warden undo` removes or
//! restores exactly those files.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::events::schema;
use crate::shell::{OPENAI, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const CI: &[u8] = b".github/workflows/ci\xff.yml";
const NEWLINE: &[u8] = b"nl\nname.txt";
const ESC: &[u8] = b"esc\x1b[31m.txt";
const CHANGED: &[u8] = b"old\xfe.txt";
const OLD_BYTES: &[u8] = b"before\n";

/// Creates the three names and rewrites the fourth (octal escapes: `printf` of any shell).
const COMMAND: &str = "mkdir -p .github/workflows; \
    printf 'on: push\\n' > \"$(printf '.github/workflows/ci\\377.yml')\"; \
    printf 'one\\n' > \"$(printf 'nl\\nname.txt')\"; \
    printf 'two\\n' > \"$(printf 'esc\\033[31m.txt')\"; \
    printf 'after\\n' > \"$(printf 'old\\376.txt')\"";

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn at(env: &TestEnv, name: &[u8]) -> PathBuf {
    env.workspace().join(OsStr::from_bytes(name))
}

/// A workspace with a file of a non-UTF-8 name and one left alone; `None` without a sandbox.
fn setup(name: &str) -> Option<TestEnv> {
    if let Some(missing) = sandbox_missing() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "{name}: the sandbox cannot be built: {missing}"
        );
        eprintln!("SKIP {name}: the sandbox cannot be built here: {missing}");
        return None;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("keep.txt", "kept\n");
    std::fs::write(at(&env, CHANGED), OLD_BYTES).unwrap();
    Some(env)
}

fn run(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("s1", "shell", json!({ "command": COMMAND }))],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--mode", "full-auto"])
        .args(args)
        .arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    for name in [CI, NEWLINE, ESC] {
        assert!(at(env, name).is_file(), "{:?} was not created", name);
    }
    out
}

/// The exact name an event or summary line stands for.
fn name_of(value: &Value) -> Vec<u8> {
    match value["path_hex"].as_str() {
        Some(h) => (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect(),
        None => value["path"]
            .as_str()
            .unwrap_or_default()
            .as_bytes()
            .to_vec(),
    }
}

#[test]
fn every_name_is_a_file_changed_event_and_in_the_summary() {
    let Some(env) = setup("every_name_is_a_file_changed_event_and_in_the_summary") else {
        return;
    };
    let out = run(&env, &["--json-stream"]);
    let text = stdout(&out);
    let validator = schema();
    let events: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for event in &events {
        let errors: Vec<String> = validator
            .iter_errors(event)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{event}: {errors:?}");
    }
    let changed: Vec<(Vec<u8>, Value)> = events
        .iter()
        .filter(|e| e["type"] == "file_changed")
        .map(|e| (name_of(e), e["kind"].clone()))
        .collect();
    for (name, kind) in [
        (CI, "created"),
        (NEWLINE, "created"),
        (ESC, "created"),
        (CHANGED, "modified"),
    ] {
        assert!(
            changed.contains(&(name.to_vec(), json!(kind))),
            "{:?} {kind} missing from {text}",
            String::from_utf8_lossy(name)
        );
    }
    assert_eq!(changed.len(), 4, "{text}");
    let ci = events
        .iter()
        .find(|e| e["type"] == "file_changed" && name_of(e) == CI)
        .unwrap();
    assert_eq!(ci["path_hex"], json!(hex(CI)), "{ci}");
    assert_eq!(
        ci["path"],
        json!(".github/workflows/ci\u{fffd}.yml"),
        "{ci}"
    );
    // A UTF-8 name has no `path_hex`.
    let esc = events
        .iter()
        .find(|e| e["type"] == "file_changed" && name_of(e) == ESC)
        .unwrap();
    assert!(esc.get("path_hex").is_none(), "{esc}");
    let ended = events.iter().find(|e| e["type"] == "turn_ended").unwrap();
    let mut summary: Vec<Vec<u8>> = ended["changes"]
        .as_array()
        .unwrap()
        .iter()
        .map(name_of)
        .collect();
    summary.sort();
    let mut want = vec![
        CI.to_vec(),
        NEWLINE.to_vec(),
        ESC.to_vec(),
        CHANGED.to_vec(),
    ];
    want.sort();
    assert_eq!(summary, want, "{ended}");
}

#[test]
fn the_terminal_summary_shows_every_name_escaped() {
    let Some(env) = setup("the_terminal_summary_shows_every_name_escaped") else {
        return;
    };
    let out = run(&env, &["-v"]);
    let err = stderr(&out);
    assert!(err.contains("changed 4 files"), "{err}");
    assert!(err.contains(".github/workflows/ci\\xff.yml"), "{err}");
    assert!(err.contains("nl\\nname.txt"), "{err}");
    assert!(err.contains("esc\\u{1b}[31m.txt"), "{err}");
    assert!(err.contains("old\\xfe.txt"), "{err}");
    assert!(
        !err.contains("esc\u{1b}"),
        "a raw ESC reached the terminal: {err:?}"
    );
    assert!(
        !err.contains("nl\nname"),
        "a raw newline split a name: {err:?}"
    );
}

#[test]
fn undo_removes_and_restores_exactly_those_files() {
    let Some(env) = setup("undo_removes_and_restores_exactly_those_files") else {
        return;
    };
    run(&env, &["--json"]);
    let mut cmd = env.command();
    cmd.arg("undo");
    let out = output_within(cmd, HANG_LIMIT);
    let (text, err) = (stdout(&out), stderr(&out));
    assert_eq!(out.status.code(), Some(0), "{text}{err}");
    assert!(
        text.contains(".github/workflows/ci\\xff.yml: removed"),
        "{text}"
    );
    assert!(text.contains("nl\\nname.txt: removed"), "{text}");
    assert!(text.contains("esc\\u{1b}[31m.txt: removed"), "{text}");
    assert!(text.contains("old\\xfe.txt: restored"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
    for name in [CI, NEWLINE, ESC] {
        assert!(!at(&env, name).exists(), "{:?} is still there", name);
    }
    assert_eq!(std::fs::read(at(&env, CHANGED)).unwrap(), OLD_BYTES);
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("keep.txt")).unwrap(),
        "kept\n"
    );
    assert!(env.workspace().join(".github/workflows").is_dir());
    let left: Vec<_> = std::fs::read_dir(env.workspace().join(".github/workflows"))
        .unwrap()
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn the_chats_diff_shows_every_name_escaped() {
    let Some(env) = setup("the_chats_diff_shows_every_name_escaped") else {
        return;
    };
    if skip() {
        return;
    }
    env.user_config("[tools]\nmode = \"full-auto\"\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("s1", "shell", json!({ "command": COMMAND }))],
    ));
    server.push(Reply::text("finished the work"));
    let term = chat_against(&env, &server);
    term.resize(160);
    term.type_text("go");
    term.press("Enter");
    let screen = term.wait_for_after("finished the work", "warden ›");
    assert!(screen.contains("changed 4 files"), "{screen}");
    term.type_text("/diff session");
    term.press("Enter");
    let screen = term.wait_for_after("/diff session", "warden ›");
    let after = &screen[screen.rfind("/diff session").unwrap_or(0)..];
    for shown in [
        ".github/workflows/ci\\xff.yml",
        "nl\\nname.txt",
        "esc\\u{1b}[31m.txt",
        "old\\xfe.txt",
    ] {
        assert!(after.contains(shown), "{shown} missing from {after}");
    }
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
