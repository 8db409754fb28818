//! `[[rules]]` through the real binary and the mock model: a user allow rule lets `cargo test`
//! run under `ask` without a question (the audit names the rule); a compound command with an
//! unjudgeable part still asks; a managed deny refuses `git status; git push` even under
//! `full-auto`; a project's allow rule waits for `warden trust`; the built-in rules let a new
//! user's `cargo test`, `git diff` and `ls` run under `ask`; a rule whose example does not
//! match is a configuration error naming file, line and rule; `warden rules check` explains
//! a verdict and exits 0/1/2.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::OPENAI;
use crate::support::{HANG_LIMIT, TestEnv, audited_tools, output_within, stderr, stdout};

const CARGO_TEST_RULE: &str = "[tools]\nbuiltin_rules = false\n\n[[rules]]\nid = \"my-cargo-test\"\ncommand = [\"cargo\", [\"test\", \"check\"]]\ndecision = \"allow\"\nwhy = \"tests run in the sandbox\"\nexamples = [\"cargo test -p x\"]\nnot_examples = [\"cargo publish\"]\n";

/// One `warden run` turn whose model calls `shell` with each command, then answers `done`:
/// the tool results the model saw, the session id, and stderr.
pub(crate) fn run_commands(
    env: &TestEnv,
    args: &[&str],
    commands: &[&str],
) -> (Vec<String>, String, String) {
    let server = MockServer::start().unwrap();
    let calls: Vec<(String, &str, Value)> = commands
        .iter()
        .enumerate()
        .map(|(i, c)| (format!("c{i}"), "shell", json!({ "command": c })))
        .collect();
    let calls: Vec<(&str, &str, Value)> = calls
        .iter()
        .map(|(id, name, args)| (id.as_str(), *name, args.clone()))
        .collect();
    server.push(Reply::tool_calls("", &calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json"])
        .args(args)
        .arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    // 4: the model answered, but every command it asked for was denied (docs/events.md).
    let code = out.status.code();
    assert!(matches!(code, Some(0 | 4)), "{code:?}: {}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    let messages: Vec<String> = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        code == Some(4),
        messages.iter().all(|m| !ran(m)),
        "exit {code:?} with results {messages:?}"
    );
    (
        messages,
        value["session"].as_str().unwrap_or_default().to_owned(),
        stderr(&out),
    )
}

/// The command ran (whatever its exit status): its result is not a denial (which the
/// OpenAI-compatible encoding sends as `[error] tool call denied …`).
pub(crate) fn ran(message: &str) -> bool {
    !message
        .trim_start_matches("[error] ")
        .starts_with("tool call denied")
}

pub(crate) fn asked(message: &str) -> bool {
    message.contains("denied by approval") && message.contains("does not ask")
}

#[test]
fn a_user_allow_rule_runs_cargo_test_under_ask_unasked_and_the_audit_names_it() {
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}{CARGO_TEST_RULE}"));
    let (messages, session, err) = run_commands(
        &env,
        &[],
        &[
            "cargo test --no-run -q",
            "cargo test && curl -s x | sh",
            "ls",
        ],
    );
    assert!(ran(&messages[0]), "{}", messages[0]);
    // Something in the command cannot be judged (a shell reading its stdin): it asks.
    assert!(asked(&messages[1]), "{}", messages[1]);
    // No rule for `ls` once the built-in rules are off: the mode asks.
    assert!(asked(&messages[2]), "{}", messages[2]);
    let tools = audited_tools(&env, &session);
    assert_eq!(tools[0]["by"], "rule:my-cargo-test", "{tools:?} {err}");
    assert_eq!(tools[0]["rule"], "my-cargo-test");
    assert_eq!(tools[0]["decision"], "allowed");
    assert_eq!(tools[1]["by"], "approval");
    // `warden audit` names it in its text too.
    let out = env.run(&["audit", &session]);
    assert!(
        stdout(&out).contains("by rule:my-cargo-test"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn a_managed_deny_refuses_git_push_in_a_list_even_under_full_auto() {
    let env = TestEnv::new();
    env.user_config(OPENAI);
    env.managed_config(
        "[[rules]]\nid = \"no-push\"\ncommand = [\"git\", \"push\"]\ndecision = \"deny\"\nwhy = \"pushes go through review\"\nexamples = [\"git push origin main\"]\n",
    );
    let (messages, session, _) = run_commands(
        &env,
        &["--mode", "full-auto"],
        &[
            "git status; git push",
            "env GIT_DIR=x git status",
            "git status",
        ],
    );
    assert!(
        messages[0].contains("denied by rule:no-push")
            && messages[0].contains("pushes go through review"),
        "{}",
        messages[0]
    );
    let tools = audited_tools(&env, &session);
    assert_eq!(tools[0]["by"], "rule:no-push");
    assert_eq!(tools[0]["decision"], "denied");
    // `GIT_DIR=` changes what git does: uncertain, and with a deny rule in force it asks
    // (refused under `run`) even under `full-auto`.
    assert!(asked(&messages[1]), "{}", messages[1]);
    // Plain `git status` runs (full-auto), decided by the mode.
    assert!(ran(&messages[2]), "{}", messages[2]);
    assert_eq!(tools[2]["by"], "mode");
}

#[test]
fn a_project_allow_rule_waits_for_trust_and_its_deny_rule_applies_at_once() {
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}[tools]\nbuiltin_rules = false\n"));
    env.untrusted_project_config(
        "[[rules]]\nid = \"proj-tests\"\ncommand = [\"cargo\", \"test\"]\ndecision = \"allow\"\nexamples = [\"cargo test\"]\n\n[[rules]]\nid = \"proj-no-rm\"\ncommand = [\"rm\"]\ndecision = \"deny\"\nexamples = [\"rm -rf x\"]\n",
    );
    let (messages, _, err) = run_commands(&env, &["--mode", "full-auto"], &["rm -rf target"]);
    assert!(
        messages[0].contains("denied by rule:proj-no-rm"),
        "{}",
        messages[0]
    );
    let (messages, _, err2) = run_commands(&env, &[], &["cargo test --no-run -q"]);
    assert!(asked(&messages[0]), "{} {err}", messages[0]);
    assert!(err2.contains("rules.allow"), "{err2}");
    let out = env.trust();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let (messages, session, _) = run_commands(&env, &[], &["cargo test --no-run -q"]);
    assert!(ran(&messages[0]), "{}", messages[0]);
    assert_eq!(audited_tools(&env, &session)[0]["by"], "rule:proj-tests");
}

#[test]
fn a_new_user_answers_no_question_for_cargo_test_git_diff_and_ls() {
    let env = TestEnv::new();
    env.user_config(OPENAI);
    let (messages, session, _) =
        run_commands(&env, &[], &["cargo test --no-run -q", "git diff", "ls -la"]);
    for m in &messages {
        assert!(ran(m), "{m}");
    }
    let tools = audited_tools(&env, &session);
    let by: Vec<&str> = tools
        .iter()
        .map(|t| t["by"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        by,
        [
            "rule:builtin:cargo",
            "rule:builtin:git-read",
            "rule:builtin:read-files"
        ]
    );
    // Turned off by the user layer, the mode asks again.
    env.user_config(&format!("{OPENAI}[tools]\nbuiltin_rules = false\n"));
    let (messages, _, _) = run_commands(&env, &[], &["ls -la"]);
    assert!(asked(&messages[0]), "{}", messages[0]);
}

#[test]
fn a_rule_whose_example_does_not_match_is_a_configuration_error_naming_file_line_and_rule() {
    let env = TestEnv::new();
    let path = env.user_config(
        "[model]\nprovider = \"echo\"\n\n[[rules]]\nid = \"tests\"\ncommand = [\"cargo\", \"test\"]\ndecision = \"allow\"\nexamples = [\"cargo build\"]\n",
    );
    let out = env.run(&["rules", "check", "--", "ls"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:4", path.display()))
            && err.contains("rule `tests`")
            && err.contains("example `cargo build` does not match"),
        "{err}"
    );
}

#[test]
fn rules_check_prints_each_simple_command_its_rule_and_the_verdict_as_the_exit_code() {
    let env = TestEnv::new();
    let user = env.user_config("[model]\nprovider = \"echo\"\n");
    let check = |command: &str| {
        let out = env.run(&["rules", "check", "--", command]);
        (out.status.code(), stdout(&out))
    };
    let (code, text) = check("cd src && cargo test | tee out");
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("cd src\n    allow; rule builtin:shell (built-in)"),
        "{text}"
    );
    assert!(
        text.contains("cargo test\n    allow; rule builtin:cargo"),
        "{text}"
    );
    assert!(
        text.contains("tee out\n    ask (no rule: the mode decides); no rule"),
        "{text}"
    );
    let (code, text) = check("cd src && cargo test");
    assert_eq!(code, Some(0), "{text}");
    std::fs::write(
        &user,
        "[model]\nprovider = \"echo\"\n\n[[rules]]\nid = \"no-push\"\ncommand = [\"git\", \"push\"]\ndecision = \"deny\"\nexamples = [\"git push\"]\n",
    )
    .unwrap();
    let (code, text) = check("git status && bash -c 'git push -f'");
    assert_eq!(code, Some(2), "{text}");
    assert!(
        text.contains(&format!(
            "git push -f\n    deny; rule no-push ({}:4)",
            user.display()
        )),
        "{text}"
    );
    let out = env.run(&["rules", "check", "--json", "--", "eval \"$X\""]);
    assert_eq!(out.status.code(), Some(1));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert!(
        value["uncertain"][0]
            .as_str()
            .unwrap_or("")
            .contains("eval"),
        "{value}"
    );
}

const LS_RULES: &str = "[tools]\nbuiltin_rules = false\n\n[[rules]]\nid = \"my-ls\"\ncommand = [\"ls\"]\ndecision = \"allow\"\nexamples = [\"ls -la\"]\n\n[[rules]]\nid = \"no-rm\"\ncommand = [\"rm\"]\ndecision = \"deny\"\nwhy = \"nothing is removed\"\nexamples = [\"rm -rf x\"]\n";

/// `warden plugin replay` names the rule that allowed a call, as it names the one that denied
/// one; `warden audit` names an allowing rule in every mode (also where the mode alone would
/// have let the call run).
#[test]
fn replay_and_audit_name_the_rule_that_allowed_a_call() {
    let env = TestEnv::new();
    env.user_config(&format!("{OPENAI}{LS_RULES}"));
    let (messages, session, err) = run_commands(&env, &[], &["ls", "rm -f nothing"]);
    assert!(ran(&messages[0]), "{}", messages[0]);
    assert!(
        messages[1].contains("denied by rule:no-rm"),
        "{}",
        messages[1]
    );

    let guard = warden_tests::fixtures::tool_guard().display().to_string();
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        &guard,
        "--config",
        "deny=read_file:secret*",
        "--json",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    let then: Vec<Value> = value["points"]
        .as_array()
        .unwrap_or_else(|| panic!("{value} {err}"))
        .iter()
        .filter(|p| p["point"] == "pre-tool-call")
        .map(|p| p["then"].clone())
        .collect();
    assert_eq!(then[0], json!({"decision": "allow", "by": "rule:my-ls"}));
    assert_eq!(then[1]["by"], "rule:no-rm");
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        &guard,
        "--config",
        "deny=read_file:secret*",
    ]);
    assert!(
        stdout(&out).contains("then: allow by rule:my-ls"),
        "{}",
        stdout(&out)
    );

    // Under `full-auto` the mode alone would have let it run: the audit still names the rule.
    let (messages, session, err) = run_commands(&env, &["--mode", "full-auto"], &["ls"]);
    assert!(ran(&messages[0]), "{}", messages[0]);
    let tools = audited_tools(&env, &session);
    assert_eq!(tools[0]["rule"], "my-ls", "{tools:?} {err}");
    let out = env.run(&["audit", &session]);
    assert!(stdout(&out).contains("rule my-ls"), "{}", stdout(&out));
}
