//! A commit asks once: a `shell` call running only git subcommands that write the repository
//! (`git add … && git commit …`), without `escalate`, is asked about as the `git` escalation it
//! needs — one question in the chat (tmux), then the commit is made — rather than asked as a
//! command, run into the read-only `.git`, and asked again escalated.

use std::path::Path;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::{OPENAI, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn git(dir: &Path, args: &[&str]) -> String {
    let out = std::process::Command::new("git")
        .current_dir(dir)
        .args(args)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn repository(env: &TestEnv) {
    let ws = env.workspace();
    git(&ws, &["init", "-q"]);
    git(&ws, &["config", "user.name", "t"]);
    git(&ws, &["config", "user.email", "t@example.com"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
}

const COMMIT: &str = "git add a.txt && git commit -qm from-the-agent";

#[test]
fn a_commit_in_the_chat_is_asked_once_as_its_escalation_and_made() {
    if crate::chat::skip() {
        return;
    }
    if let Some(missing) = sandbox_missing() {
        eprintln!("SKIP a_commit_in_the_chat_is_asked_once_as_its_escalation_and_made: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    repository(&env);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({ "command": COMMIT }))],
    ));
    server.push(Reply::text("the commit is made"));
    let term = crate::chat::chat_against(&env, &server);
    term.type_text("commit it");
    term.press("Enter");
    let screen = term.wait_for("allow this once?");
    assert!(
        screen.contains("grants:"),
        "the escalation is asked: {screen}"
    );
    assert!(screen.contains(".git"), "{screen}");
    term.type_text("y");
    let screen = term.wait_for("the commit is made");
    assert_eq!(
        screen.matches("allow").count(),
        1,
        "one question only: {screen}"
    );
    assert!(
        git(&env.workspace(), &["log", "--oneline"]).contains("from-the-agent"),
        "{screen}"
    );
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn run_with_yes_makes_a_plain_commit_in_one_call() {
    if let Some(missing) = sandbox_missing() {
        eprintln!("SKIP run_with_yes_makes_a_plain_commit_in_one_call: {missing}");
        return;
    }
    let env = TestEnv::new();
    env.project_config(OPENAI);
    repository(&env);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({ "command": COMMIT }))],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--yes", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    assert_eq!(value["answer"], "done");
    assert!(
        stderr(&out).contains("escalated by --yes"),
        "{}",
        stderr(&out)
    );
    assert!(git(&env.workspace(), &["log", "--oneline"]).contains("from-the-agent"));
    // A git command that only reads is not escalated.
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({ "command": "git log --oneline" }))],
    ));
    server.push(Reply::text("read"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--yes", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).contains("escalated"), "{}", stderr(&out));
}
