//! MCP servers started on first use, through the real binary: the first `run` starts a stdio
//! server to list its tools and keeps the list; a later `run` offers the same tools from that
//! list without starting the server, and starts it only when the model calls one of them.

use serde_json::{Value, json};

use crate::mcp_client::{python, turn};
use crate::support::TestEnv;

/// Lines the wrapper wrote: one per start of the server.
fn starts(env: &TestEnv) -> usize {
    std::fs::read_to_string(env.root_path().join("starts.log"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

fn offered(turn: &crate::mcp_client::Turn) -> Vec<String> {
    turn.offered()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .filter(|n| n.starts_with("mcp__"))
        .collect()
}

#[test]
fn a_server_whose_tools_are_known_starts_only_when_one_is_called() {
    let test = "a_server_whose_tools_are_known_starts_only_when_one_is_called";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    let log = env.root_path().join("starts.log");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/mcp/server.py");
    env.project_config(&format!(
        "{}[[mcp]]\nname = \"fx\"\nsandbox = \"none\"\napprove = \"never\"\ncommand = [\"sh\", \"-c\", {:?}]\n",
        crate::shell::OPENAI,
        format!(
            "echo started >> '{}'; exec '{}' '{}' stdio",
            log.display(),
            python.display(),
            fixture.display()
        )
    ));
    env.user_config("[policy]\nallow_unsandboxed_shell = true\n");

    let first = turn(&env, &[], &[], "hello");
    assert_eq!(first.code, Some(0), "{}", first.err);
    assert_eq!(
        starts(&env),
        1,
        "the first run lists the tools: {}",
        first.err
    );
    let tools = offered(&first);
    assert!(tools.contains(&"mcp__fx__echo".to_owned()), "{tools:?}");

    let second = turn(&env, &[], &[], "hello again");
    assert_eq!(second.code, Some(0), "{}", second.err);
    assert_eq!(
        starts(&env),
        1,
        "not started for a run that calls none of its tools"
    );
    assert_eq!(
        offered(&second),
        tools,
        "the same tools, from the kept list"
    );

    let third = turn(
        &env,
        &[("c1", "mcp__fx__echo", json!({"text": "hi"}))],
        &["--yes"],
        "call it",
    );
    assert_eq!(third.code, Some(0), "{}", third.err);
    assert_eq!(starts(&env), 2, "started at the first call");
    assert_eq!(third.result("c1"), "echo: hi");
    assert_eq!(third.value["outcome"], Value::from("answered"));
}
