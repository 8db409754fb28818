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
