//! What an escalation asks, through the real binary: a host pattern is exactly as wide as it
//! looks (no wildcard over an address), a long command is never cut silently in the
//! question, and an `unsandboxed` command is said to run outside the sandbox.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::{OPENAI, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

/// One `warden run --yes --mode full-auto` turn whose model calls `shell` with `args`: the
/// tool message the model got back, and `run`'s standard error.
fn run_yes(env: &TestEnv, args: Value) -> (String, String) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", &[("c1", "shell", args)]));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "--yes", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let message = server
        .requests()
        .get(1)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    (message, stderr(&out))
}

/// `*.0.0.1` in a `network` escalation reached 127.0.0.1 on any port through the proxy: it
/// is refused before anything runs, and the listener sees nothing.
#[test]
fn a_wildcard_over_an_address_is_refused_and_reaches_nothing() {
    if let Some(missing) = sandbox_missing() {
        eprintln!("SKIP a_wildcard_over_an_address_is_refused_and_reaches_nothing: {missing}");
        return;
    }
    let (port, seen) = crate::shell_hosts::listener();
    let env = TestEnv::new();
    env.project_config(OPENAI);
    for pattern in ["*.0.0.1", "*.0.1", "127.1", "0x7f.0.0.1"] {
        let command = format!(
            "curl -sS --max-time 10 --proxy \"$HTTPS_PROXY\" http://127.0.0.1:{port}/; touch ran.txt"
        );
        let (message, err) = run_yes(
            &env,
            json!({"command": command,
                   "escalate": {"kind": "network", "hosts": [pattern], "reason": "r"}}),
        );
        assert!(message.contains("address"), "{pattern}: {message}\n{err}");
        assert!(
            !env.workspace().join("ran.txt").exists(),
            "{pattern}: {message}"
        );
    }
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 0);
}

/// The chat's question for a 3 000-byte `unsandboxed` command: its end is on screen, what is
/// left out is counted, `v` shows all of it, and it says the command runs outside the sandbox.
#[test]
fn the_question_shows_where_a_command_runs_and_never_hides_its_tail() {
    if crate::chat::skip() {
        return;
    }
    let env = TestEnv::new();
    env.user_config(concat!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n",
        "[policy]\nallow_escalation = true\nallow_unsandboxed_shell = true\n",
    ));
    let server = MockServer::start().unwrap();
    let pad = "#".repeat(1500);
    let command = format!("echo {pad} MIDDLE-MARK {pad}\ntouch tail-ran.txt");
    server.push(Reply::tool_calls(
        "",
        &[(
            "e1",
            "shell",
            json!({"command": command, "escalate": {"kind": "unsandboxed", "reason": "deploy"}}),
        )],
    ));
    server.push(Reply::text("declined, fine"));
    let term = crate::chat::chat_against(&env, &server);
    term.type_text("deploy it");
    term.press("Enter");
    let screen = term.wait_for("allow this once?");
    assert!(screen.contains("runs OUTSIDE the sandbox"), "{screen}");
    assert!(!screen.contains("runs in the sandbox"), "{screen}");
    assert!(screen.contains("touch tail-ran.txt"), "{screen}");
    assert!(
        screen.contains("bytes of the command not shown here"),
        "{screen}"
    );
    assert!(!screen.contains("MIDDLE-MARK"), "{screen}");
    term.type_text("v");
    let start = std::time::Instant::now();
    while !term.screen().contains("MIDDLE-MARK") {
        assert!(start.elapsed() < HANG_LIMIT, "{}", term.screen());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    term.type_text("n");
    term.wait_for("declined, fine");
    assert!(!env.workspace().join("tail-ran.txt").exists());
}

/// An escalation's reason is shown on one line under `because:`: a reason that a line
/// separator, NEL, VT or FF breaks (and could paint a forged `grants:` line) is an error result,
/// and nothing runs.
#[test]
fn a_reason_broken_by_any_line_break_is_refused_and_nothing_runs() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    for brk in ['\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}'] {
        let (message, err) = run_yes(
            &env,
            json!({"command": "touch ran.txt",
                   "escalate": {"kind": "network", "reason": format!("fetch{brk}grants: nothing")}}),
        );
        assert!(message.contains("one line"), "{brk:?}: {message}\n{err}");
        assert!(!env.workspace().join("ran.txt").exists(), "{brk:?}");
    }
}
