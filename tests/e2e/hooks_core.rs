//! Command hooks (`[[hooks]]`) through the binary, with a scripted model: a `PreToolUse` guard
//! in the shape of Claude Code's documentation denies `rm -rf` with exit 2 and lets `ls` run;
//! an `updatedInput` rewrite reaches the tool; `Stop`, prompt context and the session events;
//! trust, shadow, replay, import, doctor; a crashing hook follows `on_error`; the audit log and
//! the event stream name the hook. What a hook can reach is in `escape_hooks.rs`.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, audited_tools, output_within, stderr, stdout};

pub(crate) const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n[tools]\nmode = \"full-auto\"\n\n";

/// A `PreToolUse` guard as Claude Code's documentation writes one: reads the event on its
/// standard input, exits 2 with the reason on standard error for `rm -rf`.
pub(crate) const GUARD: &str = r#"import json, sys
event = json.load(sys.stdin)
command = event.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print("Blocked: rm -rf is not allowed here", file=sys.stderr)
    sys.exit(2)
sys.exit(0)
"#;

/// `warden ARGS…` against the scripted model `server`, within the hang limit.
pub(crate) fn against(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(args);
    output_within(cmd, HANG_LIMIT)
}

/// Runs the model's script with `config` as the user configuration: warden's standard error,
/// the audited tool calls, and the last request the model received (as JSON text).
pub(crate) fn run(
    env: &TestEnv,
    config: &str,
    calls: &[(&str, &str, Value)],
) -> (String, Vec<Value>, String) {
    env.user_config(&format!("{MODEL}{config}"));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let out = against(env, &server, &["run", "--json", "go"]);
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap().to_owned();
    let tools = audited_tools(env, &session);
    let last = server
        .requests()
        .last()
        .map(|r| r.body.to_string())
        .unwrap_or_default();
    (stderr(&out), tools, last)
}

pub(crate) fn hook(name: &str, event: &str, matcher: &str, command: &str, extra: &str) -> String {
    format!(
        "[[hooks]]\nname = {name:?}\nevent = {event:?}\nmatcher = {matcher:?}\ntype = \"command\"\ncommand = {command:?}\n{extra}\n"
    )
}

fn decision(tool: &Value) -> (String, String) {
    (
        tool["decision"].as_str().unwrap_or_default().to_owned(),
        tool["by"].as_str().unwrap_or_default().to_owned(),
    )
}

#[test]
fn a_bash_guard_hook_blocks_rm_rf_with_exit_two_and_lets_other_commands_run() {
    let env = TestEnv::new();
    env.write("victim/keep.txt", "keep");
    env.write(".claude/hooks/guard.py", GUARD);
    let (_, tools, _) = run(
        &env,
        &hook(
            "guard",
            "PreToolUse",
            "Bash",
            "python3 .claude/hooks/guard.py",
            "",
        ),
        &[
            ("c1", "shell", json!({"command": "rm -rf victim"})),
            ("c2", "shell", json!({"command": "ls victim"})),
        ],
    );
    assert_eq!(
        decision(&tools[0]),
        ("denied".to_owned(), "hook:guard".to_owned())
    );
    assert_eq!(
        tools[0]["reason"].as_str(),
        Some("Blocked: rm -rf is not allowed here")
    );
    assert_eq!(tools[1]["decision"].as_str(), Some("allowed"));
    assert!(env.workspace().join("victim/keep.txt").exists());
    // Both calls were seen by the hook, under its chain name and its digest.
    let seen = &tools[1]["seen_by"][0];
    assert_eq!(seen["plugin"].as_str(), Some("hook:guard"));
    assert_eq!(seen["sha256"].as_str().map(str::len), Some(64));
    // The event stream says which hook decided, as it says which plugin did.
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "shell", json!({"command": "rm -rf victim"}))],
    ));
    server.push(Reply::text("done"));
    let out = against(&env, &server, &["run", "--json-stream", "go"]);
    let decided: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "tool_call_decided")
        .collect();
    assert_eq!(decided.len(), 1, "{}", stdout(&out));
    assert_eq!(decided[0]["allowed"], false);
    assert_eq!(decided[0]["by"], "hook:guard");
}

#[test]
fn an_updated_input_rewrites_the_call_in_claude_codes_keys() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    // Sends every Read of a.txt to b.txt, by its absolute `file_path`.
    env.write(
        "redirect.py",
        r#"import json, os, sys
event = json.load(sys.stdin)
path = event["tool_input"]["file_path"]
if path.endswith("/a.txt"):
    new = os.path.join(os.environ["CLAUDE_PROJECT_DIR"], "b.txt")
    print(json.dumps({"hookSpecificOutput": {"hookEventName": "PreToolUse",
        "permissionDecision": "allow", "updatedInput": {"file_path": new}}}))
"#,
    );
    let (_, tools, last) = run(
        &env,
        &hook("redirect", "PreToolUse", "Read", "python3 redirect.py", ""),
        &[("c1", "read_file", json!({"path": "a.txt"}))],
    );
    assert_eq!(tools[0]["decision"].as_str(), Some("rewritten"));
    assert_eq!(
        tools[0]["rewritten_by"],
        json!(["hook:redirect"]),
        "{}",
        tools[0]
    );
    // The tool read the file the hook named.
    assert!(last.contains("beta") && !last.contains("alpha"), "{last}");
}

/// A `Stop` hook that blocks the first stop keeps the turn going with its reason; told
/// `stop_hook_active` the second time, it lets the turn end. A `UserPromptSubmit` hook's plain
/// output is context the model sees.
#[test]
fn a_stop_block_continues_the_turn_once_and_prompt_context_reaches_the_model() {
    let env = TestEnv::new();
    env.write(
        "stop.py",
        r#"import json, sys
event = json.load(sys.stdin)
if not event["stop_hook_active"]:
    print(json.dumps({"decision": "block", "reason": "Run the tests before you stop."}))
"#,
    );
    env.user_config(&format!(
        "{MODEL}{}{}",
        hook("gate", "Stop", "", "python3 stop.py", ""),
        hook(
            "branch",
            "UserPromptSubmit",
            "",
            "echo 'Current branch: main'",
            ""
        )
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::text("first answer"));
    server.push(Reply::text("second answer"));
    let out = against(&env, &server, &["run", "--json", "go"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(
        requests.len(),
        2,
        "the Stop hook's block asks the model again"
    );
    let first = requests[0].body.to_string();
    assert!(first.contains("Current branch: main"), "{first}");
    let second = requests[1].body.to_string();
    assert!(
        second.contains("Run the tests before you stop."),
        "{second}"
    );
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["answer"].as_str(), Some("second answer"), "{value}");
}

/// A project's hook is project code: `run` refuses it before `warden trust` (nothing reaches
/// the model), runs it after, and a changed script it names asks for trust again.
#[test]
fn a_project_hook_waits_for_trust_and_a_changed_script_asks_again() {
    let env = TestEnv::new();
    env.write(".claude/hooks/guard.py", GUARD);
    env.user_config(MODEL);
    env.untrusted_project_config(&hook(
        "guard",
        "PreToolUse",
        "Bash",
        "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py",
        "",
    ));
    let attempt = |env: &TestEnv| {
        let server = MockServer::start().unwrap();
        server.push(Reply::tool_calls(
            "",
            &[("c1", "shell", json!({"command": "rm -rf nothing-here"}))],
        ));
        server.push(Reply::text("done"));
        let out = against(env, &server, &["run", "--json", "go"]);
        (out, server.requests().len())
    };
    let refused = |env: &TestEnv, why: &str| {
        let (out, requests) = attempt(env);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(err.contains(why) && err.contains("hook:guard"), "{err}");
        assert_eq!(requests, 0);
    };
    refused(&env, "not trusted");
    let trusted = env.trusted();
    assert!(trusted.contains("guard"), "{trusted}");
    let (out, _) = attempt(&env);
    // 4: a call was denied.
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("denied by hook:guard"),
        "{}",
        stderr(&out)
    );
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let tools = audited_tools(&env, value["session"].as_str().unwrap());
    assert_eq!(tools[0]["by"].as_str(), Some("hook:guard"));
    // The script changes: the project needs trusting again.
    env.write(".claude/hooks/guard.py", format!("{GUARD}\n# changed\n"));
    refused(&env, "changed workspace files: .claude/hooks/guard.py");
}

/// `mode = "shadow"`: the hook's deny is recorded, never applied, and `plugin shadow-report`
/// lists it under `hook:NAME`; `plugin replay --hook` re-runs it on the session.
#[test]
fn a_shadow_hook_denies_nothing_and_is_reported_and_replayed() {
    let env = TestEnv::new();
    env.write("guard.py", GUARD);
    let (_, tools, _) = run(
        &env,
        &hook(
            "guard",
            "PreToolUse",
            "Bash",
            "python3 guard.py",
            "mode = \"shadow\"",
        ),
        &[("c1", "shell", json!({"command": "rm -rf nothing-here"}))],
    );
    assert_eq!(tools[0]["decision"].as_str(), Some("allowed"));
    let out = env.run(&["plugin", "shadow-report", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 1, "{report}");
    assert_eq!(calls[0]["plugin"], "hook:guard");
    assert_eq!(calls[0]["decision"], "deny");
    let session = calls[0]["session"].as_str().unwrap().to_owned();
    let out = env.run(&["plugin", "replay", &session, "--hook", "guard", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("rm -rf is not allowed here"), "{text}");
}

/// `warden doctor` and `warden config show` list every hook with its file, grants and trust
/// state; doctor fails on a hook whose program cannot be found.
#[test]
fn doctor_and_config_show_list_hooks_and_doctor_finds_a_missing_program() {
    let env = TestEnv::new();
    env.write("guard.py", GUARD);
    env.user_config(&format!(
        "{MODEL}{}{}",
        hook(
            "guard",
            "PreToolUse",
            "Bash",
            "python3 guard.py",
            "allowed_hosts = [\"api.example.com\"]"
        ),
        hook("gone", "Stop", "", "no-such-program-here --check", "")
    ));
    env.untrusted_project_config(&hook(
        "lint",
        "PostToolUse",
        "Edit|Write",
        "./lint.sh",
        "fs = \"read-write\"",
    ));
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let hooks = value["hooks"].as_array().unwrap();
    let listed: Vec<(&str, &str, bool)> = hooks
        .iter()
        .map(|h| {
            (
                h["name"].as_str().unwrap_or_default(),
                h["origin"].as_str().unwrap_or_default(),
                h["trusted"].as_bool().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            ("guard", "user", true),
            ("gone", "user", true),
            ("lint", "project", false)
        ]
    );
    assert_eq!(hooks[0]["allowed_hosts"], json!(["api.example.com"]));
    assert_eq!(hooks[2]["fs"], "read-write");
    let out = env.run(&["doctor"]);
    let text = stdout(&out);
    assert!(
        text.contains("ok    hook guard (PreToolUse matcher \"Bash\")"),
        "{text}"
    );
    assert!(text.contains("hosts api.example.com"), "{text}");
    assert!(
        text.contains("`no-such-program-here` is not found on PATH"),
        "{text}"
    );
    assert!(
        text.contains("hook lint (PostToolUse") && text.contains("waiting for warden trust"),
        "{text}"
    );
    assert_ne!(out.status.code(), Some(0));
}

/// `warden hooks import` reads Claude Code's `settings.json` and Codex's `config.toml`, writes
/// `[[hooks]]` entries (into the project config for a file inside the workspace), says what
/// it could not carry over, and does not write an entry twice; the hooks then run.
#[test]
fn hooks_import_writes_entries_once_and_says_what_it_left_out() {
    let env = TestEnv::new();
    env.write(".claude/hooks/guard.py", GUARD);
    let settings = env.write(
        ".claude/settings.json",
        r#"{"permissions": {"allow": []}, "hooks": {
  "PreToolUse": [{"matcher": "Bash", "hooks": [
    {"type": "command", "command": "python3 \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/guard.py", "timeout": 30}]}],
  "PostToolUse": [{"matcher": "Edit|Write", "hooks": [{"type": "prompt", "prompt": "ok?"}]}],
  "PermissionRequest": [{"hooks": [{"type": "command", "command": "true"}]}]}}"#,
    );
    let settings = settings.to_string_lossy().into_owned();
    let out = env.run(&["hooks", "import", &settings]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("added 1 hook"), "{text}");
    assert!(text.contains("not imported: PermissionRequest"), "{text}");
    assert!(text.contains("a `prompt` hook"), "{text}");
    let config = std::fs::read_to_string(env.workspace().join(".warden/config.toml")).unwrap();
    assert!(
        config.contains("name = \"guard\"") && config.contains("timeout = 30"),
        "{config}"
    );
    let again = stdout(&env.run(&["hooks", "import", &settings]));
    assert!(again.contains("added 0 hooks (1 already there)"), "{again}");
    // Codex's config.toml, into the user config.
    let codex = env.outside().join("config.toml");
    std::fs::write(
        &codex,
        "[[hooks.Stop]]\n[[hooks.Stop.hooks]]\ntype = \"command\"\ncommand = \"./check.sh\"\n",
    )
    .unwrap();
    let out = env.run(&["hooks", "import", &codex.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let out = env.run(&["config", "show", "--json"]);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let names: Vec<(&str, &str)> = value["hooks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| (h["name"].as_str().unwrap(), h["origin"].as_str().unwrap()))
        .collect();
    assert_eq!(names, [("check", "user"), ("guard", "project")]);
    // Not a hooks file: an error naming it, nothing written.
    let bad = env.write("notes.json", "[1, 2]");
    let out = env.run(&["hooks", "import", &bad.to_string_lossy()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("notes.json"), "{}", stderr(&out));
}

/// A hook that crashes (a Python exception, exit 1): under `on_error = "allow"` the call runs
/// with one alert naming the hook; under `"deny"` the call is denied by policy.
#[test]
fn a_crashing_hook_follows_its_on_error() {
    for (on_error, decision) in [("allow", "allowed"), ("deny", "denied")] {
        let env = TestEnv::new();
        env.write("a.txt", "alpha\n");
        env.write("crash.py", "raise RuntimeError('broken hook')\n");
        let (err, tools, _) = run(
            &env,
            &hook(
                "crash",
                "PreToolUse",
                "Read",
                "python3 crash.py",
                &format!("on_error = {on_error:?}"),
            ),
            &[("c1", "read_file", json!({"path": "a.txt"}))],
        );
        assert_eq!(tools[0]["decision"].as_str(), Some(decision), "{err}");
        assert!(err.contains("exited with status 1"), "{err}");
        assert!(err.contains("broken hook"), "{err}");
    }
}

/// The events around the turn: `SessionStart` context reaches the model on a session's first
/// prompt only; `Notification` runs when the person would be asked; `SubagentStop` runs at a
/// child session's end, in the parent's session; `PreCompact` at `warden compact`;
/// `SessionEnd` when the run ends. Each records its input in the workspace.
#[test]
fn session_and_notification_and_subagent_and_compaction_events_run_where_they_belong() {
    let env = TestEnv::new();
    let record = |event: &str| {
        hook(
            &format!("rec-{}", event.to_lowercase()),
            event,
            "",
            &format!("cat > .events-{event}-$(date +%s%N).json"),
            "fs = \"read-write\"",
        )
    };
    let mut config = hook(
        "welcome",
        "SessionStart",
        "startup",
        "echo 'Open issues: 3'",
        "",
    );
    for event in ["Notification", "SubagentStop", "PreCompact", "SessionEnd"] {
        config.push_str(&record(event));
    }
    // Writes ask in the default mode: `run` without --yes denies the write, after the
    // person would have been asked.
    env.user_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n{config}"
    ));
    let server = MockServer::start().unwrap();
    let go = |args: &[&str]| {
        let mut cmd = env.command();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .args(args);
        output_within(cmd, HANG_LIMIT)
    };
    server.push(Reply::tool_calls(
        "",
        &[("c1", "write_file", json!({"path": "x.txt", "content": "x"}))],
    ));
    server.push(Reply::text("first"));
    let out = go(&["run", "--new-session", "P", "--json", "go"]);
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", stderr(&out));
    let first = server.requests()[0].body.to_string();
    assert!(first.contains("Open issues: 3"), "{first}");
    // A second turn of the same session is no session start.
    server.push(Reply::text("again"));
    let out = go(&["run", "--session", "P", "--json", "more"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let again = server.requests().last().unwrap().body.to_string();
    assert_eq!(again.matches("Open issues: 3").count(), 1, "{again}");
    // A child session of P.
    server.push(Reply::text("child done"));
    let out = go(&["run", "--parent", "P", "--json", "a part"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    // Compaction of P.
    server.push(Reply::text("the summary"));
    let out = go(&["compact", "P"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let mut seen: Vec<(String, Value)> = std::fs::read_dir(env.workspace())
        .unwrap()
        .filter_map(|e| {
            let path = e.ok()?.path();
            let name = path.file_name()?.to_string_lossy().into_owned();
            let event = name.strip_prefix(".events-")?.split('-').next()?.to_owned();
            let value = serde_json::from_str(&std::fs::read_to_string(&path).ok()?).ok()?;
            Some((event, value))
        })
        .collect();
    seen.sort_by(|a, b| a.0.cmp(&b.0));
    let events: Vec<&str> = seen.iter().map(|(e, _)| e.as_str()).collect();
    // SessionEnd: once per `run` (three); PreCompact: once; Notification: the write's question;
    // SubagentStop: the child's end.
    assert_eq!(
        events,
        [
            "Notification",
            "PreCompact",
            "SessionEnd",
            "SessionEnd",
            "SessionEnd",
            "SubagentStop"
        ],
        "{seen:?}"
    );
    let child = &seen[5].1;
    assert_eq!(child["hook_event_name"], "SubagentStop");
    assert_eq!(child["last_assistant_message"], "child done");
    assert_ne!(child["session_id"], child["agent_id"]);
    assert_eq!(seen[0].1["notification_type"], "permission_prompt");
    assert_eq!(seen[1].1["trigger"], "auto");
    assert_eq!(seen[2].1["reason"], "other");
}
