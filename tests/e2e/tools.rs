//! Tool calls through the real binary: the model calls a built-in tool through the pipeline
//! (results committed and sent back, every call audited), deny globs apply to the model's reads
//! as to `@` references, and managed policy refuses tool grants above its ceiling.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::mock_server::MockServer;

use crate::support::{HANG_LIMIT, TestEnv, audited_tools, output_within, stderr, stdout};

const OPENAI: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n";

fn run_json(env: &TestEnv, server: &MockServer, prompt: &str) -> (Option<i32>, Value, String) {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", prompt]);
    let out = output_within(cmd, HANG_LIMIT);
    let value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code(), value, stderr(&out))
}

/// The `tool` messages of the `n`th request.
fn tool_messages(server: &MockServer, n: usize) -> Vec<Value> {
    server.requests()[n].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .cloned()
        .collect()
}

#[test]
fn a_built_in_tool_call_runs_through_the_pipeline_and_is_audited() {
    let env = TestEnv::new();
    env.write("notes/todo.md", "1. write tests\n2. ship\n");
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    server.script_tool_call(
        "call_1",
        "read_file",
        json!({"path": "notes/todo.md"}),
        "Tests first.",
    );
    let (code, value, err) = run_json(&env, &server, "what is next?");
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(value["answer"], "Tests first.");
    let sent = tool_messages(&server, 1);
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["tool_call_id"], "call_1");
    let content = sent[0]["content"].as_str().unwrap();
    assert!(content.contains("1. write tests"), "{content}");

    let session = value["session"].as_str().unwrap();
    let mut tools = audited_tools(&env, session);
    for t in &mut tools {
        let t = t.as_object_mut().unwrap();
        t.remove("ts");
        // The record's place in the chain, checked in `escape_audit`.
        assert!(t.remove("seq").is_some_and(|s| s.is_u64()), "{t:?}");
        assert!(t.remove("hash").is_some_and(|h| h.is_string()), "{t:?}");
    }
    assert_eq!(
        tools,
        vec![json!({
            "tool": "read_file",
            "call_id": "call_1",
            "grants": {"fs": "none", "allowed_hosts": [], "env": []},
            "decision": "allowed",
            "by": "default",
            "bytes_in": json!({"path": "notes/todo.md"}).to_string().len(),
            "bytes_out": content.len(),
            "is_error": false,
        })]
    );
    let out = env.run(&["audit", session]);
    let text = stdout(&out);
    assert!(
        text.contains("tool read_file (built-in): allowed by default;"),
        "{text}"
    );
}

#[test]
fn deny_globs_hold_for_the_models_reads_as_for_references() {
    let env = TestEnv::new();
    env.write("corp/plan.txt", "secret plan\n");
    env.write(".env", "TOKEN=1\n");
    env.project_config(OPENAI);
    env.managed_config("[fileref]\ndeny = [\"corp/**\"]\n");
    let server = MockServer::start().unwrap();
    server.push(warden_tests::mock_server::Reply::tool_calls(
        "",
        &[
            ("c1", "read_file", json!({"path": "corp/plan.txt"})),
            ("c2", "read_file", json!({"path": ".env"})),
        ],
    ));
    server.push(warden_tests::mock_server::Reply::text("ok"));
    let (code, value, err) = run_json(&env, &server, "summarise @corp/plan.txt");
    assert_eq!(code, Some(0), "{err}");
    // The reference is refused at submit time …
    assert!(
        err.contains("corp/plan.txt") && err.contains("denied"),
        "{err}"
    );
    // … and the model's own reads are refused with an error result it sees.
    let sent = tool_messages(&server, 1);
    assert_eq!(sent.len(), 2);
    for message in &sent {
        let content = message["content"].as_str().unwrap();
        assert!(content.contains("denied"), "{content}");
    }
    let everything = serde_json::to_string(&server.requests()[1].body).unwrap();
    assert!(
        !everything.contains("secret plan") && !everything.contains("TOKEN"),
        "{everything}"
    );
    let tools = audited_tools(&env, value["session"].as_str().unwrap());
    assert_eq!(tools.len(), 2);
    assert!(tools.iter().all(|t| t["is_error"] == true), "{tools:?}");
}

fn tool_entry(grants: &str) -> String {
    format!("[[plugins]]\nname = \"edit\"\nkind = \"tool\"\npath = \"edit.wasm\"\n{grants}\n")
}

#[test]
fn tool_grants_above_the_managed_ceiling_are_refused_naming_layer_and_key() {
    let env = TestEnv::new();
    env.managed_config(
        "[policy]\nmax_tool_grants = { fs = \"read\", allowed_hosts = [\"api.example.com\"], env = [] }\n",
    );
    for (grants, key) in [
        ("fs = \"read-write\"", "plugins.edit.fs"),
        (
            "allowed_hosts = [\"evil.example.com\"]",
            "plugins.edit.allowed_hosts",
        ),
        ("env = [\"AWS_SECRET_ACCESS_KEY\"]", "plugins.edit.env"),
    ] {
        let project = env.project_config(&tool_entry(grants));
        let out = env.run(&["run", "hi"]);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{grants}: {err}");
        assert!(err.contains(&project.display().to_string()), "{err}");
        assert!(err.contains(key), "{err}");
        assert!(err.contains("the project layer grants"), "{err}");
    }
}

#[test]
fn managed_tools_only_refuses_project_tools_and_grant_keys_need_a_tool() {
    let env = TestEnv::new();
    env.managed_config("[policy]\nmanaged_tools_only = true\n");
    env.project_config(&format!(
        "[policy]\nmanaged_tools_only = false\n{}",
        tool_entry("fs = \"read\"")
    ));
    let out = env.run(&["run", "hi"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("managed tools only"), "{err}");
    assert!(err.contains("project layer"), "{err}");

    let env = TestEnv::new();
    env.project_config(
        "[[plugins]]\nname = \"guard\"\nkind = \"interceptor\"\npath = \"g.wasm\"\nfs = \"read-write\"\n",
    );
    let out = env.run(&["run", "hi"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("plugins.guard.fs"), "{err}");
    assert!(err.contains("only valid on `kind = \"tool\"`"), "{err}");
}

#[test]
fn a_malformed_tool_ceiling_in_the_managed_file_fails_closed() {
    let env = TestEnv::new();
    let managed = env.managed_config("[policy]\nmax_tool_grants = { fs = \"everything\" }\n");
    let out = env.run(&["run", "hi"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&managed.display().to_string()), "{err}");
}
