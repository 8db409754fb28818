//! [`Worker::serve_call`]: one call served outside a turn takes the turn's path — the chain's
//! deny, the tool, `post-tool-call` — is audited as a turn's call is, and commits nothing.

use super::*;
use crate::domain::ToolDecision;
use pretty_assertions::assert_eq;

fn read(id: &str, path: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({ "path": path }),
    }
}

#[test]
fn a_served_call_passes_the_chain_and_post_tool_call_is_audited_and_commits_nothing() {
    let guard = Native {
        name: "guard".into(),
        pre_tool: Some(Box::new(|call: &ToolCall| {
            Ok(if call.arguments["path"] == "b.txt" {
                ToolDecision::Deny("not b".into())
            } else {
                ToolDecision::Allow
            })
        })),
        post_tool: Some(Box::new(
            |call: &ToolCall, _: &crate::domain::ToolOutput| {
                Ok(vec![Item::system(format!("after {}", call.id))])
            },
        )),
        ..Native::default()
    };
    let mut h = harness(
        Vec::new(),
        vec![Box::new(guard)],
        Vec::new(),
        Config::default(),
    );
    let mut sink = CollectingSink::default();

    let ran = h
        .worker
        .serve_call(&mut sink, &read("mcp-1", "a.txt"))
        .unwrap();
    assert!(!ran.outcome.output().is_error, "{:?}", ran.outcome.output());
    assert!(ran.outcome.output().content.contains("alpha"));
    assert_eq!(ran.added, vec![Item::system("after mcp-1")]);
    assert_eq!(ran.stopped, None);

    let denied = h
        .worker
        .serve_call(&mut sink, &read("mcp-2", "b.txt"))
        .unwrap();
    assert_eq!(
        denied.outcome.output().content,
        "tool call denied by plugin:guard: not b"
    );
    assert!(denied.outcome.output().is_error);
    // `post-tool-call` sees a denied call too, as in a turn.
    assert_eq!(denied.added, vec![Item::system("after mcp-2")]);

    assert_eq!(committed(&h), Vec::new());
    let audit = std::fs::read_to_string(h.home.audit_path("s1").unwrap()).unwrap();
    let events: Vec<serde_json::Value> = audit
        .lines()
        .map(|line| serde_json::from_str::<serde_json::Value>(line).unwrap()["event"].clone())
        .collect();
    let calls: Vec<(&str, &str, &str)> = events
        .iter()
        .filter(|e| e["type"] == "tool_call")
        .map(|e| {
            (
                e["call_id"].as_str().unwrap(),
                e["decision"].as_str().unwrap(),
                e["by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("mcp-1", "allowed", "default"),
            ("mcp-2", "denied", "plugin:guard")
        ]
    );
    let posts = events
        .iter()
        .filter(|e| e["type"] == "point" && e["input"]["point"] == "post-tool-call")
        .count();
    assert_eq!(posts, 2, "{events:?}");
}
