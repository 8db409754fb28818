//! `update_plan`: the model's plan, through the real binary — committed as an ordinary call
//! and result, told as a `plan_updated` event, shown by `run -v`, and, when its steps stay
//! open for `plan.remind_after_turns` prompts, re-sent as a committed `<system-reminder>`
//! that a resumed session sends again exactly once.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::OPENAI;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn plan(steps: &[(&str, &str)]) -> Value {
    json!({
        "explanation": "small fix",
        "plan": steps
            .iter()
            .map(|(step, status)| json!({"step": step, "status": status}))
            .collect::<Vec<_>>(),
    })
}

fn run(env: &TestEnv, server: &MockServer, args: &[&str], prompt: &str) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args([env.session_flag("P"), "P"])
        .args(args)
        .arg(prompt);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    out
}

fn first_plan() -> Value {
    plan(&[
        ("read the failing test", "done"),
        ("fix the parser", "in_progress"),
        ("run the tests", "pending"),
    ])
}

#[test]
fn a_plan_update_is_an_ordinary_call_streamed_as_plan_updated() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("p1", "update_plan", first_plan())],
    ));
    server.push(Reply::text("working on it"));
    // `ask` mode, no --yes: a plan changes nothing on disk, so nobody is asked.
    let out = run(&env, &server, &["--json-stream"], "fix it");
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    let validator = crate::events::schema();
    for event in &events {
        let errors: Vec<String> = validator
            .iter_errors(event)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{event}: {errors:?}");
    }
    let decided: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "tool_call_decided")
        .collect();
    assert_eq!(decided.len(), 1);
    assert_eq!(decided[0]["allowed"], true);
    assert_eq!(decided[0]["effect"], "read");
    let updated: Vec<&Value> = events
        .iter()
        .filter(|e| e["type"] == "plan_updated")
        .collect();
    assert_eq!(updated.len(), 1, "{events:?}");
    assert_eq!(updated[0]["call_id"], "p1");
    assert_eq!(updated[0]["explanation"], "small fix");
    assert_eq!(updated[0]["steps"][1]["step"], "fix the parser");
    assert_eq!(updated[0]["steps"][1]["status"], "in_progress");
    // Committed as the call and its result.
    let history: Value =
        serde_json::from_str(&stdout(&env.run(&["session", "export", "P"]))).unwrap();
    let result = history
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == "tool" && i["call_id"] == "p1")
        .expect("the plan's result is committed");
    assert!(result.get("is_error").is_none(), "{result}");
    // Audited like any call.
    let audited = crate::support::audited_tools(&env, "P");
    assert!(
        audited
            .iter()
            .any(|a| a.to_string().contains("update_plan")),
        "{audited:?}"
    );
}

#[test]
fn run_verbose_shows_the_plan_as_a_checklist() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("p1", "update_plan", first_plan())],
    ));
    server.push(Reply::text("working on it"));
    let out = run(&env, &server, &["-v"], "fix it");
    let err = stderr(&out);
    assert!(err.contains("[x] read the failing test"), "{err}");
    assert!(err.contains("[~] fix the parser"), "{err}");
    assert!(err.contains("[ ] run the tests"), "{err}");
}

#[test]
fn a_bad_plan_is_an_error_result_naming_the_fault() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    let two_running = plan(&[("a", "in_progress"), ("b", "in_progress")]);
    server.push(Reply::tool_calls("", &[("p1", "update_plan", two_running)]));
    server.push(Reply::text("ok"));
    run(&env, &server, &[], "go");
    let reqs = server.requests();
    let messages = reqs[1].body["messages"].as_array().unwrap();
    let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
    let text = tool["content"].as_str().unwrap_or_default();
    assert!(text.contains("in_progress"), "{text}");
    assert!(text.contains("at most one"), "{text}");
}

/// A step broken by a line separator, NEL, VT or FF passed the one-line check, and could paint
/// a forged line under the checklist: each is an error result, and no plan is shown.
#[test]
fn a_step_broken_by_any_line_break_is_an_error_result() {
    for brk in ['\u{2028}', '\u{2029}', '\u{85}', '\u{b}', '\u{c}'] {
        let env = TestEnv::new();
        env.project_config(OPENAI);
        let server = MockServer::start().unwrap();
        let step = format!("read the code{brk}[x] deploy to production");
        server.push(Reply::tool_calls(
            "",
            &[("p1", "update_plan", plan(&[(&step, "pending")]))],
        ));
        server.push(Reply::text("ok"));
        let out = run(&env, &server, &["-v"], "go");
        let reqs = server.requests();
        let messages = reqs[1].body["messages"].as_array().unwrap();
        let tool = messages.iter().find(|m| m["role"] == "tool").unwrap();
        let text = tool["content"].as_str().unwrap_or_default();
        assert!(text.contains("step 1"), "{brk:?}: {text}");
        // No checklist is drawn from it, and no line of the screen is the forged step.
        let err = stderr(&out);
        assert!(
            !err.lines()
                .any(|l| l.trim_start().starts_with("[x] deploy")),
            "{brk:?}: {err}"
        );
        assert!(!err.contains(brk), "{brk:?} printed raw: {err}");
    }
}

/// How many messages of a request's body are (or contain) the plan reminder.
fn reminders(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| {
            m["content"]
                .as_str()
                .is_some_and(|t| t.contains("<system-reminder>\nThe plan has open steps"))
        })
        .count()
}

#[test]
fn open_steps_are_reminded_after_n_prompts_and_a_resume_sends_it_once() {
    let env = TestEnv::new();
    env.project_config(&format!("{OPENAI}\n[plan]\nremind_after_turns = 2\n"));
    let server = MockServer::start().unwrap();
    // Turn 1 sets the plan.
    server.push(Reply::tool_calls(
        "",
        &[("p1", "update_plan", first_plan())],
    ));
    server.push(Reply::text("started"));
    run(&env, &server, &[], "one");
    // Turn 2: one prompt without an update; no reminder yet.
    server.push(Reply::text("two"));
    run(&env, &server, &[], "two");
    assert_eq!(reminders(&server.requests()[2].body), 0);
    // Turn 3: the second prompt in a row without an update; the reminder is committed
    // before the request (each turn is a new process, so the rule reads history alone).
    server.push(Reply::text("three"));
    run(&env, &server, &[], "three");
    let body = &server.requests()[3].body;
    assert_eq!(reminders(body), 1, "{body}");
    let reminder = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| {
            m["content"]
                .as_str()
                .is_some_and(|t| t.contains("open steps"))
        })
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        reminder.contains("[in_progress] fix the parser"),
        "{reminder}"
    );
    assert!(reminder.contains("[pending] run the tests"), "{reminder}");
    assert!(!reminder.contains("read the failing test"), "{reminder}");
    let history: Value =
        serde_json::from_str(&stdout(&env.run(&["session", "export", "P"]))).unwrap();
    let committed: Vec<&Value> = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "system" && i["text"] == reminder.as_str())
        .collect();
    assert_eq!(committed.len(), 1, "{history}");
    assert_eq!(committed[0]["source"], "host");
    // Turn 4, resumed: the committed reminder is sent again, exactly once; the model then
    // marks every step done.
    let done = plan(&[("fix the parser", "done"), ("run the tests", "done")]);
    server.push(Reply::tool_calls("", &[("p2", "update_plan", done)]));
    server.push(Reply::text("four"));
    run(&env, &server, &[], "four");
    assert_eq!(reminders(&server.requests()[4].body), 1);
    // A plan with every step done is never reminded: later requests carry only the old one.
    for prompt in ["five", "six", "seven"] {
        server.push(Reply::text("ok"));
        run(&env, &server, &[], prompt);
    }
    let last = server.requests();
    assert_eq!(reminders(&last[last.len() - 1].body), 1);
}
