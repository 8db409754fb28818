//! `warden trust` on a terminal shows what it would trust (each entry with its command,
//! component and grants) and asks before recording anything.

use crate::chat::{Terminal, skip};
use crate::support::{TestEnv, stdout};

fn config(env: &TestEnv) {
    env.untrusted_project_config(&format!(
        "[model]\nprovider = \"echo\"\n\n[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"{}\"\n\n\
         [[mcp]]\nname = \"docs\"\ncommand = [\"node\", \"server.js\"]\nfs = \"read\"\n",
        warden_tests::fixtures::pattern_guard().display()
    ));
}

fn trusted(env: &TestEnv) -> bool {
    let out = env.run(&["config", "show", "--json"]);
    let value: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    value["plugins"][0]["trusted"] == true
}

#[test]
fn on_a_terminal_it_shows_what_it_trusts_and_asks() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    config(&env);
    let term = Terminal::start(&env, &["trust"], &[]);
    let screen = term.wait_for("[y/N]");
    assert!(screen.contains("guard"), "{screen}");
    assert!(screen.contains("node server.js"), "{screen}");
    assert!(screen.contains("fs = \"read\""), "{screen}");
    assert!(
        !screen.contains("trusted /"),
        "nothing recorded yet: {screen}"
    );
    term.type_text("n");
    term.press("Enter");
    term.wait_for("nothing was trusted");
    assert_eq!(term.exit_code(), 1);
    assert!(!trusted(&env));

    let term = Terminal::start(&env, &["trust"], &[]);
    term.wait_for("[y/N]");
    term.type_text("y");
    term.press("Enter");
    term.wait_for("trusted /");
    assert_eq!(term.exit_code(), 0);
    assert!(trusted(&env));
}
