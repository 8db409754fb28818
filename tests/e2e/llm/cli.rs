//! The real `warden run` against the mock server: streamed output, retries shown, the exit
//! codes of a missing key and of a provider error.

use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, stderr, stdout};

fn anthropic_project(env: &TestEnv) {
    env.project_config(
        "[model]\nprovider = \"anthropic\"\nname = \"test-model\"\nmax_retries = 2\nretry_base_ms = 1\nretry_max_ms = 4\n",
    );
}

fn run(
    env: &TestEnv,
    server: &MockServer,
    key: Option<&str>,
    prompt: &str,
) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("ANTHROPIC_BASE_URL", server.url());
    if let Some(key) = key {
        cmd.env("ANTHROPIC_API_KEY", key);
    }
    cmd.args(["run", prompt]).output().expect("run warden")
}

#[test]
fn run_streams_the_answer_and_reports_a_retry() {
    let env = TestEnv::new();
    anthropic_project(&env);
    let server = MockServer::start().expect("mock server");
    server.push(
        Reply::error(429, "rate_limit_error", "slow down").with_header("retry-after-ms", "2"),
    );
    server.push(Reply::text("Hello from the mock."));
    let out = run(&env, &server, Some("sk-ant-test"), "Say hello");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        stdout(&out).contains("Hello from the mock."),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out).contains("anthropic: HTTP 429: slow down (rate_limit_error); retry 1"),
        "{}",
        stderr(&out)
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert_eq!(reqs[1].header("x-api-key"), Some("sk-ant-test"));
    assert_eq!(
        reqs[1].body["messages"][0]["content"][0]["text"],
        "Say hello"
    );
}

#[test]
fn run_without_a_key_exits_2_naming_the_variable() {
    let env = TestEnv::new();
    anthropic_project(&env);
    let server = MockServer::start().expect("mock server");
    let out = run(&env, &server, None, "Say hello");
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("ANTHROPIC_API_KEY"),
        "{}",
        stderr(&out)
    );
    assert!(server.requests().is_empty());
}

#[test]
fn run_shows_the_providers_message_on_401() {
    let env = TestEnv::new();
    anthropic_project(&env);
    let server = MockServer::start().expect("mock server");
    server.push(Reply::error(
        401,
        "authentication_error",
        "invalid x-api-key",
    ));
    let out = run(&env, &server, Some("sk-wrong"), "Say hello");
    assert_eq!(out.status.code(), Some(1), "stderr: {}", stderr(&out));
    assert!(
        stderr(&out).contains("anthropic: HTTP 401: invalid x-api-key (authentication_error)"),
        "{}",
        stderr(&out)
    );
    assert_eq!(server.requests().len(), 1);
}

/// A lone UTF-16 surrogate escape in a streamed answer (`"\ud800"`, which `serde_json`
/// refuses) failed the whole turn: it is replaced by U+FFFD, the answer is shown and committed.
#[test]
fn a_lone_surrogate_in_an_answer_is_replaced_not_fatal() {
    let env = TestEnv::new();
    anthropic_project(&env);
    let server = MockServer::start().expect("mock server");
    let events = [
        r#"{"type":"message_start","message":{"id":"m1","type":"message","role":"assistant","model":"test-model","content":[],"usage":{"input_tokens":3,"output_tokens":0}}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"half \ud800 then \udc00 kept \ud83d\ude00 end"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}"#,
        r#"{"type":"message_stop"}"#,
    ];
    let names = [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ];
    let sse: String = names
        .iter()
        .zip(events)
        .map(|(name, data)| format!("event: {name}\ndata: {data}\n\n"))
        .collect();
    server.push(Reply::RawSse(sse));
    let out = run(&env, &server, Some("sk-ant-test"), "Say it");
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    assert!(
        stdout(&out).contains("half \u{fffd} then \u{fffd} kept 😀 end"),
        "{}",
        stdout(&out)
    );
}
