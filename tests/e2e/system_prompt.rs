//! The default system prompt, as sent by the real binary: it names every tool the model is
//! offered in this session, the permission mode, and the limits of `shell`'s sandbox.

use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr};

/// The system prompt and the tool names of the one request a `warden run` turn sends.
fn first_request(env: &TestEnv, args: &[&str]) -> (String, Vec<String>) {
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("ok"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args)
        .arg("hello");
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let body = &server.requests()[0].body;
    let system = body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let tools = body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    (system, tools)
}

#[test]
fn the_default_system_prompt_describes_every_tool_the_mode_and_the_sandbox() {
    let env = TestEnv::new();
    env.project_config(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n",
    );
    let (system, tools) = first_request(&env, &[]);
    assert!(tools.len() >= 6, "{tools:?}");
    for tool in &tools {
        assert!(
            system.contains(&format!("`{tool}`")),
            "{tool} missing from: {system}"
        );
    }
    assert!(system.contains("mode is `ask`"), "{system}");
    assert!(system.contains("no network"), "{system}");
    assert!(system.contains("after 120 s"), "{system}");

    let (system, _) = first_request(&env, &["--mode", "read-only"]);
    assert!(system.contains("mode is `read-only`"), "{system}");
    assert!(
        system.contains("writes and commands are refused"),
        "{system}"
    );
}
