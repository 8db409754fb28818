//! "Always" from the chat's approval prompt for a command: the prompt shows the narrowest rule
//! that covers it before it is saved, `a` writes it to the user layer limited to this
//! workspace (never to the project's `.warden/`), and the next call it covers does not ask.

use std::time::{Duration, Instant};

use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::support::TestEnv;

#[test]
fn always_saves_the_narrowest_rule_and_the_next_call_does_not_ask() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!(
            "SKIP always_saves_the_narrowest_rule: the sandbox cannot be built here: {missing}"
        );
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nbuiltin_rules = false\n",
    );
    let server = MockServer::start().unwrap();
    for (id, command, answer) in [
        ("s1", "touch first.txt", "first done"),
        ("s2", "touch second.txt", "second done"),
    ] {
        server.push(Reply::tool_calls(
            "",
            &[(id, "shell", serde_json::json!({ "command": command }))],
        ));
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);
    term.type_text("make a file");
    term.press("Enter");
    let screen = term.wait_for("saved to your config");
    assert!(
        screen.contains("[a]lways for `touch …` here (saved to your config)"),
        "{screen}"
    );
    term.type_text("a");
    term.press("Enter");
    term.wait_for("first done");
    let saved = std::fs::read_to_string(&user).unwrap();
    assert!(saved.contains("id = \"always:touch\""), "{saved}");
    assert!(saved.contains("command = [\"touch\"]"), "{saved}");
    let root = std::fs::canonicalize(env.workspace()).unwrap();
    assert!(
        saved.contains(&format!("workspace = \"{}\"", root.display())),
        "{saved}"
    );
    assert!(!env.workspace().join(".warden/config.toml").exists());

    term.type_text("make another");
    term.press("Enter");
    let start = Instant::now();
    while !term.screen().contains("second done") {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{}",
            term.screen()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let screen = term.screen();
    assert_eq!(
        screen.matches("saved to your config)").count(),
        1,
        "{screen}"
    );
    assert!(env.workspace().join("second.txt").exists());
}
