//! Command hooks in the shapes of Claude Code's documentation (`tests/fixtures/hooks/`), through
//! the binary with a scripted model: a `Bash` guard in plain shell and a JSON
//! `permissionDecision: "deny"` block with their reasons; an `ask` is an approval question
//! (`warden run` denies it unless `--yes`); a `UserPromptSubmit` hook's `additionalContext` is
//! committed as a system item the model sees, and its `decision: "block"` cancels the turn
//! before the prompt reaches the model.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, audited_tools, output_within, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// The fixture hooks, copied into each test's workspace.
const FIXTURES: [(&str, &str); 5] = [
    (
        "bash_guard.sh",
        include_str!("../fixtures/hooks/bash_guard.sh"),
    ),
    (
        "json_deny.py",
        include_str!("../fixtures/hooks/json_deny.py"),
    ),
    ("ask.py", include_str!("../fixtures/hooks/ask.py")),
    (
        "prompt_context.py",
        include_str!("../fixtures/hooks/prompt_context.py"),
    ),
    (
        "prompt_block.py",
        include_str!("../fixtures/hooks/prompt_block.py"),
    ),
];

fn hook(name: &str, event: &str, matcher: &str, command: &str) -> String {
    format!(
        "[[hooks]]\nname = {name:?}\nevent = {event:?}\nmatcher = {matcher:?}\ntype = \"command\"\ncommand = {command:?}\n\n"
    )
}

fn env_with(config: &str) -> TestEnv {
    let env = TestEnv::new();
    for (name, text) in FIXTURES {
        env.write(name, text);
    }
    env.user_config(&format!("{MODEL}{config}"));
    env
}

/// What one `warden run --json-stream` showed: its exit code, its events, its standard output
/// and the request bodies the model received.
struct Run {
    code: Option<i32>,
    events: Vec<Value>,
    stdout: String,
    requests: Vec<String>,
}

/// Runs `prompt` with the model calling `calls` (none: it answers at once).
fn run(env: &TestEnv, prompt: &str, calls: &[(&str, &str, Value)], args: &[&str]) -> Run {
    let server = MockServer::start().unwrap();
    if !calls.is_empty() {
        server.push(Reply::tool_calls("", calls));
    }
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args)
        .args(["--json-stream", prompt]);
    let out = output_within(cmd, HANG_LIMIT);
    let text = stdout(&out);
    Run {
        code: out.status.code(),
        events: text
            .lines()
            .filter_map(|l| serde_json::from_str(l).ok())
            .collect(),
        stdout: text,
        requests: server
            .requests()
            .iter()
            .map(|r| r.body.to_string())
            .collect(),
    }
}

impl Run {
    /// The `tool_call_decided` event of call `id`.
    fn decided(&self, id: &str) -> &Value {
        self.events
            .iter()
            .find(|e| e["type"] == "tool_call_decided" && e["call"]["id"] == id)
            .unwrap_or_else(|| panic!("no decision for {id}: {}", self.stdout))
    }

    fn session(&self) -> String {
        self.events
            .iter()
            .find(|e| e["type"] == "turn_started")
            .and_then(|e| e["session"].as_str())
            .unwrap_or_else(|| panic!("no session: {}", self.stdout))
            .to_owned()
    }
}

#[test]
fn a_plain_shell_guard_and_a_json_deny_block_with_their_reasons() {
    let env = env_with(&format!(
        "{}{}",
        hook("guard", "PreToolUse", "Bash", "sh bash_guard.sh"),
        hook("nopush", "PreToolUse", "Bash", "python3 json_deny.py"),
    ));
    env.write("victim/keep.txt", "keep");
    let run = run(
        &env,
        "go",
        &[
            ("c1", "shell", json!({"command": "rm -rf victim"})),
            (
                "c2",
                "shell",
                json!({"command": "git push --force origin main"}),
            ),
            ("c3", "shell", json!({"command": "echo fine"})),
        ],
        &[],
    );
    assert_eq!(run.code, Some(0), "{}", run.stdout);
    let guard = run.decided("c1");
    assert_eq!(guard["allowed"], false);
    assert_eq!(guard["by"], "hook:guard");
    assert_eq!(guard["reason"], "Blocked: rm -rf is not allowed here");
    let push = run.decided("c2");
    assert_eq!(push["allowed"], false);
    assert_eq!(push["by"], "hook:nopush");
    assert_eq!(
        push["reason"],
        "Force pushes are not allowed from the agent"
    );
    assert_eq!(run.decided("c3")["allowed"], true, "{}", run.stdout);
    assert!(env.workspace().join("victim/keep.txt").exists());
    // The model is told which hook denied the call and why.
    let last = run.requests.last().cloned().unwrap_or_default();
    assert!(
        last.contains("denied by hook:nopush: Force pushes are not allowed from the agent"),
        "{last}"
    );
    // The audit log names the hook that decided.
    let tools = audited_tools(&env, &run.session());
    assert_eq!(
        tools[1]["decision"].as_str(),
        Some("denied"),
        "{}",
        tools[1]
    );
    assert_eq!(tools[1]["by"].as_str(), Some("hook:nopush"), "{}", tools[1]);
}

#[test]
fn an_ask_from_a_hook_is_denied_by_run_and_allowed_with_yes() {
    let env = env_with(&hook("askout", "PreToolUse", "Write", "python3 ask.py"));
    env.write("src/.keep", "");
    let calls = [
        (
            "c1",
            "write_file",
            json!({"path": "notes.txt", "content": "x"}),
        ),
        (
            "c2",
            "write_file",
            json!({"path": "src/a.txt", "content": "y"}),
        ),
    ];
    let refused = run(&env, "go", &calls, &[]);
    let asked = refused.decided("c1");
    assert_eq!(asked["allowed"], false, "{}", refused.stdout);
    assert_eq!(asked["by"], "approval");
    let reason = asked["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("hook:askout asks: Writes outside src/ need a person's yes"),
        "{reason}"
    );
    assert!(!env.workspace().join("notes.txt").exists());
    assert_eq!(refused.decided("c2")["allowed"], true);
    assert!(env.workspace().join("src/a.txt").exists());

    let yes = run(&env, "go", &calls, &["--yes"]);
    assert_eq!(yes.decided("c1")["allowed"], true, "{}", yes.stdout);
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("notes.txt")).ok(),
        Some("x".to_owned())
    );
}

#[test]
fn prompt_context_as_json_is_committed_and_a_prompt_block_cancels_the_turn() {
    let env = env_with(&format!(
        "{}{}",
        hook(
            "freeze",
            "UserPromptSubmit",
            "",
            "python3 prompt_context.py"
        ),
        hook("nopass", "UserPromptSubmit", "", "python3 prompt_block.py"),
    ));
    let answered = run(&env, "deploy it", &[], &[]);
    assert_eq!(answered.code, Some(0), "{}", answered.stdout);
    let item = answered
        .events
        .iter()
        .find(|e| e["type"] == "item_committed" && e["source"] == "hook:freeze")
        .unwrap_or_else(|| panic!("no hook item: {}", answered.stdout));
    assert_eq!(item["item"]["role"], "system");
    assert_eq!(
        item["item"]["text"],
        "The release branch is frozen until Friday."
    );
    assert_eq!(answered.requests.len(), 1);
    assert!(
        answered.requests[0].contains("The release branch is frozen until Friday."),
        "{}",
        answered.requests[0]
    );

    let blocked = run(&env, "my password is hunter2", &[], &[]);
    let ended = blocked
        .events
        .iter()
        .find(|e| e["type"] == "turn_ended")
        .unwrap_or_else(|| panic!("no end: {}", blocked.stdout));
    assert_eq!(ended["outcome"], "cancelled", "{}", blocked.stdout);
    assert_eq!(
        ended["reason"],
        "The prompt seems to contain a password; remove it."
    );
    assert_ne!(blocked.code, Some(0));
    // Neither the model nor the transcript got the prompt.
    assert!(blocked.requests.is_empty(), "{:?}", blocked.requests);
    assert!(!blocked.stdout.contains("hunter2"), "{}", blocked.stdout);
}
