//! `--continue`: the most recent session of this workspace, for `run` (and `chat`).

use serde_json::Value;

use crate::support::{TestEnv, stderr};

fn session_of(stderr: &str) -> String {
    stderr
        .lines()
        .find_map(|l| l.strip_prefix("warden: session "))
        .unwrap_or_default()
        .trim()
        .to_owned()
}

#[test]
fn run_continue_resumes_the_last_session_of_this_workspace() {
    let env = TestEnv::new();
    let missing = env.run(&["run", "--continue", "hello"]);
    assert_eq!(missing.status.code(), Some(2), "{}", stderr(&missing));
    assert!(
        stderr(&missing).contains("no session"),
        "{}",
        stderr(&missing)
    );

    let first = env.run(&["run", "first prompt"]);
    assert!(first.status.success(), "{}", stderr(&first));
    let id = session_of(&stderr(&first));
    assert!(!id.is_empty(), "{}", stderr(&first));

    // A session of another workspace, written later, is not the one continued.
    let other = tempfile::tempdir().unwrap();
    let out = env.run(&["run", "-C", other.path().to_str().unwrap(), "elsewhere"]);
    assert!(out.status.success(), "{}", stderr(&out));

    let second = env.run(&["run", "--continue", "second prompt"]);
    assert!(second.status.success(), "{}", stderr(&second));
    assert_eq!(session_of(&stderr(&second)), id);

    let export = env.run(&["session", "export", &id]);
    let items: Value = serde_json::from_slice(&export.stdout).unwrap();
    let users: Vec<&str> = items
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "user")
        .map(|i| i["text"].as_str().unwrap())
        .collect();
    assert_eq!(users, vec!["first prompt", "second prompt"]);
}

#[test]
fn continue_and_session_conflict() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--continue", "--session", "x", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
