//! `warden complete`: the same paths as the resolver's `list_files`, ranked; a gitignored file
//! is not offered but still resolves when typed.

use std::collections::BTreeSet;

use serde_json::Value;
use warden::config::Config;
use warden::domain::Resolve;
use warden::setup;

use crate::support::{TestEnv, stderr, stdout};

/// A tree exercising every listing rule: nested `.gitignore`s, negation, directory-only rules,
/// anchored rules, deny globs, `.git`, a symlink, names with spaces.
fn tree(env: &TestEnv) {
    for (path, body) in [
        (".gitignore", "*.log\n/build/\ncache/\n!keep.log\n"),
        ("src/main.rs", "fn main() {}\n"),
        ("src/debug.log", "ignored\n"),
        ("src/keep.log", "re-included\n"),
        ("src/cache/blob", "ignored dir\n"),
        ("src/sub/.gitignore", "*.tmp\n!wanted.tmp\n"),
        ("src/sub/a.tmp", "ignored\n"),
        ("src/sub/wanted.tmp", "kept\n"),
        ("build/out.txt", "ignored dir at the root\n"),
        ("docs/build/page.md", "kept: /build/ is anchored\n"),
        ("my notes.md", "notes\n"),
        (".env", "SECRET=1\n"),
        ("certs/server.pem", "denied\n"),
        (".git/config", "[core]\n"),
        (".github/workflows/ci.yml", "on: push\n"),
    ] {
        env.write(path, body);
    }
    #[cfg(unix)]
    std::os::unix::fs::symlink("src", env.workspace().join("link")).unwrap();
}

fn complete(env: &TestEnv, args: &[&str]) -> Vec<Value> {
    let mut all = vec!["complete", "--json"];
    all.extend_from_slice(args);
    let out = env.run(&all);
    assert!(out.status.success(), "{}", stderr(&out));
    serde_json::from_str::<Value>(&stdout(&out))
        .unwrap()
        .as_array()
        .cloned()
        .unwrap()
}

#[test]
fn completion_and_list_files_agree_on_the_same_tree() {
    let env = TestEnv::new();
    tree(&env);
    let offered: BTreeSet<String> = complete(&env, &["--limit", "100000", ""])
        .iter()
        .map(|v| v["path"].as_str().unwrap().to_owned())
        .collect();

    let engine = setup::engine(None).unwrap();
    let mut resolver = setup::resolver(&engine, &Config::default(), &env.workspace()).unwrap();
    let listing = Resolve::list_files(&mut resolver, ".", 100_000).unwrap();
    assert!(!listing.truncated);
    let listed: BTreeSet<String> = listing.entries.into_iter().collect();

    assert_eq!(offered, listed);
    for absent in [
        "src/debug.log",
        "build/",
        ".env",
        "certs/server.pem",
        ".git/",
        "src/cache/",
    ] {
        assert!(!offered.contains(absent), "{absent} offered");
    }
    for present in [
        "src/keep.log",
        "src/sub/wanted.tmp",
        "docs/build/page.md",
        "my notes.md",
        "link",
    ] {
        assert!(
            offered.contains(present),
            "{present} not offered: {offered:?}"
        );
    }
}

#[test]
fn a_gitignored_file_is_not_offered_but_still_resolves() {
    let env = TestEnv::new();
    tree(&env);
    let offered = complete(&env, &["debug"]);
    assert!(
        offered.iter().all(|v| v["path"] != "src/debug.log"),
        "{offered:?}"
    );
    let out = env.run(&["preview", "--json", "look at @src/debug.log"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let preview: Value = serde_json::from_str(&stdout(&out)).unwrap();
    assert_eq!(preview["refs"][0]["status"], "resolved");
}

#[test]
fn ranked_json_and_plain_output() {
    let env = TestEnv::new();
    tree(&env);
    let ranked = complete(&env, &["MAIN"]);
    assert_eq!(ranked[0]["path"], "src/main.rs");
    assert_eq!(ranked[0]["kind"], "file");
    assert!(ranked[0]["score"].as_u64().unwrap() > 0);

    let out = env.run(&["complete", "--limit", "2", ""]);
    assert!(out.status.success(), "{}", stderr(&out));
    let lines: Vec<String> = stdout(&out).lines().map(str::to_owned).collect();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines.iter().all(|l| !l.contains('/') || l.ends_with('/')),
        "top of the tree first: {lines:?}"
    );

    let inside = complete(&env, &["@src/"]);
    assert!(
        inside
            .iter()
            .all(|v| v["path"].as_str().unwrap().starts_with("src/"))
    );
    assert_eq!(inside[0]["kind"], "dir");
}

#[test]
fn a_bad_workspace_is_a_usage_error() {
    let env = TestEnv::new();
    let out = env.run(&["complete", "-C", "/nonexistent/dir", "x"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}
