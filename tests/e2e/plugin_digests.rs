//! The plugins that saw a tool call: its `tool_call` audit record lists the sha256 of every
//! interceptor the chain asked about it (at `pre-tool-call` and `post-tool-call`), a shadow
//! entry marked as such, each equal to the digest `warden plugin list --json` gives.

use std::collections::BTreeMap;

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, plugin_entry, run_go_json, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// The `tool_call` events of `session`'s audit log, by call id.
fn tool_calls(env: &TestEnv, session: &str) -> BTreeMap<String, Value> {
    let path = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("audit.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["event"].clone())
        .filter(|r| r["type"] == "tool_call")
        .map(|r| (r["call_id"].as_str().unwrap().to_owned(), r))
        .collect()
}

#[test]
fn a_tool_calls_audit_record_names_the_digest_of_every_plugin_that_saw_it() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}{}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "write_file:*.key")]
        ),
        plugin_entry(
            "interceptor",
            "topics",
            &fixtures::pattern_guard(),
            "",
            &[("pattern", "forbidden"), ("reason", "blocked")]
        ),
        plugin_entry(
            "interceptor",
            "candidate",
            &fixtures::tool_guard(),
            "mode = \"shadow\"",
            &[("deny", "write_file:*")]
        ),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "c1",
                "write_file",
                json!({"path": "a.txt", "content": "a\n"}),
            ),
            (
                "c2",
                "write_file",
                json!({"path": "x.key", "content": "k\n"}),
            ),
        ],
    ));
    server.push(Reply::text("done"));
    let (ran, session) = run_go_json(&env, &server.openai_url());

    // The digests `plugin list` gives, by name.
    let out = env.run(&["plugin", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let listed: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let digest = |name: &str| -> String {
        let row = listed
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == name)
            .unwrap_or_else(|| panic!("{name} not listed: {listed}"));
        let digest = row["digest"].as_str().unwrap_or_default().to_owned();
        assert_eq!(digest.len(), 64, "{row}");
        digest
    };
    assert_ne!(digest("guard"), digest("topics"));
    let entry = |name: &str, shadow: bool| {
        if shadow {
            json!({"plugin": name, "sha256": digest(name), "shadow": true})
        } else {
            json!({"plugin": name, "sha256": digest(name)})
        }
    };

    let calls = tool_calls(&env, &session);
    assert_eq!(calls.len(), 2, "{calls:?} {}", stdout(&ran));
    // Allowed: both guards saw it (before and after it ran), and the shadow entry.
    assert_eq!(calls["c1"]["decision"], "allowed");
    assert_eq!(
        calls["c1"]["seen_by"],
        json!([
            entry("guard", false),
            entry("topics", false),
            entry("candidate", true)
        ]),
        "{}",
        calls["c1"]
    );
    // Denied by the first guard, which stopped the chain at `pre-tool-call` (the shadow entry
    // still saw it); the other guard saw it at `post-tool-call`, with its denial.
    assert_eq!(calls["c2"]["decision"], "denied");
    assert_eq!(
        calls["c2"]["seen_by"],
        json!([
            entry("guard", false),
            entry("topics", false),
            entry("candidate", true)
        ]),
        "{}",
        calls["c2"]
    );
}
