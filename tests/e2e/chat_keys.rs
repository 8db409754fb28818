//! The completion menu's keys in `warden chat`: Enter on a path typed in full submits at once,
//! an empty menu says so in words, Tab on a directory leaves the path open; and the banner
//! names the provider and model.

use std::time::Duration;

use super::{Terminal, skip};
use crate::support::TestEnv;

/// Long enough for the background index to be built and the menu drawn.
const SETTLE: Duration = Duration::from_millis(400);

#[test]
fn enter_on_a_path_typed_in_full_submits_at_once() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    env.write("src/lib.rs", "\n");
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    std::thread::sleep(SETTLE);
    term.type_text("see @src/main.rs");
    std::thread::sleep(SETTLE);
    // The menu is open and its selection is what was typed: one Enter sends the prompt.
    term.press("Enter");
    // The echo answer is drawn line by line: wait for the line itself, not its first line.
    term.wait_for("last user text: \"see @src/main.rs\"");

    // A selection that differs from the typed text is still taken by Enter.
    term.wait_for_after("[echo provider]", "warden ›");
    term.type_text("then @src/lib");
    std::thread::sleep(SETTLE);
    term.press("Enter");
    term.wait_for("then @src/lib.rs");
    term.press("Enter");
    term.wait_for("last user text: \"then @src/lib.rs\"");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn an_empty_menu_says_no_matching_files() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    std::thread::sleep(SETTLE);
    term.type_text("see @zzzq");
    let screen = term.wait_for("no matching files");
    assert!(!screen.contains("NO RECORDS FOUND"), "{screen}");
    // Clear the line (not Ctrl-C: keys behind the one that ends a line may be dropped).
    term.press("C-u");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn tab_on_a_directory_leaves_the_path_open() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    std::thread::sleep(SETTLE);
    term.type_text("see @sr");
    std::thread::sleep(SETTLE);
    term.press("Tab");
    term.wait_for("see @src/");
    // What is typed next continues the path: no space was put after the directory.
    term.type_text("main.rs");
    term.press("Enter");
    term.wait_for("[echo provider]");
    let screen = term.wait_for("last user text:");
    assert!(
        screen.contains("last user text: \"see @src/main.rs\""),
        "{screen}"
    );
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn the_banner_names_the_provider_and_model() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    let term = Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    let screen = term.wait_for("warden ›");
    let banner = screen
        .lines()
        .find(|l| l.starts_with("warden chat ·"))
        .unwrap_or_default()
        .to_owned();
    assert!(banner.contains("echo"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    env.project_config("[model]\nprovider = \"openai\"\nname = \"gpt-banner\"\n");
    let term = Terminal::start(
        &env,
        &["chat"],
        &[
            ("NO_COLOR", "1".into()),
            ("OPENAI_API_KEY", "sk-test".into()),
            ("OPENAI_BASE_URL", "http://127.0.0.1:9/v1".into()),
        ],
    );
    let screen = term.wait_for("warden ›");
    assert!(screen.contains("openai · gpt-banner"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
