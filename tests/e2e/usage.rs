//! Tokens and cost through the real binary: each answer's usage in history, in the audit log,
//! in `warden run --json`, in `warden audit` and `warden session show`, and `/cost` with the
//! chat's status line in a terminal.

use serde_json::{Value, json};
use warden_tests::mock_server::{INPUT_TOKENS, MockServer, OUTPUT_TOKENS, Reply};

use crate::chat::{Terminal, skip};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn lines(path: std::path::PathBuf) -> Vec<Value> {
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

/// One `run --json` turn in which the model calls `read_file` and then answers: two answers.
fn two_answer_turn(env: &TestEnv, config: &str) -> Value {
    env.project_config(config);
    env.write("notes.txt", "some notes\n");
    let server = MockServer::start().expect("mock server");
    server.script_tool_call("c1", "read_file", json!({"path": "notes.txt"}), "Done.");
    let mut cmd = env.command();
    cmd.env("ANTHROPIC_BASE_URL", server.url())
        .env("ANTHROPIC_API_KEY", "sk-ant-test")
        .args(["run", "--json", "read the notes"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    serde_json::from_slice(&out.stdout).expect("run --json prints JSON")
}

#[test]
fn each_answers_tokens_are_in_history_the_audit_log_run_json_and_session_show() {
    let env = TestEnv::new();
    let result = two_answer_turn(
        &env,
        "[model]\nprovider = \"anthropic\"\nname = \"claude-sonnet-4-5\"\nmax_retries = 0\n",
    );
    assert_eq!(result["outcome"], "answered", "{result}");
    assert_eq!(
        result["usage"],
        json!({"input_tokens": 2 * INPUT_TOKENS, "output_tokens": 2 * OUTPUT_TOKENS}),
        "{result}"
    );
    let id = result["session"].as_str().expect("session id").to_owned();
    let dir = env.state_home().join("sessions").join(&id);

    let answers: Vec<Value> = lines(dir.join("history.jsonl"))
        .into_iter()
        .filter(|r| r["source"] == "provider")
        .collect();
    assert_eq!(answers.len(), 2, "{answers:?}");
    for answer in &answers {
        assert_eq!(
            answer["usage"],
            json!({"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS}),
            "{answer}"
        );
    }
    let outcomes: Vec<Value> = lines(dir.join("audit.jsonl"))
        .into_iter()
        .filter(|r| r["event"]["type"] == "model_outcome")
        .collect();
    assert_eq!(outcomes.len(), 2, "{outcomes:?}");
    assert!(
        outcomes.iter().all(|o| o
            .to_string()
            .contains(&format!("\"input_tokens\":{INPUT_TOKENS}"))),
        "{outcomes:?}"
    );

    let audit = env.run(&["audit", &id]);
    assert!(audit.status.success(), "{}", stderr(&audit));
    let text = stdout(&audit);
    assert_eq!(
        text.matches(&format!("{INPUT_TOKENS} in, {OUTPUT_TOKENS} out tokens"))
            .count(),
        2,
        "{text}"
    );

    let show = env.run(&["session", "show", &id]);
    assert!(show.status.success(), "{}", stderr(&show));
    let text = stdout(&show);
    assert!(
        text.contains(&format!("input        {}", 2 * INPUT_TOKENS)),
        "{text}"
    );
    assert!(
        text.contains(&format!("output       {}", 2 * OUTPUT_TOKENS)),
        "{text}"
    );
    // 22 × $3 + 14 × $15 per million tokens.
    assert!(
        text.contains("cost         $0.0003 at the prices of claude-sonnet-4-5"),
        "{text}"
    );
}

#[test]
fn a_configured_price_overrides_the_table_and_an_unknown_model_has_none() {
    let env = TestEnv::new();
    let result = two_answer_turn(
        &env,
        "[model]\nprovider = \"anthropic\"\nname = \"house-model\"\nmax_retries = 0\n",
    );
    let id = result["session"].as_str().expect("session id").to_owned();
    let text = stdout(&env.run(&["session", "show", &id]));
    assert!(
        text.contains("cost         unknown: no price for model house-model"),
        "{text}"
    );
    env.project_config(
        "[model]\nprovider = \"anthropic\"\nname = \"house-model\"\nmax_retries = 0\n\
         price = { input = 1000.0, output = 2000.0 }\n",
    );
    let text = stdout(&env.run(&["session", "show", &id]));
    // 22 × $1000 + 14 × $2000 per million tokens.
    assert!(
        text.contains("cost         $0.0500 at the prices of house-model"),
        "{text}"
    );
}

#[test]
fn the_chat_shows_context_and_session_tokens_after_a_turn_and_cost_totals_them() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"openai\"\nname = \"gpt-4.1\"\nmax_retries = 0\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("First answer."));
    server.push(Reply::text("Second answer."));
    let term = Terminal::start(
        &env,
        &["chat"],
        &[
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", server.openai_url()),
            ("NO_COLOR", "1".into()),
        ],
    );
    term.wait_for("warden ›");
    term.type_text("hello");
    term.press("Enter");
    let one = INPUT_TOKENS + OUTPUT_TOKENS;
    term.wait_for(&format!(
        "context {one}/1.05M (0%) · session {one} tokens · $0.0001"
    ));
    term.wait_for_after(&format!("session {one} tokens"), "warden ›");
    term.type_text("again");
    term.press("Enter");
    term.wait_for(&format!("session {} tokens", 2 * one));
    term.wait_for_after("Second answer.", "warden ›");
    term.type_text("/cost");
    term.press("Enter");
    let screen = term.wait_for("cost         $");
    assert!(
        screen.contains(&format!("input        {}", 2 * INPUT_TOKENS)),
        "{screen}"
    );
    assert!(
        screen.contains(&format!("output       {}", 2 * OUTPUT_TOKENS)),
        "{screen}"
    );
    assert!(screen.contains("at the prices of gpt-4.1"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
