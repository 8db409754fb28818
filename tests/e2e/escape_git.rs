//! The `git` escalation cannot plant code. Each test drives the real binary with a scripted
//! model making one approved `git` escalation (`--mode full-auto --yes`), then checks after the
//! fact, with the person's own git run outside warden (plain processes), that nothing the
//! command did makes git run code:
//!
//! - a simple command other than `git` inside a `git` escalation is refused, nothing runs
//!   (`.git` renamed aside and rebuilt, a linked worktree's `commondir` repointed, a
//!   `rebase-merge/` whose todo `exec`s, all written with `mv`/`printf`);
//! - `.git` cannot be moved away (git's own `init --separate-git-dir`);
//! - a repository's own configuration runs nothing under the escalation (hooks, fsmonitor,
//!   textconv, filters, an alias);
//! - the legitimate work (`git add`, `git commit`, a rebase stopped at a conflict) still
//!   happens.
//!
//! Where this kernel cannot build the sandbox, a test prints a SKIP line instead of passing
//! silently.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::process::{Command, Output};

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::mcp_client::sandbox;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

/// The model section every test uses.
pub(crate) const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// One finished `warden run`: its exit status and each call's result by id.
pub(crate) struct Ran {
    pub(crate) code: Option<i32>,
    pub(crate) results: HashMap<String, String>,
}

impl Ran {
    /// The result of call `id` (empty when the model got none).
    pub(crate) fn get(&self, id: &str) -> &str {
        self.results.get(id).map_or("", String::as_str)
    }
}

/// One `warden run` with `flags` in which the model makes `calls` (id, arguments of `shell`),
/// then answers `done`. Nobody answers a question (standard input is empty).
pub(crate) fn run_shell(env: &TestEnv, flags: &[&str], calls: &[(&str, Value)]) -> Ran {
    let server = MockServer::start().unwrap();
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, args)| (*id, "shell", args.clone()))
        .collect();
    server.push(Reply::tool_calls("", &calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json"])
        .args(flags)
        .arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    let requests = server.requests();
    let results = requests
        .get(1)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| {
            (
                m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                m["content"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    Ran {
        code: out.status.code(),
        results,
    }
}

/// A `shell` call under an escalation of kind `git`.
fn escalated(command: &str) -> Value {
    json!({"command": command, "escalate": {"kind": "git", "reason": "commit the change"}})
}

/// The person's own `git` in `dir`, outside warden (no hardening, their hooks and config).
pub(crate) fn person_git(dir: &Path, args: &[&str]) -> Output {
    Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .env("GIT_EDITOR", "true")
        .env("GIT_SEQUENCE_EDITOR", "true")
        .output()
        .unwrap()
}

fn git_ok(dir: &Path, args: &[&str]) -> String {
    let out = person_git(dir, args);
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// A workspace holding a repository with one commit of `a.txt`, the person's identity set.
fn repository(env: &TestEnv) -> std::path::PathBuf {
    env.project_config(MODEL);
    let ws = env.workspace();
    git_ok(&ws, &["init", "-q", "-b", "main"]);
    git_ok(&ws, &["config", "user.name", "t"]);
    git_ok(&ws, &["config", "user.email", "t@example.com"]);
    std::fs::write(ws.join(".gitignore"), ".warden/\nMARK*\n").unwrap();
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    git_ok(&ws, &["add", "."]);
    git_ok(&ws, &["commit", "-qm", "first"]);
    ws
}

/// The person's everyday commands afterwards, outside warden: none may run planted code.
fn person_afterwards(ws: &Path) {
    std::fs::write(ws.join("b.txt"), "b\n").unwrap();
    let _ = person_git(ws, &["status"]);
    let _ = person_git(ws, &["add", "b.txt"]);
    let _ = person_git(ws, &["commit", "-qm", "the person's own"]);
    let _ = person_git(ws, &["rebase", "--continue"]);
    let _ = person_git(ws, &["diff", "HEAD~1"]);
}

/// Marker files a planted program would have made.
fn markers(ws: &Path) -> Vec<String> {
    std::fs::read_dir(ws)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("MARK"))
        .collect()
}

const FULL: &[&str] = &["--mode", "full-auto", "--yes"];

/// Promise: inside a `git` escalation every simple command must be `git`; the three
/// plantings, written with `mv`, `printf` and `mkdir`, are refused before anything runs.
#[test]
fn a_git_escalation_refuses_every_command_but_git() {
    let test = "a_git_escalation_refuses_every_command_but_git";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let ws = repository(&env);
    let mark = ws.join("MARK");
    let hostile = format!("[core]\n\tfsmonitor = touch {}\n", mark.display());
    let calls = [
        (
            "c1",
            escalated(&format!(
                "git status; mv .git .git-old && mkdir .git && cp -r .git-old/* .git/ && printf '{}' > .git/config; echo ran > ran1.txt",
                hostile.replace('\n', "\\n").replace('\t', "\\t")
            )),
        ),
        (
            "c2",
            escalated(&format!(
                "git worktree add -q wt && cp -r .git evil; printf '%s' '{}' >> evil/config; printf '%s' \"$PWD/evil\" > .git/worktrees/wt/commondir; echo ran > ran2.txt",
                hostile.replace('\n', " ").replace('\t', "")
            )),
        ),
        (
            "c3",
            escalated(&format!(
                "git rev-parse HEAD > /dev/null && mkdir -p .git/rebase-merge && printf 'exec touch {}\\n' > .git/rebase-merge/git-rebase-todo; echo ran > ran3.txt",
                mark.display()
            )),
        ),
    ];
    let ran = run_shell(&env, FULL, &calls);
    for id in ["c1", "c2", "c3"] {
        let out = ran.get(id);
        assert!(
            out.contains("only `git`") && out.contains("nothing ran"),
            "{id}: {out}"
        );
    }
    for name in ["ran1.txt", "ran2.txt", "ran3.txt", ".git-old", "evil", "wt"] {
        assert!(!ws.join(name).exists(), "{name} exists");
    }
    person_afterwards(&ws);
    assert_eq!(markers(&ws), Vec::<String>::new());
}

/// Promise: during a `git` escalation `.git` cannot be moved away (it is a mount point):
/// git's own `init --separate-git-dir`, which moves it, fails, and `.git` is the same
/// directory after the call.
#[test]
fn a_git_escalation_cannot_move_git_away() {
    let test = "a_git_escalation_cannot_move_git_away";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let ws = repository(&env);
    let before = std::fs::metadata(ws.join(".git")).unwrap();
    let ran = run_shell(
        &env,
        FULL,
        &[(
            "c1",
            escalated("git init -q --separate-git-dir=moved .; git status --short"),
        )],
    );
    let after = std::fs::symlink_metadata(ws.join(".git")).unwrap();
    assert!(after.is_dir(), "{}", ran.get("c1"));
    assert_eq!(
        (after.dev(), after.ino()),
        (before.dev(), before.ino()),
        "{}",
        ran.get("c1")
    );
    assert!(git_ok(&ws, &["log", "--oneline"]).contains("first"));
}

/// Promise: what a legitimate `git rebase` under the escalation leaves — a rebase stopped at
/// a conflict, its `rebase-merge/` state — stays, unreported, and the person carries on with
/// it outside warden.
#[test]
fn a_rebase_stopped_at_a_conflict_keeps_its_state() {
    let test = "a_rebase_stopped_at_a_conflict_keeps_its_state";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let ws = repository(&env);
    git_ok(&ws, &["checkout", "-q", "-b", "topic"]);
    std::fs::write(ws.join("a.txt"), "topic\n").unwrap();
    git_ok(&ws, &["commit", "-qam", "on topic"]);
    git_ok(&ws, &["checkout", "-q", "main"]);
    std::fs::write(ws.join("a.txt"), "main\n").unwrap();
    git_ok(&ws, &["commit", "-qam", "on main"]);
    git_ok(&ws, &["checkout", "-q", "topic"]);
    let ran = run_shell(&env, FULL, &[("c1", escalated("git rebase main"))]);
    let out = ran.get("c1");
    assert!(out.contains("CONFLICT"), "{out}");
    assert!(!out.contains("rebase-merge"), "{out}");
    assert!(
        ws.join(".git/rebase-merge/git-rebase-todo").exists(),
        "{out}"
    );
    std::fs::write(ws.join("a.txt"), "both\n").unwrap();
    git_ok(&ws, &["add", "a.txt"]);
    git_ok(&ws, &["rebase", "--continue"]);
    assert!(git_ok(&ws, &["log", "--oneline"]).contains("on topic"));
    assert_eq!(markers(&ws), Vec::<String>::new(), "{out}");
}

/// Promise: a repository's configuration cannot make git run a program under a `git`
/// escalation (hooks, fsmonitor, textconv, filters, an alias): the commit is made, and none
/// of them ran.
#[test]
fn a_git_escalation_runs_git_hardened() {
    let test = "a_git_escalation_runs_git_hardened";
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    let ws = repository(&env);
    crate::escape_git_reads::make_hostile(&ws);
    std::fs::write(ws.join("a.txt"), "a\nchanged\n").unwrap();
    let ran = run_shell(
        &env,
        FULL,
        &[(
            "c1",
            escalated(
                "git add a.txt && git commit -qm hardened && git diff HEAD~1 && git co-evil; git log -p -1",
            ),
        )],
    );
    let out = ran.get("c1");
    assert!(out.contains("+changed"), "{out}");
    assert!(
        git_ok(&ws, &["log", "--oneline"]).contains("hardened"),
        "{out}"
    );
    assert_eq!(markers(&ws), Vec::<String>::new(), "{out}");
}
