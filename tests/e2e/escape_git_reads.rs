//! Git reads that a mode lets run unasked run hardened: a hostile repository (shipped as
//! files) whose `.git/config` sets `core.fsmonitor`, `core.pager`, `diff.external`, a
//! `textconv` and a `clean` filter (named by its `.gitattributes`) and an alias cannot make
//! `git status`, `git diff`, `git log -p`, `git show` or `git blame` run them, under
//! `--mode ask` with nobody answering. Each hostile program would leave a marker file in the
//! workspace; none may appear.

use std::path::Path;

use serde_json::json;

use crate::escape_git::{MODEL, run_shell};
use crate::mcp_client::sandbox;
use crate::support::TestEnv;

/// Give the repository at `ws` a hostile configuration and attributes; each program it
/// names writes `MARK-<what>` in `ws`.
pub(crate) fn make_hostile(ws: &Path) {
    let mark = |what: &str| ws.join(format!("MARK-{what}")).display().to_string();
    let config = format!(
        "[core]\n\tfsmonitor = \"touch {fsmonitor}; false\"\n\tpager = \"touch {pager}; cat\"\n\
         [diff]\n\texternal = \"touch {external}; true\"\n\
         [diff \"x\"]\n\ttextconv = \"touch {textconv}; cat\"\n\
         [filter \"y\"]\n\tclean = \"touch {clean}; cat\"\n\tsmudge = \"touch {smudge}; cat\"\n\
         [alias]\n\tco-evil = \"!touch {alias}\"\n",
        fsmonitor = mark("fsmonitor"),
        pager = mark("pager"),
        external = mark("external"),
        textconv = mark("textconv"),
        clean = mark("clean"),
        smudge = mark("smudge"),
        alias = mark("alias"),
    );
    let path = ws.join(".git/config");
    let mut text = std::fs::read_to_string(&path).unwrap();
    text.push_str(&config);
    std::fs::write(&path, text).unwrap();
    let hook = ws.join(".git/hooks/pre-commit");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, format!("#!/bin/sh\ntouch {}\n", mark("hook"))).unwrap();
    let mut perms = std::fs::metadata(&hook).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&hook, perms).unwrap();
    std::fs::write(ws.join(".gitattributes"), "*.txt diff=x filter=y\n").unwrap();
}

/// Promise: `git status`, `git diff`, `git log -p`, `git show` and `git blame`, which the
/// defaults let run unasked, run none of the programs a hostile repository's configuration
/// names (fsmonitor, pager, external diff, textconv, clean filter), and still show the
/// change.
#[test]
fn unasked_git_reads_run_nothing_a_hostile_repository_names() {
    let test = "unasked_git_reads_run_nothing_a_hostile_repository_names";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(MODEL);
    let ws = env.workspace();
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["config", "user.name", "t"],
        &["config", "user.email", "t@example.com"],
    ] {
        assert!(crate::escape_git::person_git(&ws, args).status.success());
    }
    std::fs::write(ws.join(".gitignore"), ".warden/\nMARK*\n").unwrap();
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    assert!(
        crate::escape_git::person_git(&ws, &["add", "."])
            .status
            .success()
    );
    assert!(
        crate::escape_git::person_git(&ws, &["commit", "-qm", "first"])
            .status
            .success()
    );
    make_hostile(&ws);
    std::fs::write(ws.join("a.txt"), "a\nchanged\n").unwrap();
    let calls = [
        ("c1", json!({"command": "git status"})),
        ("c2", json!({"command": "git diff"})),
        ("c3", json!({"command": "git log -p"})),
        ("c4", json!({"command": "git show"})),
        ("c5", json!({"command": "git blame a.txt"})),
    ];
    let ran = run_shell(&env, &["--mode", "ask"], &calls);
    let marks: Vec<String> = std::fs::read_dir(&ws)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("MARK"))
        .collect();
    assert_eq!(
        marks,
        Vec::<String>::new(),
        "{:?} (exit {:?})",
        ran.results,
        ran.code
    );
    assert!(ran.get("c1").contains("a.txt"), "{:?}", ran.results);
    assert!(ran.get("c2").contains("+changed"), "{:?}", ran.results);
    assert!(ran.get("c3").contains("+a"), "{:?}", ran.results);
}
