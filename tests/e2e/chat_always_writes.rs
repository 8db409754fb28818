//! "Always" at a write's approval in `warden chat`: it saves a user-layer rule covering both
//! writers (`write_file` and `edit_file`) on the target's narrowest glob, shown before it is
//! saved, listed by `/rules` and removable; and a diff the approval showed is not shown again.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::chat::{chat_against, skip};
use crate::support::TestEnv;

const ASK: &str =
    "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n\n[tools]\nmode = \"ask\"\n";

#[test]
fn always_for_a_write_saves_a_rule_for_both_writers_that_rules_lists_and_removes() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let user = env.user_config(ASK);
    env.write("src/a.txt", "one\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            json!({"path": "src/b.txt", "content": "new\n"}),
        )],
    ));
    server.push(Reply::text("wrote it"));
    server.push(Reply::tool_calls(
        "",
        &[(
            "e1",
            "edit_file",
            json!({"path": "src/a.txt", "old_string": "one", "new_string": "two"}),
        )],
    ));
    server.push(Reply::text("edited it"));
    let term = chat_against(&env, &server);
    term.type_text("write b");
    term.press("Enter");
    term.wait_for("[a]lways for writes to `src/**` here (saved to your config)");
    term.type_text("a");
    term.wait_for("wrote it");
    let saved = std::fs::read_to_string(&user).unwrap_or_default();
    assert!(saved.contains("id = \"always:write-src\""), "{saved}");
    assert!(saved.contains("paths = [\"src/**\"]"), "{saved}");
    assert!(!env.workspace().join(".warden/config.toml").exists());

    // The edit is covered by the same rule: it runs without a question.
    term.type_text("edit a");
    term.press("Enter");
    let screen = term.wait_for("edited it");
    assert_eq!(screen.matches("allow? [y]es").count(), 1, "{screen}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("src/a.txt")).unwrap_or_default(),
        "two\n"
    );

    term.type_text("/rules");
    term.press("Enter");
    let screen = term.wait_for("always:write-src");
    let line = screen
        .lines()
        .find(|l| l.contains("always:write-src"))
        .unwrap_or_default();
    assert!(
        line.starts_with("allow") && line.contains("src/**"),
        "{line}"
    );
    term.type_text("/rules remove always:write-src");
    term.press("Enter");
    term.wait_for("removed rule `always:write-src`");
    let saved = std::fs::read_to_string(&user).unwrap_or_default();
    assert!(!saved.contains("always:write-src"), "{saved}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn a_diff_shown_at_the_approval_is_not_shown_again() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.project_config(ASK);
    env.write("a.txt", "one\nunique-old-line\nthree\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls(
        "",
        &[(
            "w1",
            "write_file",
            json!({"path": "a.txt", "content": "one\nunique-new-line\nthree\n"}),
        )],
    ));
    server.push(Reply::text("done writing"));
    let term = chat_against(&env, &server);
    term.type_text("change a");
    term.press("Enter");
    term.wait_for("allow? [y]es");
    term.type_text("y");
    let screen = term.wait_for("done writing");
    assert_eq!(screen.matches("+unique-new-line").count(), 1, "{screen}");
    assert_eq!(screen.matches("-unique-old-line").count(), 1, "{screen}");
    assert!(screen.contains("edited a.txt (+1 −1)"), "{screen}");
    term.type_text("/diff");
    term.press("Enter");
    let screen = term.wait_for_after("/diff", "+unique-new-line");
    assert_eq!(screen.matches("+unique-new-line").count(), 2, "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
