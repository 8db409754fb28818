//! `warden session prune`: a list and a confirmation (or `--yes`), `--dry-run`, and sessions
//! held by a running process skipped and named while the rest are removed.

use std::fs::{File, OpenOptions};

use serde_json::Value;

use crate::support::{TestEnv, stderr, stdout};

fn ids(env: &TestEnv) -> Vec<String> {
    let out = env.run(&["session", "list", "--json", "--all"]);
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    list.as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap().to_owned())
        .collect()
}

fn sessions(env: &TestEnv, names: &[&str]) {
    for name in names {
        let out = env.run(&["run", "--json", "--new-session", name, "hello"]);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    }
}

/// Hold session `id`'s writer lock, as a running chat does.
fn hold_lock(env: &TestEnv, id: &str) -> File {
    let path = env.state_home().join("sessions").join(id).join("lock");
    let file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .unwrap();
    file.try_lock().unwrap();
    file
}

#[test]
fn prune_without_a_terminal_needs_yes_or_dry_run() {
    let env = TestEnv::new();
    sessions(&env, &["one", "two"]);
    let out = env.run(&["session", "prune", "--older-than", "0"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("--yes") && err.contains("--dry-run"), "{err}");
    assert_eq!(ids(&env).len(), 2, "nothing deleted");

    let out = env.run(&["session", "prune", "--older-than", "0", "--dry-run"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("one") && text.contains("two") && text.contains("would delete 2"),
        "{text}"
    );
    assert_eq!(ids(&env).len(), 2, "a dry run deletes nothing");
}

#[test]
fn prune_skips_and_names_a_session_in_use_and_removes_the_rest() {
    let env = TestEnv::new();
    sessions(&env, &["s-1", "s-2", "s-3", "s-4"]);
    let lock = hold_lock(&env, "s-2");
    let out = env.run(&["session", "prune", "--older-than", "0", "--yes"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = format!("{}{}", stdout(&out), stderr(&out));
    assert!(text.contains("skipped session s-2"), "{text}");
    assert!(text.contains("3 sessions deleted, 1 skipped"), "{text}");
    assert_eq!(ids(&env), ["s-2"]);
    drop(lock);
}
