//! A turn's limits through the real binary and the scripted model: the default step limit
//! lets a survey of many files finish, a model repeating the same call with the same result
//! ends the turn early, and a turn ended by a limit is committed with a note saying how to go
//! on, so that `continue` resumes it; `run` exits with its own code (5) for both.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// `warden run --json PROMPT` (plus `extra` flags) against `server`: exit code and the JSON.
fn run(env: &TestEnv, server: &MockServer, extra: &[&str], prompt: &str) -> (Option<i32>, Value) {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .arg("--json")
        .args(extra)
        .arg(prompt);
    let out = output_within(cmd, HANG_LIMIT);
    let value: Value = serde_json::from_str(stdout(&out).trim())
        .unwrap_or_else(|e| panic!("no JSON ({e}): {}{}", stdout(&out), stderr(&out)));
    (out.status.code(), value)
}

fn read(id: &str, path: &str) -> Reply {
    Reply::tool_calls("", &[(id, "read_file", json!({ "path": path }))])
}

/// `(role, text)` of each message of a recorded request, tool calls as `name(arguments)`.
fn transcript(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let role = m["role"].as_str().unwrap_or_default().to_owned();
            let mut text = m["content"].as_str().unwrap_or_default().to_owned();
            for call in m["tool_calls"].as_array().into_iter().flatten() {
                text.push_str(&format!(
                    "{}({})",
                    call["function"]["name"].as_str().unwrap_or_default(),
                    call["function"]["arguments"].as_str().unwrap_or_default()
                ));
            }
            (role, text)
        })
        .collect()
}

#[test]
fn a_survey_of_eighteen_files_fits_the_default_step_limit() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    for i in 0..18 {
        env.write(&format!("f{i}.txt"), format!("file {i}\n"));
        server.push(read(&format!("c{i}"), &format!("f{i}.txt")));
    }
    server.push(Reply::text("surveyed"));
    let (code, value) = run(&env, &server, &[], "survey the files");
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(value["outcome"], "answered", "{value}");
    assert_eq!(server.requests().len(), 19);
}

#[test]
fn the_step_limit_ends_the_turn_resumably_and_continue_goes_on() {
    let env = TestEnv::new();
    env.project_config(&format!("{OPENAI}[worker]\nmax_steps = 3\n"));
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    env.write("c.txt", "gamma\n");
    let server = MockServer::start().unwrap();
    server.push(read("c1", "a.txt"));
    server.push(read("c2", "b.txt"));
    server.push(read("c3", "c.txt"));
    let (code, value) = run(&env, &server, &[], "read them all");
    assert_eq!(code, Some(5), "{value}");
    assert_eq!(value["outcome"], "limited", "{value}");
    let reason = value["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("worker.max_steps"), "{reason}");
    assert!(reason.contains("continue"), "{reason}");
    assert_eq!(server.requests().len(), 3, "no request past the limit");

    // The next turn's request holds the whole transcript, the committed note included.
    server.push(Reply::text("all read"));
    let (code, value) = run(&env, &server, &["--continue"], "continue");
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(value["answer"], "all read");
    let requests = server.requests();
    let got = transcript(&requests[3].body);
    let note = got
        .iter()
        .find(|(_, text)| text.contains("worker.max_steps"))
        .map(|(_, text)| text.clone())
        .unwrap_or_else(|| panic!("no note in {got:#?}"));
    assert!(note.contains("continue"), "{note}");
    let expected: Vec<(String, String)> = [
        ("user", "read them all".to_owned()),
        ("assistant", r#"read_file({"path":"a.txt"})"#.to_owned()),
        ("tool", "alpha\n".to_owned()),
        ("assistant", r#"read_file({"path":"b.txt"})"#.to_owned()),
        ("tool", "beta\n".to_owned()),
        ("assistant", r#"read_file({"path":"c.txt"})"#.to_owned()),
        ("tool", "gamma\n".to_owned()),
        ("system", note.clone()),
        ("user", "continue".to_owned()),
    ]
    .into_iter()
    .map(|(r, t)| (r.to_owned(), t))
    .collect();
    pretty_assertions::assert_eq!(strip_system_prompt(got), expected);
}

/// The transcript without the leading system prompt.
fn strip_system_prompt(mut got: Vec<(String, String)>) -> Vec<(String, String)> {
    if got.first().is_some_and(|(r, _)| r == "system") {
        got.remove(0);
    }
    got
}

#[test]
fn a_model_repeating_the_same_call_and_result_ends_the_turn() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("a.txt", "alpha\n");
    let server = MockServer::start().unwrap();
    for i in 0..8 {
        server.push(read(&format!("c{i}"), "a.txt"));
    }
    let (code, value) = run(&env, &server, &[], "read a");
    assert_eq!(code, Some(5), "{value}");
    assert_eq!(value["outcome"], "limited", "{value}");
    let reason = value["reason"].as_str().unwrap_or_default();
    assert!(reason.contains("read_file"), "{reason}");
    assert!(reason.contains("3 times"), "{reason}");
    assert_eq!(
        server.requests().len(),
        3,
        "the turn ends at the third repeat"
    );
}

#[test]
fn the_same_call_with_a_changing_result_is_not_a_loop() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    for i in 0..5 {
        // The model polls a file another step rewrites: the result changes every time.
        server.push(Reply::tool_calls(
            "",
            &[
                (
                    &format!("w{i}"),
                    "write_file",
                    json!({"path": "n.txt", "content": format!("{i}\n")}),
                ),
                (&format!("r{i}"), "read_file", json!({"path": "n.txt"})),
            ],
        ));
    }
    server.push(Reply::text("done polling"));
    let (code, value) = run(&env, &server, &["--mode", "full-auto"], "poll");
    assert_eq!(code, Some(0), "{value}");
    assert_eq!(value["answer"], "done polling");
}
