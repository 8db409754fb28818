//! The `todo-reminder` sample: its `<system-reminder>` is an item like any other — in
//! history, in the request, and still there after a resume.

use serde_json::Value;
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const REMINDER: &str = "<system-reminder>\nOpen tasks (todo-reminder):\n- ship the release\n- update the docs\n</system-reminder>";

fn turn(env: &TestEnv, server: &MockServer, prompt: &str) {
    server.push(Reply::text("ok"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", env.session_flag("R"), "R", prompt]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

fn reminders_in(messages: &Value) -> usize {
    messages
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["content"] == REMINDER)
        .count()
}

#[test]
fn a_reminder_is_committed_sent_and_kept_after_a_resume() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n[[plugins]]\nname = \"todo\"\nkind = \"interceptor\"\npath = \"{}\"\n[plugins.config]\ntasks = \"ship the release; update the docs\"\nevery = \"3\"\n",
        fixtures::todo_reminder().display()
    ));
    let server = MockServer::start().unwrap();
    turn(&env, &server, "first");
    let reqs = server.requests();
    let messages = &reqs[0].body["messages"];
    assert_eq!(reminders_in(messages), 1, "{messages}");
    // Committed before the request: after the user item, before the answer.
    let out = env.run(&["session", "export", "R"]);
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(history[1]["source"], "plugin:todo");
    assert_eq!(history[1]["text"], REMINDER);
    assert_eq!(history[2]["role"], "assistant");

    // A resumed session sends the committed reminder again (and this new process reminds
    // once more at its first request).
    turn(&env, &server, "second");
    let reqs = server.requests();
    assert_eq!(reminders_in(&reqs[1].body["messages"]), 2);
}
