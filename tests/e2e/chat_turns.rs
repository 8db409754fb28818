//! A chat turn as a person sees it, in a terminal (tmux): what Ctrl-C says while a command
//! runs.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::support::TestEnv;

const FULL_AUTO: &str = "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"full-auto\"\n";

#[test]
fn ctrl_c_while_a_command_runs_names_the_command_and_asks_the_model_nothing_more() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP ctrl_c_while_a_command_runs: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.project_config(FULL_AUTO);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[("s1", "shell", json!({"command": "sleep 30"}))],
    ));
    server.push(Reply::text("not asked"));
    let term = chat_against(&env, &server);
    term.type_text("wait a while");
    term.press("Enter");
    term.wait_for("running shell");
    term.press("C-c");
    let screen = term.wait_for("cancelled while");
    assert!(
        screen.contains("cancelled while `shell` was running"),
        "{screen}"
    );
    assert!(
        !screen.contains("while the model was answering"),
        "{screen}"
    );
    term.wait_for_after("cancelled while", "warden ›");
    assert_eq!(server.requests().len(), 1, "no request after the cancel");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
