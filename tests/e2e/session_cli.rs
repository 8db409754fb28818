//! `warden session list` with each session's workspace and filters (`-C`/`--workspace`,
//! `--grep`), and `warden session show` with the tool calls, through the real binary.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::OPENAI;
use crate::support::{TestEnv, stderr, stdout};

fn run_in(env: &TestEnv, dir: &std::path::Path, prompt: &str) -> String {
    let out = env.run_in(dir, &["run", "--json", prompt]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["session"].as_str().unwrap().to_owned()
}

#[test]
fn list_shows_each_sessions_workspace_and_filters_by_workspace_and_text() {
    let env = TestEnv::new();
    let other = env.root().join("other");
    std::fs::create_dir_all(other.join(".git")).unwrap();
    let here = run_in(&env, &env.workspace(), "explain the parser");
    let there = run_in(&env, &other, "fix the Makefile");

    let all = stdout(&env.run(&["session", "list"]));
    let header = all.lines().next().unwrap();
    assert!(header.contains("WORKSPACE"), "{all}");
    let line_of = |id: &str| {
        all.lines()
            .find(|l| l.starts_with(id))
            .unwrap_or_else(|| panic!("{id}: {all}"))
            .to_owned()
    };
    assert!(
        line_of(&here).contains(&env.workspace().display().to_string()),
        "{all}"
    );
    assert!(
        line_of(&there).contains(&other.display().to_string()),
        "{all}"
    );

    // One workspace's sessions.
    let ws = env.workspace().display().to_string();
    let out = env.run(&["session", "list", "-C", &ws]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&here) && !stdout(&out).contains(&there),
        "{}",
        stdout(&out)
    );
    let out = env.run(&[
        "session",
        "list",
        "--workspace",
        &other.display().to_string(),
        "--json",
    ]);
    let ids: Vec<Value> = serde_json::from_str::<Vec<Value>>(&stdout(&out))
        .unwrap()
        .into_iter()
        .map(|s| s["id"].clone())
        .collect();
    assert_eq!(ids, [json!(there)]);

    // Text of the prompts, any case.
    let out = env.run(&["session", "list", "--grep", "makefile"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains(&there) && !stdout(&out).contains(&here),
        "{}",
        stdout(&out)
    );
    let out = env.run(&["session", "list", "--grep", "no such words"]);
    assert!(
        !stdout(&out).contains(&here) && !stdout(&out).contains(&there),
        "{}",
        stdout(&out)
    );
}

#[test]
fn show_lists_the_tool_calls_with_their_results() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("notes.txt", "n\n");
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Let me read it.",
        &[
            ("r1", "read_file", json!({"path": "notes.txt"})),
            ("r2", "read_file", json!({"path": "missing.txt"})),
        ],
    ));
    server.push(Reply::text("read"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "read them"]);
    let out = crate::support::output_within(cmd, crate::support::HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let id = value["session"].as_str().unwrap();

    let out = env.run(&["session", "show", id]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    let call = |needle: &str| lines.iter().position(|l| l.trim_start() == needle);
    let first = call("→ read_file notes.txt (call r1)").unwrap_or_else(|| panic!("{text}"));
    let second = call("→ read_file missing.txt (call r2)").unwrap_or_else(|| panic!("{text}"));
    assert!(first < second, "{text}");
    // Each result names its call, and says an error.
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── #") && l.ends_with("tool (read_file r1)")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("── #") && l.ends_with("tool (read_file r2, error)")),
        "{text}"
    );
}
