//! `shell`'s `escalate` through the real binary: a command the sandbox stops says so and
//! names the escalation that would allow it; an escalated call is refused by `warden run`
//! without `--yes`, runs with `--yes`, and is refused under `policy.allow_escalation = false`
//! whatever the flags; `git` lets a commit through (a hook cannot be written: every command
//! of a `git` escalation must be git, `tests/e2e/escape_git.rs`).

use std::io::Read;
use std::net::TcpListener;
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::{OPENAI, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

macro_rules! require_sandbox {
    ($name:expr) => {
        if let Some(missing) = sandbox_missing() {
            eprintln!(
                "SKIP {}: the sandbox cannot be built here: {missing}",
                $name
            );
            return;
        }
    };
}

/// Exit status of `warden run` when a call was denied.
const DENIED: i32 = 4;

/// One `warden run` turn whose model calls `shell` with `args`, run with `flags` and ending
/// with exit status `expect`: the tool message the model got back, `run`'s standard error,
/// and the session id.
fn run_one(env: &TestEnv, args: Value, flags: &[&str], expect: i32) -> (String, String, String) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", &[("c1", "shell", args)]));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test-secret-value")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto"])
        .args(flags)
        .arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(expect), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    let message = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned();
    (
        message,
        stderr(&out),
        value["session"].as_str().unwrap_or_default().to_owned(),
    )
}

/// A loopback port nothing listens on.
fn closed_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

fn last_line(message: &str) -> &str {
    message.trim_end().lines().last().unwrap_or_default()
}

#[test]
fn a_connect_the_sandbox_refused_is_named_with_the_escalation_that_allows_it() {
    require_sandbox!("a_connect_the_sandbox_refused_is_named_with_the_escalation_that_allows_it");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let port = closed_port();
    let (message, _, _) = run_one(
        &env,
        json!({"command": format!("curl -sS --max-time 5 http://127.0.0.1:{port}/")}),
        &[],
        0,
    );
    let last = last_line(&message);
    assert!(last.starts_with("[sandbox:"), "{message}");
    assert!(last.contains(&format!("127.0.0.1:{port}")), "{message}");
    assert!(last.contains("\"network\""), "{message}");
}

#[test]
fn a_name_lookup_in_the_empty_network_is_named_too() {
    require_sandbox!("a_name_lookup_in_the_empty_network_is_named_too");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (message, _, _) = run_one(
        &env,
        json!({"command": "curl -sS --max-time 5 http://registry.invalid/"}),
        &[],
        0,
    );
    let last = last_line(&message);
    assert!(last.starts_with("[sandbox:"), "{message}");
    assert!(last.contains("name lookup"), "{message}");
    assert!(last.contains("\"network\""), "{message}");
}

#[test]
fn a_command_that_fails_on_its_own_gets_no_sandbox_line() {
    require_sandbox!("a_command_that_fails_on_its_own_gets_no_sandbox_line");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (message, _, _) = run_one(&env, json!({"command": "ls no-such-file"}), &[], 0);
    assert!(!message.contains("[sandbox:"), "{message}");
    assert!(last_line(&message).starts_with("exit status:"), "{message}");
}

#[test]
fn run_without_yes_refuses_an_escalation_and_nothing_runs() {
    require_sandbox!("run_without_yes_refuses_an_escalation_and_nothing_runs");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (message, err, _) = run_one(
        &env,
        json!({"command": "touch ran.txt", "escalate": {"kind": "network", "reason": "fetch the index"}}),
        &[],
        DENIED,
    );
    assert!(message.contains("--yes"), "{message}");
    assert!(err.contains("network access to every host"), "{err}");
    assert!(!env.workspace().join("ran.txt").exists());
}

#[test]
fn with_yes_a_network_escalation_reaches_the_host_and_is_audited() {
    require_sandbox!("with_yes_a_network_escalation_reaches_the_host_and_is_audited");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accept = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut seen = [0u8; 64];
        let n = stream.read(&mut seen).unwrap_or(0);
        String::from_utf8_lossy(&seen[..n]).into_owned()
    });
    let (message, err, session) = run_one(
        &env,
        json!({
            "command": format!("curl -sS --max-time 3 http://127.0.0.1:{port}/escalated"),
            "escalate": {"kind": "network", "reason": "reach the test server"}
        }),
        &["--yes"],
        0,
    );
    assert!(
        err.contains("escalated by --yes: network access to every host"),
        "{err}"
    );
    assert!(
        accept.join().unwrap().contains("GET /escalated"),
        "{message}"
    );
    let out = env.run(&["audit", &session, "--json"]);
    let text = stdout(&out);
    assert!(text.contains("\"escalation\""), "{text}");
    assert!(text.contains("reach the test server"), "{text}");
}

#[test]
fn managed_policy_false_refuses_an_escalation_even_with_yes() {
    require_sandbox!("managed_policy_false_refuses_an_escalation_even_with_yes");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.managed_config("[policy]\nallow_escalation = false\n");
    let (message, _, _) = run_one(
        &env,
        json!({"command": "touch ran.txt", "escalate": {"kind": "network", "reason": "fetch"}}),
        &["--yes"],
        DENIED,
    );
    assert!(message.contains("policy.allow_escalation"), "{message}");
    assert!(!env.workspace().join("ran.txt").exists());
}

#[test]
fn unsandboxed_is_refused_unless_policy_lists_it() {
    require_sandbox!("unsandboxed_is_refused_unless_policy_lists_it");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (message, _, _) = run_one(
        &env,
        json!({"command": "touch ran.txt", "escalate": {"kind": "unsandboxed", "reason": "x"}}),
        &["--yes"],
        DENIED,
    );
    assert!(message.contains("policy.allow_escalation"), "{message}");
    assert!(!env.workspace().join("ran.txt").exists());
}

fn git(dir: &std::path::Path, args: &[&str]) -> String {
    let out = Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "git {args:?}: {}", stderr(&out));
    stdout(&out)
}

#[test]
fn git_escalation_commits_while_hooks_stay_read_only() {
    require_sandbox!("git_escalation_commits_while_hooks_stay_read_only");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let ws = env.workspace();
    git(&ws, &["init", "-q"]);
    git(&ws, &["config", "user.name", "t"]);
    git(&ws, &["config", "user.email", "t@example.com"]);
    std::fs::write(ws.join("a.txt"), "a\n").unwrap();
    let commit = "git add a.txt && git commit -qm from-the-agent && echo committed";
    let (denied, _, _) = run_one(&env, json!({ "command": commit }), &[], 0);
    assert!(!denied.contains("committed"), "{denied}");
    let last = last_line(&denied);
    assert!(
        last.contains(".git/index.lock") && last.contains("\"git\""),
        "{denied}"
    );
    let command = "git add a.txt && git commit -qm from-the-agent && git log --oneline -1";
    let (message, _, _) = run_one(
        &env,
        json!({"command": command, "escalate": {"kind": "git", "reason": "commit the change"}}),
        &["--yes"],
        0,
    );
    assert!(message.contains("from-the-agent"), "{message}");
    assert!(!ws.join(".git/hooks/pre-commit").exists(), "{message}");
    assert!(git(&ws, &["log", "--oneline"]).contains("from-the-agent"));
}

#[test]
fn the_chat_shows_what_an_escalation_grants_runs_it_after_y_and_refuses_it_after_n() {
    if crate::chat::skip() {
        return;
    }
    require_sandbox!(
        "the_chat_shows_what_an_escalation_grants_runs_it_after_y_and_refuses_it_after_n"
    );
    let env = TestEnv::new();
    env.user_config("[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\n");
    let server = MockServer::start().unwrap();
    for (id, file, answer) in [
        ("e1", "yes.txt", "first done"),
        ("e2", "no.txt", "second done"),
    ] {
        server.push(Reply::tool_calls(
            "",
            &[(
                id,
                "shell",
                json!({"command": format!("touch {file}"),
                       "escalate": {"kind": "network", "hosts": ["index.crates.io"], "reason": "fetch the index"}}),
            )],
        ));
        server.push(Reply::text(answer));
    }
    let term = crate::chat::chat_against(&env, &server);
    term.type_text("add a dependency");
    term.press("Enter");
    let screen = term.wait_for("allow this once?");
    assert!(
        screen.contains("grants: network access to index.crates.io only"),
        "{screen}"
    );
    assert!(screen.contains("because: fetch the index"), "{screen}");
    assert!(!screen.contains("[a]lways"), "{screen}");
    term.type_text("y");
    term.wait_for("first done");
    assert!(env.workspace().join("yes.txt").exists());
    term.type_text("again");
    term.press("Enter");
    let start = std::time::Instant::now();
    // The second question is the screen's last line.
    while !term
        .screen()
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .is_some_and(|l| l.contains("allow this once?"))
    {
        assert!(start.elapsed() < HANG_LIMIT, "{}", term.screen());
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    term.type_text("n");
    term.wait_for("second done");
    assert!(!env.workspace().join("no.txt").exists());
}

#[test]
fn a_user_rule_on_the_escalation_lets_run_go_without_yes_and_a_deny_rule_refuses() {
    require_sandbox!(
        "a_user_rule_on_the_escalation_lets_run_go_without_yes_and_a_deny_rule_refuses"
    );
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.user_config(concat!(
        "[[rules]]\nid = \"touch-net\"\ncommand = [\"touch\"]\nescalate = \"network\"\n",
        "decision = \"allow\"\nexamples = [\"touch a\"]\n\n",
        "[[rules]]\nid = \"no-git-rm\"\ncommand = [\"rm\"]\nescalate = \"git\"\n",
        "decision = \"deny\"\nwhy = \"never\"\nexamples = [\"rm -rf .git\"]\n",
    ));
    let (message, _, session) = run_one(
        &env,
        json!({"command": "touch ran.txt", "escalate": {"kind": "network", "reason": "r"}}),
        &[],
        0,
    );
    assert!(env.workspace().join("ran.txt").exists(), "{message}");
    let out = env.run(&["audit", &session, "--json"]);
    // The mode let the command run; the rule let its escalation run unasked.
    assert!(
        stdout(&out).contains("\"rule\":\"touch-net\""),
        "{}",
        stdout(&out)
    );
    let (message, _, _) = run_one(
        &env,
        json!({"command": "rm -f x", "escalate": {"kind": "git", "reason": "r"}}),
        &["--yes"],
        DENIED,
    );
    assert!(message.contains("never"), "{message}");
}

#[test]
fn a_network_escalation_to_named_hosts_reaches_those_only_through_the_proxy() {
    require_sandbox!("a_network_escalation_to_named_hosts_reaches_those_only_through_the_proxy");
    if let Some(missing) = crate::shell::per_host_missing() {
        eprintln!(
            "SKIP a_network_escalation_to_named_hosts: per-host network is not available here: {missing}"
        );
        return;
    }
    let (port, seen) = crate::shell_hosts::listener();
    let (other, other_seen) = crate::shell_hosts::listener();
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let command = format!(
        "curl -sS --max-time 10 --proxy \"$HTTPS_PROXY\" http://127.0.0.1:{port}/named; echo; \
         curl -sS --max-time 10 --proxy \"$HTTPS_PROXY\" -o /dev/null -w 'other %{{http_code}}' http://127.0.0.1:{other}/"
    );
    let (message, err, _) = run_one(
        &env,
        json!({"command": command,
               "escalate": {"kind": "network", "hosts": [format!("127.0.0.1:{port}")], "reason": "r"}}),
        &["--yes"],
        0,
    );
    assert!(
        err.contains(&format!("network access to 127.0.0.1:{port} only")),
        "{err}"
    );
    assert!(message.contains("hello-from-lo"), "{message}");
    assert!(message.contains("other 403"), "{message}");
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
    assert_eq!(other_seen.load(std::sync::atomic::Ordering::SeqCst), 0);
}

#[test]
fn a_write_outside_the_roots_and_one_to_warden_are_named() {
    require_sandbox!("a_write_outside_the_roots_and_one_to_warden_are_named");
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let (message, _, _) = run_one(
        &env,
        json!({"command": "mkdir /usr/local/warden-escalate-probe"}),
        &[],
        0,
    );
    let last = last_line(&message);
    assert!(
        last.contains("writes are allowed only in the workspace")
            && last.contains("/usr/local/warden-escalate-probe"),
        "{message}"
    );
    assert!(!std::path::Path::new("/usr/local/warden-escalate-probe").exists());
    let (message, _, _) = run_one(
        &env,
        json!({"command": "echo x > .warden/config.toml"}),
        &[],
        0,
    );
    let last = last_line(&message);
    assert!(
        last.contains(".warden/config.toml") && !last.contains("\"git\""),
        "{message}"
    );
}
