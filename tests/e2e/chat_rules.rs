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

/// `/rules` lists the rules in force with where each comes from (built-in, or layer, file and
/// line); `/rules remove ID` takes a user rule out of its file and out of force, so the same
/// command, run unasked before, asks again.
#[test]
fn slash_rules_lists_where_each_comes_from_and_remove_takes_a_user_rule_out() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP slash_rules_lists: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[[rules]]\nid = \"my-touch\"\ncommand = [\"touch\"]\ndecision = \"allow\"\nwhy = \"a test\"\nexamples = [\"touch a\"]\n",
    );
    let server = MockServer::start().unwrap();
    for answer in ["first done", "second done"] {
        server.push(Reply::tool_calls(
            "",
            &[(
                "s",
                "shell",
                serde_json::json!({ "command": "touch same.txt" }),
            )],
        ));
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);
    // The rule in force: the command runs unasked.
    term.type_text("make a file");
    term.press("Enter");
    let screen = term.wait_for("first done");
    assert!(!screen.contains("allow? [y]es"), "{screen}");

    term.type_text("/rules");
    term.press("Enter");
    let screen = term.wait_for("my-touch");
    let line = screen
        .lines()
        .find(|l| l.contains("my-touch"))
        .unwrap_or_default();
    assert!(
        line.contains(&format!("(user {}:6)", user.display())),
        "{screen}"
    );
    // The built-in rules are listed too, and say so.
    assert!(screen.lines().any(|l| l.contains("(built-in)")), "{screen}");

    term.type_text("/rules remove my-touch");
    term.press("Enter");
    term.wait_for("removed rule `my-touch`");
    let saved = std::fs::read_to_string(&user).unwrap();
    assert!(!saved.contains("my-touch"), "{saved}");
    assert!(saved.contains("[model]"), "{saved}");

    term.type_text("make it again");
    term.press("Enter");
    let screen = term.wait_for("allow? [y]es");
    assert!(screen.contains("touch same.txt"), "{screen}");
    term.type_text("n");
    term.wait_for("second done");
}

/// "Always" for a harmless `awk` saves that exact command: the next `awk` with other words
/// (`BEGIN{system(…)}`) asks again, and declined, leaves no marker.
#[test]
fn always_for_an_interpreter_saves_the_exact_command_and_other_code_asks() {
    if skip() {
        return;
    }
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP always_for_an_interpreter: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nbuiltin_rules = false\n",
    );
    env.write("f.txt", "a b\n");
    let server = MockServer::start().unwrap();
    for (id, command, answer) in [
        ("s1", "awk '{print $1}' f.txt", "first done"),
        ("s2", "awk 'BEGIN{system(\"touch pwned\")}'", "second done"),
    ] {
        server.push(Reply::tool_calls(
            "",
            &[(id, "shell", serde_json::json!({ "command": command }))],
        ));
        server.push(Reply::text(answer));
    }
    let term = chat_against(&env, &server);
    term.type_text("first column");
    term.press("Enter");
    let screen = term.wait_for("saved to your config");
    assert!(
        screen.contains("[a]lways for `awk '{print $1}' f.txt (exactly)` here"),
        "{screen}"
    );
    term.type_text("a");
    term.press("Enter");
    let screen = term.wait_for("first done");
    assert!(screen.contains("(exactly)"), "{screen}");
    let saved = std::fs::read_to_string(&user).unwrap();
    assert!(
        saved.contains("command = [\"awk\", \"{print $1}\", \"f.txt\"]")
            && saved.contains("exact = true"),
        "{saved}"
    );

    term.type_text("again");
    term.press("Enter");
    let start = Instant::now();
    loop {
        let screen = term.screen();
        if screen.matches("saved to your config)").count() >= 2 {
            term.type_text("n");
            term.press("Enter");
            break;
        }
        assert!(!screen.contains("second done"), "ran unasked: {screen}");
        assert!(start.elapsed() < Duration::from_secs(60), "{screen}");
        std::thread::sleep(Duration::from_millis(100));
    }
    term.wait_for("second done");
    assert!(!env.workspace().join("pwned").exists());
}
