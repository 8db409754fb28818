//! Resuming in the chat: `--resume ID` from another directory, the picker of `--resume` and
//! `/resume` without an id, id prefixes, the earlier conversation shown on resume; and
//! `session prune`'s confirmation in a terminal.

use std::path::Path;

use serde_json::Value;

use super::{Terminal, skip};
use crate::support::{TestEnv, stderr, stdout};

/// [`Terminal::start_at`] directory `dir`, without colours.
pub(super) fn start_in(env: &TestEnv, dir: &Path, args: &[&str]) -> Terminal {
    Terminal::start_at(env, dir, args, &[("NO_COLOR", "1".into())])
}

fn new_session(env: &TestEnv, name: &str, prompts: &[&str]) {
    for (n, prompt) in prompts.iter().enumerate() {
        let args = if n == 0 {
            vec!["run", "--json", "--new-session", name, prompt]
        } else {
            vec!["run", "--json", "--session", name, prompt]
        };
        let out = env.run(&args);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

#[test]
fn chat_resume_from_another_directory_runs_in_the_recorded_workspace() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    env.write("notes.md", "remember the milk\n");
    new_session(&env, "work-1", &["first question"]);
    let workspace = std::fs::canonicalize(env.workspace()).unwrap();
    let term = start_in(&env, &env.outside(), &["chat", "--resume", "work-1"]);
    term.wait_for("warden ›");
    term.type_text("/session");
    term.press("Enter");
    let screen = term.wait_for("file       ");
    assert!(
        screen.contains(&format!("workspace  {}", workspace.display())),
        "{screen}"
    );
    term.type_text("look at @notes.md");
    term.press("Enter");
    let screen = term.wait_for_after("look at", "warden ›");
    assert!(screen.contains("+ notes.md"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn resume_shows_the_earlier_conversation_unless_asked_not_to() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    new_session(&env, "talk-1", &["what is alpha", "and what is beta"]);
    let term = start_in(&env, &env.workspace(), &["chat", "--resume", "talk-1"]);
    let screen = term.wait_for("warden ›");
    assert!(
        screen.contains("› what is alpha") && screen.contains("› and what is beta"),
        "{screen}"
    );
    assert!(screen.contains("[echo provider]"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);

    let term = start_in(
        &env,
        &env.workspace(),
        &["chat", "--resume", "talk", "--no-history"],
    );
    let screen = term.wait_for("warden ›");
    assert!(screen.contains("session talk-1"), "{screen}");
    assert!(!screen.contains("what is alpha"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn resume_without_an_id_offers_a_picker_and_slash_resume_takes_a_prefix() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    new_session(&env, "alpha-1", &["the alpha task"]);
    new_session(&env, "beta-2", &["the beta task", "more beta"]);
    let term = start_in(&env, &env.workspace(), &["chat", "--resume"]);
    let screen = term.wait_for("number");
    // Most recent first, with title, workspace, last activity and turns.
    let beta = screen.find("beta-2").unwrap_or(usize::MAX);
    let alpha = screen.find("alpha-1").unwrap_or(usize::MAX);
    assert!(beta < alpha && alpha != usize::MAX, "{screen}");
    assert!(
        screen.contains("the beta task") && screen.contains("2 turns"),
        "{screen}"
    );
    term.type_text("2");
    term.press("Enter");
    let screen = term.wait_for("warden ›");
    assert!(screen.contains("session alpha-1"), "{screen}");

    // `/resume` without an id lists the other sessions of this workspace.
    term.type_text("/resume");
    term.press("Enter");
    let screen = term.wait_for_after("/resume", "number");
    assert!(screen.contains("beta-2"), "{screen}");
    term.press("Enter");
    term.wait_for_after("/resume", "warden ›");

    // A prefix is enough; an unknown one suggests the closest ids.
    term.type_text("/resume bet");
    term.press("Enter");
    let screen = term.wait_for_after("/resume bet", "warden ›");
    assert!(screen.contains("resumed session beta-2"), "{screen}");
    assert!(screen.contains("› more beta"), "{screen}");
    term.type_text("/resume alpha-2");
    term.press("Enter");
    let screen = term.wait_for_after("/resume alpha-2", "warden ›");
    assert!(screen.contains("did you mean alpha-1"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}

#[test]
fn prune_in_a_terminal_lists_and_asks_first() {
    if skip() {
        return;
    }
    let env = TestEnv::new();
    new_session(&env, "old-1", &["hello"]);
    new_session(&env, "old-2", &["hello"]);
    let term = start_in(
        &env,
        &env.workspace(),
        &["session", "prune", "--older-than", "0"],
    );
    let screen = term.wait_for("[y/N]");
    assert!(
        screen.contains("old-1") && screen.contains("old-2"),
        "{screen}"
    );
    term.type_text("n");
    term.press("Enter");
    assert_eq!(term.exit_code(), 0);
    let list = env.run(&["session", "list", "--json"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert_eq!(list.as_array().unwrap().len(), 2, "{list}");

    let term = start_in(
        &env,
        &env.workspace(),
        &["session", "prune", "--older-than", "0"],
    );
    term.wait_for("[y/N]");
    term.type_text("y");
    term.press("Enter");
    assert_eq!(term.exit_code(), 0);
    let list = env.run(&["session", "list", "--json", "--all"]);
    let list: Value = serde_json::from_str(&stdout(&list)).unwrap();
    assert!(list.as_array().unwrap().is_empty(), "{list}");
}
