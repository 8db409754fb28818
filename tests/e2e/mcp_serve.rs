//! `warden mcp serve` through the real binary, driven by the official Python SDK's client
//! (`tests/fixtures/mcp/client.py`, PyPI `mcp`): tools listed and called over stdio (HTTP:
//! `mcp_serve_http.rs`), each call through the same path as a turn's (the `tool-guard` sample's
//! deny, the permission mode, elicitation, the audit log), and workspace files as resources.
//!
//! Without Python's `mcp` package a test prints `SKIP <test>: python3 mcp not installed` and
//! passes, except under `CI=true`, where `.ci/run` has installed it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};
use warden_tests::fixtures;

use crate::support::{TestEnv, output_with_input, stderr, warden_bin};

pub(crate) const LIMIT: Duration = Duration::from_secs(120);

pub(crate) fn client_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/client.py")
}

/// True (after one SKIP line) when python3 or its `mcp` package is missing; under `CI=true`
/// that is a failure.
pub(crate) fn skip_without_python_mcp(test: &str) -> bool {
    let present = Command::new("python3")
        .args(["-c", "import mcp.client.stdio, mcp.client.streamable_http"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if present {
        return false;
    }
    let line = format!("SKIP {test}: python3 mcp not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    true
}

/// Run the client over stdio against `warden mcp serve -C <workspace> SERVE_ARGS`, with
/// `client_args` before the transport (`--elicit accept`): the steps' outcomes, and the
/// client's stderr (the server's stderr goes there too).
pub(crate) fn over_stdio(
    env: &TestEnv,
    client_args: &[&str],
    serve_args: &[&str],
    steps: &Value,
) -> (Vec<Value>, String) {
    let ws = env.workspace().display().to_string();
    let mut cmd = env.command_of(Path::new("python3"));
    cmd.arg(client_script())
        .args(client_args)
        .arg("stdio")
        .arg(warden_bin())
        .args(["mcp", "serve", "-C", &ws])
        .args(serve_args)
        .stdin(Stdio::piped());
    let out = output_with_input(cmd, steps.to_string().as_bytes(), LIMIT);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "client failed:\n{err}");
    let outcomes: Vec<Value> = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("client output is not JSON ({e}):\n{err}"));
    (outcomes, err)
}

pub(crate) fn call(name: &str, arguments: Value) -> Value {
    json!({"op": "call", "name": name, "arguments": arguments})
}

/// The session id the server printed (`… session ID)`).
fn session_of(stderr: &str) -> String {
    let at = stderr
        .find("session ")
        .unwrap_or_else(|| panic!("no session in:\n{stderr}"));
    stderr[at + "session ".len()..]
        .chars()
        .take_while(|c| !matches!(c, ')' | '\n' | ' '))
        .collect()
}

/// The serve session's audit events.
fn audit(env: &TestEnv, session: &str) -> Vec<Value> {
    let path = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("audit.jsonl");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .map(|record| record["event"].clone())
        .collect()
}

fn guarded(env: &TestEnv) -> String {
    format!(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = {:?}\n\
         [plugins.config]\ndeny = \"read_file:secret*\"\n",
        fixtures::tool_guard().display().to_string()
    )
    .replace("{ws}", &env.workspace().display().to_string())
}

#[test]
fn stdio_serves_tools_under_the_chain_and_files_as_resources() {
    if skip_without_python_mcp("mcp_serve::stdio") {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "hello from the workspace\n");
    env.write(".env", "API_KEY=hunter2\n");
    env.write("secret.txt", "the launch code\n");
    env.project_config(&guarded(&env));
    let ws = env.workspace();
    let uri = |rel: &str| format!("file://{}/{rel}", ws.display());
    let steps = json!([
        {"op": "list_tools"},
        call("read_file", json!({"path": "notes.txt"})),
        call("read_file", json!({"path": ".env"})),
        call("read_file", json!({"path": "secret.txt"})),
        call("write_file", json!({"path": "out.txt", "content": "written\n"})),
        {"op": "list_resources"},
        {"op": "read_resource", "uri": uri("notes.txt")},
        {"op": "read_resource", "uri": uri(".env")},
    ]);
    let (outcomes, err) = over_stdio(&env, &[], &[], &steps);
    assert_eq!(outcomes.len(), 8, "{outcomes:?}\n{err}");

    let tools: Vec<&str> = outcomes[0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for name in [
        "read_file",
        "list_files",
        "grep",
        "glob",
        "write_file",
        "edit_file",
        "shell",
    ] {
        assert!(tools.contains(&name), "{name} not in {tools:?}");
    }

    assert_eq!(outcomes[1]["is_error"], false, "{:?}", outcomes[1]);
    assert!(
        outcomes[1]["text"]
            .as_str()
            .unwrap()
            .contains("hello from the workspace"),
        "{:?}",
        outcomes[1]
    );

    // `.env` is refused by the deny globs, as in a turn.
    assert_eq!(outcomes[2]["is_error"], true, "{:?}", outcomes[2]);
    let env_text = outcomes[2]["text"].as_str().unwrap();
    assert!(env_text.contains("denied"), "{env_text}");
    assert!(!env_text.contains("hunter2"), "{env_text}");

    // The interceptor's deny reaches the client as an error result naming it.
    assert_eq!(outcomes[3]["is_error"], true, "{:?}", outcomes[3]);
    let guard_text = outcomes[3]["text"].as_str().unwrap();
    assert!(
        guard_text.starts_with("tool call denied by plugin:guard: "),
        "{guard_text}"
    );
    assert!(!guard_text.contains("launch code"), "{guard_text}");

    // `ask` (the default mode) and a client without elicitation: refused, nothing written.
    assert_eq!(outcomes[4]["is_error"], true, "{:?}", outcomes[4]);
    let ask_text = outcomes[4]["text"].as_str().unwrap();
    assert!(
        ask_text.contains("mode `ask` asks before a tool that writes files")
            && ask_text.contains("does not support elicitation"),
        "{ask_text}"
    );
    assert!(!ws.join("out.txt").exists());

    // Resources: the workspace listing, without what the deny globs hide.
    let resources = outcomes[5]["resources"].as_array().unwrap();
    let names: Vec<&str> = resources
        .iter()
        .filter_map(|r| r["name"].as_str())
        .collect();
    assert!(names.contains(&"notes.txt"), "{names:?}");
    assert!(!names.contains(&".env"), "{names:?}");
    assert!(
        resources
            .iter()
            .any(|r| r["uri"].as_str() == Some(uri("notes.txt").as_str())),
        "{resources:?}"
    );
    assert!(
        outcomes[6]["text"]
            .as_str()
            .is_some_and(|t| t.contains("hello from the workspace")),
        "{:?}",
        outcomes[6]
    );
    let refused = outcomes[7]["error"].as_str().unwrap_or_default();
    assert!(refused.contains("denied"), "{:?}", outcomes[7]);
    assert!(!outcomes[7].to_string().contains("hunter2"));

    // The audit log of the serve session: its transport, then each call as a turn records it.
    let records = audit(&env, &session_of(&err));
    assert!(
        records
            .iter()
            .any(|r| r["kind"] == "mcp-serve" && r["detail"]["transport"] == "stdio"),
        "{records:?}"
    );
    let calls: Vec<(&str, &str, &str)> = records
        .iter()
        .filter(|r| r["type"] == "tool_call")
        .map(|r| {
            (
                r["call_id"].as_str().unwrap_or(""),
                r["decision"].as_str().unwrap_or(""),
                r["by"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("mcp-1", "allowed", "default"),
            ("mcp-2", "allowed", "default"),
            ("mcp-3", "denied", "plugin:guard"),
            ("mcp-4", "denied", "approval"),
        ],
        "{records:?}"
    );
}

#[test]
fn modes_and_elicitation_decide_writes_over_mcp() {
    if skip_without_python_mcp("mcp_serve::modes") {
        return;
    }
    let env = TestEnv::new();
    let ws = env.workspace();
    let write = |path: &str| json!([call("write_file", json!({"path": path, "content": "x\n"}))]);

    // `--mode auto-edit`: the write runs unasked.
    let (outcomes, _) = over_stdio(&env, &[], &["--mode", "auto-edit"], &write("a.txt"));
    assert_eq!(outcomes[0]["is_error"], false, "{outcomes:?}");
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "x\n");

    // `ask` with a client that supports elicitation: accepted, it runs.
    let (outcomes, _) = over_stdio(&env, &["--elicit", "accept"], &[], &write("b.txt"));
    let question = outcomes[0]["elicited"].as_str().unwrap_or_default();
    assert!(
        question.contains("write_file") && question.contains("mode `ask`"),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[1]["is_error"], false, "{outcomes:?}");
    assert!(ws.join("b.txt").exists());

    // Declined: a denied error result, nothing written.
    let (outcomes, _) = over_stdio(&env, &["--elicit", "decline"], &[], &write("c.txt"));
    assert_eq!(outcomes[1]["is_error"], true, "{outcomes:?}");
    assert!(
        outcomes[1]["text"]
            .as_str()
            .unwrap()
            .contains("declined it through the MCP client"),
        "{outcomes:?}"
    );
    assert!(!ws.join("c.txt").exists());

    // `--yes`: approved without asking.
    let (outcomes, _) = over_stdio(&env, &[], &["--yes"], &write("d.txt"));
    assert_eq!(outcomes[0]["is_error"], false, "{outcomes:?}");
    assert!(ws.join("d.txt").exists());
}

#[test]
fn an_untrusted_projects_plugins_do_not_load() {
    if skip_without_python_mcp("mcp_serve::untrusted") {
        return;
    }
    let env = TestEnv::new();
    env.write("secret.txt", "the launch code\n");
    env.untrusted_project_config(&guarded(&env));
    let steps = json!([call("read_file", json!({"path": "secret.txt"}))]);
    let (outcomes, err) = over_stdio(&env, &[], &[], &steps);
    // The guard is the project's code: not trusted, not loaded (and the person is told).
    assert_eq!(outcomes[0]["is_error"], false, "{outcomes:?}");
    assert!(
        err.contains("guard (interceptor)") && err.contains("not loaded"),
        "{err}"
    );
}

/// A configured tool plugin is served too; its `approve = "ask"` asks the client like the
/// mode does: refused without elicitation, run once accepted.
#[test]
fn a_tool_plugins_approve_ask_becomes_an_elicitation() {
    if skip_without_python_mcp("mcp_serve::plugin_ask") {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.project_config(&crate::support::plugin_entry(
        "tool",
        "grep",
        &fixtures::grep_tool(),
        "fs = \"read\"\napprove = \"ask\"",
        &[],
    ));
    let steps = json!([
        {"op": "list_tools"},
        call("search_text", json!({"pattern": "needle", "literal": true})),
    ]);
    let (outcomes, err) = over_stdio(&env, &[], &[], &steps);
    assert!(
        outcomes[0]["tools"]
            .as_array()
            .is_some_and(|t| t.iter().any(|n| n == "search_text")),
        "{outcomes:?}\n{err}"
    );
    assert_eq!(outcomes[1]["is_error"], true, "{outcomes:?}");
    assert!(
        outcomes[1]["text"]
            .as_str()
            .unwrap()
            .contains("tool plugin `grep` requires approval"),
        "{outcomes:?}"
    );

    let (outcomes, _) = over_stdio(&env, &["--elicit", "accept"], &[], &steps);
    let question = outcomes[1]["elicited"].as_str().unwrap_or_default();
    assert!(question.contains("search_text"), "{outcomes:?}");
    assert_eq!(outcomes[2]["is_error"], false, "{outcomes:?}");
    assert!(
        outcomes[2]["text"].as_str().unwrap().contains("needle"),
        "{outcomes:?}"
    );
}
