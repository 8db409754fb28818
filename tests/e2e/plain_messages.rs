//! Messages a person (or the model) reads when something is off, through the real binary: a
//! TOML syntax error names the broken line's own key (or none), never the table above it;
//! `grep` says which files it skipped; a stream that stalls after its first words is one plain
//! alert, not a log line.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n";

/// One `warden run` turn in which the model makes `calls`, then answers; the tool results
/// the model was sent, in order.
fn tool_results(env: &TestEnv, calls: &[(&str, &str, Value)]) -> Vec<String> {
    let server = MockServer::start().expect("mock server");
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let requests = server.requests();
    requests[1].body["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn grep_names_the_files_it_skipped_as_too_large() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    env.write("small.txt", "nothing here\n");
    let mut big = "filler line\n".repeat(100_000);
    big.push_str("needle\n");
    env.write("logs/big.log", &big);
    let results = tool_results(&env, &[("g", "grep", json!({"pattern": "needle"}))]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].starts_with("no matches in "), "{results:?}");
    assert!(
        results[0].contains("skipped 1 file over 1 MiB: logs/big.log"),
        "{results:?}"
    );
}

#[test]
fn a_toml_syntax_error_on_a_header_line_does_not_name_the_table_above() {
    let env = TestEnv::new();
    let path = env.user_config(
        "[[plugins]]\nname = \"a\"\npath = \"a.wasm\"\n[plugins.config]\nx = 1\n[model\nname = \"m\"\n",
    );
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&format!("{}:6:", path.display())), "{err}");
    assert!(!err.contains("plugins.config"), "{err}");
    assert!(!err.contains("key `"), "{err}");
}

#[test]
fn a_toml_syntax_error_on_a_key_line_names_that_key_under_its_table() {
    let env = TestEnv::new();
    env.user_config("[plugins.config]\nx = 1\n[model]\nname = m\n");
    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("key `model.name`"), "{err}");
}

#[test]
fn a_stream_that_stalls_after_its_first_words_is_one_plain_alert() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 2\ntimeout_s = 1\n",
    );
    let server = MockServer::start().expect("mock server");
    server.push(Reply::stall("the first words of an answer", 3));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "tell me"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(!err.contains("WARN"), "{err}");
    assert!(
        !err.contains("stream failed after content was shown"),
        "{err}"
    );
    let said: Vec<&str> = err.lines().filter(|l| l.contains("within 1s")).collect();
    assert_eq!(said.len(), 1, "{err}");
    assert!(said[0].starts_with("warden: "), "{err}");
    assert_eq!(
        server.requests().len(),
        1,
        "a stream cut after content is not retried"
    );
}
