//! What `warden run` prints through the real binary with a scripted model: the answer once on
//! stdout (also when the turn changed a file), on stderr only the calls that failed or were
//! denied (with `-v` every call once, a plan as its checklist alone).

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::OPENAI;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

/// The same model, its answers streamed.
const OPENAI_STREAMED: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = true\n\n";

fn run(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

/// Stderr's lines without the closing `warden: session …` line (its id differs each run).
fn stderr_lines(out: &std::process::Output) -> Vec<String> {
    stderr(out)
        .lines()
        .filter(|l| !l.starts_with("warden: session "))
        .map(str::to_owned)
        .collect()
}

#[test]
fn a_turn_that_changed_a_file_prints_its_answer_once() {
    for config in [OPENAI, OPENAI_STREAMED] {
        let env = TestEnv::new();
        env.project_config(config);
        let server = MockServer::start().unwrap();
        server.script_tool_call(
            "w1",
            "write_file",
            json!({"path": "a.txt", "content": "hello\n"}),
            "I wrote a.txt.",
        );
        let out = run(&env, &server, &["--mode", "auto-edit", "write it"]);
        assert_eq!(
            stdout(&out),
            "I wrote a.txt.\n",
            "{config}: {}",
            stderr(&out)
        );
        assert_eq!(
            stderr_lines(&out),
            ["warden: changed 1 file (+1 −0): a.txt"],
            "{config}"
        );
        assert_eq!(
            std::fs::read_to_string(env.workspace().join("a.txt")).unwrap(),
            "hello\n"
        );
    }
}

#[test]
fn without_v_a_call_that_ran_well_prints_nothing_on_stderr() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("notes.txt", "n\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("r1", "read_file", json!({"path": "notes.txt"})),
            ("r2", "read_file", json!({"path": "missing.txt"})),
        ],
    ));
    server.push(Reply::text("read"));
    let out = run(&env, &server, &["read them"]);
    assert_eq!(stdout(&out), "read\n");
    // The failed call, then its output's last line; nothing of the call that went well.
    let lines = stderr_lines(&out);
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert_eq!(
        lines[0], "warden: ✗ read_file missing.txt — error",
        "{lines:?}"
    );
    assert!(lines[1].starts_with("warden:   │ "), "{lines:?}");
    assert!(!lines.iter().any(|l| l.contains("notes.txt")), "{lines:?}");
}

#[test]
fn with_v_a_plan_is_shown_once_as_its_checklist() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    let plan = json!({
        "explanation": "small fix",
        "plan": [
            {"step": "read the failing test", "status": "done"},
            {"step": "fix the parser", "status": "in_progress"},
        ],
    });
    server.push(Reply::tool_calls("", &[("p1", "update_plan", plan)]));
    server.push(Reply::text("working on it"));
    let out = run(&env, &server, &["-v", "fix it"]);
    assert_eq!(stdout(&out), "working on it\n");
    let lines: Vec<String> = stderr_lines(&out)
        .into_iter()
        .filter(|l| !l.starts_with("warden: workspace ") && !l.starts_with("warden: mode "))
        .collect();
    assert_eq!(
        lines,
        [
            "warden: plan: 1 of 2 done — small fix",
            "warden:   [x] read the failing test",
            "warden:   [~] fix the parser",
        ],
    );
}
