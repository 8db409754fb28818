//! What `warden run` prints around a model call: one line per retry and one for the final
//! error, no colour codes off a terminal, and a failed call recorded in the session.

use serde_json::Value;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn openai(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(args);
    output_within(cmd, HANG_LIMIT)
}

fn config(env: &TestEnv, retries: u32) {
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = {retries}\nretry_base_ms = 1\nretry_max_ms = 2\n"
    ));
}

#[test]
fn each_retry_is_one_line_and_the_final_error_one_line() {
    let env = TestEnv::new();
    config(&env, 1);
    let server = MockServer::start().unwrap();
    server.push(Reply::error(503, "overloaded", "busy"));
    server.push(Reply::error(401, "auth", "bad key"));
    let out = openai(&env, &server, &["run", "hi"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(
        lines.iter().filter(|l| l.contains("busy")).count(),
        1,
        "{err}"
    );
    assert_eq!(
        lines.iter().filter(|l| l.contains("bad key")).count(),
        1,
        "{err}"
    );
    assert!(
        !err.contains("WARN"),
        "no log line beside the retry line: {err}"
    );
}

#[test]
fn logs_carry_no_colour_codes_off_a_terminal() {
    let env = TestEnv::new();
    let mut cmd = env.command();
    cmd.env("WARDEN_LOG", "debug").args(["run", "hi"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(!stderr(&out).is_empty());
    assert!(!stderr(&out).contains('\x1b'), "{}", stderr(&out));
}

#[test]
fn a_failed_model_call_is_recorded_for_the_next_turn() {
    let env = TestEnv::new();
    config(&env, 0);
    let server = MockServer::start().unwrap();
    server.push(Reply::error(500, "server_error", "boom"));
    let out = openai(&env, &server, &["run", "--json", "first"]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let id = value["session"].as_str().unwrap().to_owned();
    let export = env.run(&["session", "export", &id]);
    let history: Value = serde_json::from_str(&stdout(&export)).unwrap();
    assert_eq!(history[0]["role"], "user");
    assert_eq!(history[1]["role"], "system");
    assert_eq!(history[1]["source"], "host");
    assert!(
        history[1]["text"].as_str().unwrap().contains("boom"),
        "{history}"
    );

    // Resumed, the model sees what happened.
    server.push(Reply::text("ok"));
    let out = openai(&env, &server, &["run", "--session", &id, "again"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let sent = server.requests()[1].body.to_string();
    assert!(sent.contains("boom") && sent.contains("first"), "{sent}");
}

#[test]
fn timeout_s_bounds_silence_in_a_stream_not_a_whole_non_streamed_answer() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"m\"\nmax_retries = 0\ntimeout_s = 1\nstream = false\n",
    );
    let server = MockServer::start().unwrap();
    // A non-streamed answer's headers come only once it is whole: slower than `timeout_s`.
    server.push(Reply::delay(1500, Reply::text("whole answer")));
    let out = openai(&env, &server, &["run", "hi"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("whole answer"));
}

#[test]
fn the_default_timeout_notices_a_hung_stream_in_seconds() {
    assert_eq!(warden::config::ModelConfig::default().timeout_s, 30);
}
