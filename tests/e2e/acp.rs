//! `warden acp` driven by the official ACP client SDKs — npm `@agentclientprotocol/sdk`
//! (`tests/acp-npm/client.mjs`) and PyPI `agent-client-protocol` (`tests/acp-py/client.py`) —
//! through the binary, against a scripted model: a whole session (a prompt with a resource
//! link, a streamed answer, an edit asked and allowed with its diff, a write asked and
//! rejected, a plan, a mode change, a cancel in the middle of a command), then `session/load`
//! of that session in a new process replaying it.

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::sandbox_missing;
use crate::support::{HANG_LIMIT, SYSTEM_MANAGED_VAR, TestEnv, output_within, stderr, warden_bin};

/// The user configuration of these tests: the scripted model, streamed, with a window and a
/// price so that usage and cost are reported.
pub(crate) const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = true\ncontext_window = 100000\nprice = { input = 1.0, output = 2.0 }\n\n";

/// The SDK a scenario is driven with.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Sdk {
    /// npm `@agentclientprotocol/sdk`.
    Ts,
    /// PyPI `agent-client-protocol`.
    Py,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map_or_else(PathBuf::new, Path::to_owned)
}

/// A missing SDK: a SKIP line outside CI, a failure under CI.
fn missing(test: &str, what: &str) -> bool {
    let line = format!("SKIP {test}: {what} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    eprintln!("{line}");
    true
}

/// The driver's command for `sdk`, or `None` after a SKIP line.
fn driver(test: &str, sdk: Sdk) -> Option<Command> {
    match sdk {
        Sdk::Ts => {
            let dir = repo().join("tests/acp-npm");
            if !dir.join("node_modules/@agentclientprotocol/sdk").is_dir() {
                missing(test, "npm @agentclientprotocol/sdk (tests/acp-npm)");
                return None;
            }
            let mut cmd = Command::new("node");
            cmd.arg(dir.join("client.mjs"));
            Some(cmd)
        }
        Sdk::Py => {
            let ok = Command::new("python3")
                .args(["-c", "import acp"])
                .output()
                .is_ok_and(|o| o.status.success());
            if !ok {
                missing(test, "python3 with PyPI `agent-client-protocol`");
                return None;
            }
            let mut cmd = Command::new("python3");
            cmd.arg(repo().join("tests/acp-py/client.py"));
            Some(cmd)
        }
    }
}

/// The environment `warden acp` runs in: the test's, and the scripted model's.
pub(crate) fn agent_env(env: &TestEnv, server: Option<&MockServer>) -> Value {
    let mut vars: serde_json::Map<String, Value> = env
        .env_vars()
        .into_iter()
        .map(|(k, v)| (k, Value::String(v)))
        .collect();
    vars.insert(
        SYSTEM_MANAGED_VAR.into(),
        json!(env.system_managed_path().to_string_lossy()),
    );
    if let Some(server) = server {
        vars.insert("OPENAI_API_KEY".into(), json!("sk-test"));
        vars.insert("OPENAI_BASE_URL".into(), json!(server.openai_url()));
    }
    Value::Object(vars)
}

/// Drive `warden acp ARGS…` with `sdk` through `steps`; the driver's record (`results`,
/// `updates`, `permission_requests`, `stderr`, `exit_code`), or `None` when the SDK is missing.
pub(crate) fn drive(
    test: &str,
    sdk: Sdk,
    env: &TestEnv,
    server: Option<&MockServer>,
    args: &[&str],
    steps: Value,
) -> Option<Value> {
    drive_with(test, sdk, env, server, args, &[], steps)
}

/// [`drive`] with `extra` variables in the agent's environment.
pub(crate) fn drive_with(
    test: &str,
    sdk: Sdk,
    env: &TestEnv,
    server: Option<&MockServer>,
    args: &[&str],
    extra: &[(&str, &str)],
    steps: Value,
) -> Option<Value> {
    let mut cmd = driver(test, sdk)?;
    let mut command = vec![json!(warden_bin().to_string_lossy()), json!("acp")];
    command.extend(args.iter().map(|a| json!(a)));
    let mut vars = agent_env(env, server);
    for (name, value) in extra {
        vars[*name] = json!(value);
    }
    let scenario = json!({
        "command": command,
        "env": vars,
        "cwd": env.workspace().to_string_lossy(),
        "timeout_ms": 90_000,
        "steps": steps,
    });
    let file = env.root().join(format!("scenario-{}.json", fastrand_id()));
    std::fs::write(&file, scenario.to_string()).unwrap();
    cmd.arg(&file);
    let out = output_within(cmd, HANG_LIMIT);
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let record: Value = serde_json::from_str(text.trim()).unwrap_or_else(|err| {
        panic!(
            "the driver printed no record ({err}): {text}\nstderr: {}",
            stderr(&out)
        )
    });
    // Every update on the wire was one the SDK parsed and accepted.
    let on_wire = record["updates"].as_array().map_or(0, Vec::len);
    assert_eq!(
        record["sdk_updates"].as_u64(),
        Some(on_wire as u64),
        "the {sdk:?} SDK rejected updates warden sent: {record}"
    );
    Some(record)
}

fn fastrand_id() -> u64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The result of step `n` (its `response`, or it fails the test with the driver's record).
pub(crate) fn response(record: &Value, n: usize) -> &Value {
    let result = &record["results"][n];
    assert_eq!(
        result["ok"], true,
        "step {n}: {result}\nagent: {}",
        record["stderr"]
    );
    &result["response"]
}

/// The updates of kind `kind`, in order.
pub(crate) fn updates<'a>(record: &'a Value, kind: &str) -> Vec<&'a Value> {
    record["updates"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|u| &u["update"])
                .filter(|u| u["sessionUpdate"] == kind)
                .collect()
        })
        .unwrap_or_default()
}

/// The text of every `agent_message_chunk` (or `kind`), joined.
pub(crate) fn text_of(record: &Value, kind: &str) -> String {
    updates(record, kind)
        .iter()
        .filter_map(|u| u["content"]["text"].as_str())
        .collect()
}

/// The updates of tool call `id`, in order.
fn call_updates<'a>(record: &'a Value, id: &str) -> Vec<&'a Value> {
    record["updates"]
        .as_array()
        .map(|all| {
            all.iter()
                .map(|u| &u["update"])
                .filter(|u| u["toolCallId"] == id)
                .collect()
        })
        .unwrap_or_default()
}

fn a_whole_session(sdk: Sdk, test: &str) {
    let env = TestEnv::new();
    env.user_config(MODEL);
    env.write("a.txt", "hello\n");
    let sandboxed = sandbox_missing().is_none();
    let server = MockServer::start().unwrap();
    // 1: the linked file is attached, the answer streams.
    server.push(Reply::text("It says hello to everyone."));
    // 2: an edit, asked and allowed.
    server.push(Reply::tool_calls(
        "",
        &[(
            "e1",
            "edit_file",
            json!({"path": "a.txt", "old_string": "hello", "new_string": "hello world"}),
        )],
    ));
    server.push(Reply::text("edited"));
    // 3: a write, asked and rejected.
    server.push(Reply::tool_calls(
        "",
        &[("w1", "write_file", json!({"path": "b.txt", "content": "x"}))],
    ));
    server.push(Reply::text("not written"));
    // 4: a plan.
    server.push(Reply::tool_calls(
        "",
        &[(
            "p1",
            "update_plan",
            json!({"plan": [{"step": "read a.txt", "status": "completed"}, {"step": "fix it", "status": "in_progress"}]}),
        )],
    ));
    server.push(Reply::text("planned"));
    // 5: a command cancelled while it runs.
    if sandboxed {
        server.push(Reply::tool_calls(
            "",
            &[(
                "s1",
                "shell",
                json!({"command": "sleep 30; echo acp-never-finished"}),
            )],
        ));
        server.push(Reply::text("acp-unreachable-answer"));
    }
    let root = env.workspace();
    let link = format!("file://{}/a.txt", root.display());
    let mut steps = vec![
        json!({"op": "initialize"}),
        json!({"op": "new_session", "cwd": root}),
        json!({"op": "prompt", "blocks": [
            {"type": "text", "text": "summarise"},
            {"type": "resource_link", "uri": link, "name": "a.txt"}
        ]}),
        json!({"op": "prompt", "blocks": [{"type": "text", "text": "fix it"}], "permissions": ["allow_once"]}),
        json!({"op": "prompt", "blocks": [{"type": "text", "text": "write b"}], "permissions": ["reject_once"]}),
        json!({"op": "prompt", "blocks": [{"type": "text", "text": "plan it"}]}),
        json!({"op": "set_mode", "modeId": "full-auto"}),
    ];
    if sandboxed {
        steps.push(json!({"op": "prompt", "blocks": [{"type": "text", "text": "run it"}], "cancel_on": "tool_call_in_progress"}));
    } else {
        eprintln!("SKIP {test} (cancel in a command): the sandbox cannot be built here");
    }
    steps.push(json!({"op": "prompt", "blocks": [{"type": "text", "text": "/status"}]}));
    steps.push(json!({"op": "prompt", "blocks": [{"type": "text", "text": "/cost"}]}));
    // Loaded again while this process has it open: replayed from the same thread.
    steps.push(json!({"op": "load_session", "sessionId": "$last", "cwd": root}));
    let Some(record) = drive(test, sdk, &env, Some(&server), &[], Value::Array(steps)) else {
        return;
    };
    let session = response(&record, 1)["sessionId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(response(&record, 1)["modes"]["currentModeId"], "ask");
    // 1: the file was attached through the resolver, and the answer streamed in pieces.
    assert_eq!(response(&record, 2)["stopReason"], "end_turn");
    let attached = updates(&record, "tool_call");
    assert!(
        attached
            .iter()
            .any(|u| u["title"] == "@a.txt" && u["status"] == "completed"),
        "{attached:?}"
    );
    let first_request = server.requests()[0].body.to_string();
    assert!(first_request.contains("hello"), "{first_request}");
    assert!(text_of(&record, "agent_message_chunk").contains("It says hello to everyone."));
    assert!(
        updates(&record, "agent_message_chunk").len() > 2,
        "the answer streams in several chunks"
    );
    assert!(!updates(&record, "usage_update").is_empty());
    assert!(
        updates(&record, "usage_update")
            .iter()
            .all(|u| u["size"] == 100_000 && u["cost"]["currency"] == "USD")
    );
    // 2: the edit was asked with its diff, allowed once, ran, and its diff block is shown.
    let asked = &record["permission_requests"][0];
    assert_eq!(asked["toolCall"]["toolCallId"], "e1", "{asked}");
    let diff = asked["toolCall"]["content"]
        .as_array()
        .and_then(|c| c.iter().find(|b| b["type"] == "diff"))
        .cloned()
        .unwrap_or_default();
    assert_eq!(diff["oldText"], "hello\n", "{asked}");
    assert_eq!(diff["newText"], "hello world\n");
    assert_eq!(
        diff["path"].as_str(),
        Some(root.join("a.txt").to_string_lossy().as_ref())
    );
    let kinds: Vec<String> = asked["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["kind"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(kinds, ["allow_once", "allow_always", "reject_once"]);
    assert_eq!(
        std::fs::read_to_string(root.join("a.txt")).unwrap(),
        "hello world\n"
    );
    let edit = call_updates(&record, "e1");
    assert_eq!(edit[0]["sessionUpdate"], "tool_call");
    assert_eq!(edit[0]["kind"], "edit");
    assert!(edit.iter().any(|u| u["status"] == "completed"), "{edit:?}");
    let shown = edit
        .iter()
        .filter_map(|u| u["content"].as_array())
        .flatten()
        .find(|b| b["type"] == "diff")
        .cloned()
        .unwrap_or_default();
    assert_eq!(shown["oldText"], "hello\n", "{edit:?}");
    assert_eq!(shown["newText"], "hello world\n");
    // 3: the write was rejected: not run, and the editor is told who denied it.
    assert_eq!(
        record["permission_requests"][1]["toolCall"]["toolCallId"],
        "w1"
    );
    assert!(!root.join("b.txt").exists());
    let write = call_updates(&record, "w1");
    let failed = write
        .iter()
        .find(|u| u["status"] == "failed")
        .unwrap_or_else(|| panic!("{write:?}"));
    let said = failed["content"][0]["content"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(said.starts_with("denied by approval"), "{said}");
    // 4: the plan.
    // Once live, once more when the session is loaded again at the end.
    let plans = updates(&record, "plan");
    assert_eq!(plans.len(), 2, "{plans:?}");
    assert_eq!(plans[0], plans[1]);
    assert_eq!(plans[0]["entries"][0]["status"], "completed");
    assert_eq!(plans[0]["entries"][1]["content"], "fix it");
    assert_eq!(plans[0]["entries"][1]["status"], "in_progress");
    // The mode change held.
    assert!(record["results"][6]["ok"].as_bool().unwrap_or(false));
    // 5: cancelled in the middle of the command: the prompt answers `cancelled`, the model is
    // not asked again, and nothing of the command's output reached history.
    if sandboxed {
        assert_eq!(response(&record, 7)["stopReason"], "cancelled");
        assert_eq!(
            server.requests().len(),
            8,
            "the model was asked again after the cancel"
        );
        assert!(!text_of(&record, "agent_message_chunk").contains("acp-unreachable-answer"));
    }
    let reloaded = record["results"].as_array().and_then(|r| r.last()).cloned();
    assert_eq!(
        reloaded.as_ref().map(|r| r["ok"].clone()),
        Some(json!(true)),
        "{reloaded:?}"
    );
    assert!(text_of(&record, "user_message_chunk").contains("summarise"));
    // The editor's commands answer as messages, and never reach the model.
    let said = text_of(&record, "agent_message_chunk");
    assert!(said.contains(&format!("session    {session}")), "{said}");
    assert!(said.contains("cost         $"), "{said}");
    assert!(
        !server
            .requests()
            .iter()
            .any(|r| r.body.to_string().contains("/status"))
    );
    // The session, loaded in a new process, is replayed: every prompt, answer and call.
    let Some(loaded) = drive(
        test,
        sdk,
        &env,
        Some(&server),
        &[],
        json!([
            {"op": "initialize"},
            {"op": "load_session", "sessionId": session, "cwd": root},
        ]),
    ) else {
        return;
    };
    assert!(
        loaded["results"][1]["ok"].as_bool().unwrap_or(false),
        "{loaded}"
    );
    let prompts = text_of(&loaded, "user_message_chunk");
    for typed in ["summarise", "fix it", "write b", "plan it"] {
        assert!(prompts.contains(typed), "{prompts}");
    }
    let answers = text_of(&loaded, "agent_message_chunk");
    for said in [
        "It says hello to everyone.",
        "edited",
        "not written",
        "planned",
    ] {
        assert!(answers.contains(said), "{answers}");
    }
    let calls: Vec<&str> = updates(&loaded, "tool_call")
        .iter()
        .filter_map(|u| u["toolCallId"].as_str())
        .collect();
    for id in ["e1", "w1", "p1"] {
        assert!(calls.contains(&id), "{calls:?}");
    }
    assert_eq!(updates(&loaded, "plan").len(), 1);
    // More than the four prompts and four answers: the calls and their results too.
    let replayed = loaded["updates"]
        .as_array()
        .map(|u| u.len())
        .unwrap_or_default();
    assert!(replayed > 8, "{replayed}");
}

#[test]
fn the_typescript_sdk_drives_a_whole_session_and_loads_it_again() {
    a_whole_session(
        Sdk::Ts,
        "the_typescript_sdk_drives_a_whole_session_and_loads_it_again",
    );
}

#[test]
fn the_python_sdk_drives_a_whole_session_and_loads_it_again() {
    a_whole_session(
        Sdk::Py,
        "the_python_sdk_drives_a_whole_session_and_loads_it_again",
    );
}
