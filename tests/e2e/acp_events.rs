//! No event the chat shows is missing in an editor: one scripted turn run through `warden run
//! --json-stream` and through `warden acp` (the TypeScript SDK's client), and every event kind
//! of the stream found in the editor's updates as the mapping says (`docs/editors.md`).

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::acp::{MODEL, Sdk, drive, response, text_of, updates};
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const CONFIG: &str = "[tools]\nmode = \"full-auto\"\n\n[[rules]]\nid = \"no-x\"\npaths = [\"x.txt\"]\ndecision = \"deny\"\nwhy = \"x is off limits\"\nexamples = [\"x.txt\"]\n";

fn script(server: &MockServer) {
    server.push(Reply::tool_calls(
        "Working on it.",
        &[
            (
                "w1",
                "write_file",
                json!({"path": "b.txt", "content": "new\n"}),
            ),
            (
                "w2",
                "write_file",
                json!({"path": "x.txt", "content": "no\n"}),
            ),
            (
                "p1",
                "update_plan",
                json!({"plan": [{"step": "write b", "status": "completed"}]}),
            ),
        ],
    ));
    server.push(Reply::text("All done."));
}

const PROMPT: &str = "do it with @a.txt and @missing.txt";

#[test]
fn every_event_kind_of_a_turn_reaches_the_editor() {
    let test = "every_event_kind_of_a_turn_reaches_the_editor";
    // The turn through the event stream.
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{CONFIG}"));
    env.write("a.txt", "hello\n");
    let server = MockServer::start().unwrap();
    script(&server);
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json-stream", PROMPT]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let events: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let kinds: std::collections::BTreeSet<String> = events
        .iter()
        .filter_map(|e| e["type"].as_str().map(str::to_owned))
        .collect();
    // The same turn through the editor.
    let env = TestEnv::new();
    env.user_config(&format!("{MODEL}{CONFIG}"));
    env.write("a.txt", "hello\n");
    let server = MockServer::start().unwrap();
    script(&server);
    let root = env.workspace();
    let Some(record) = drive(
        test,
        Sdk::Ts,
        &env,
        Some(&server),
        &[],
        json!([
            {"op": "initialize"},
            {"op": "new_session", "cwd": root},
            {"op": "prompt", "blocks": [{"type": "text", "text": PROMPT}]},
        ]),
    ) else {
        return;
    };
    assert_eq!(response(&record, 2)["stopReason"], "end_turn");
    let said = text_of(&record, "agent_message_chunk");
    let call = |id: &str| -> Vec<Value> {
        record["updates"]
            .as_array()
            .unwrap()
            .iter()
            .map(|u| u["update"].clone())
            .filter(|u| u["toolCallId"] == id)
            .collect()
    };
    let mut checked = Vec::new();
    for kind in &kinds {
        let found = match kind.as_str() {
            // The turn's start and each model request: the session's last activity.
            "turn_started" | "waiting" => !updates(&record, "session_info_update").is_empty(),
            "text_delta" => said.contains("Working on it.") && said.contains("All done."),
            "alert" => events
                .iter()
                .filter(|e| e["type"] == "alert")
                .all(|e| said.contains(e["message"].as_str().unwrap_or("?"))),
            "files_attached" => updates(&record, "tool_call")
                .iter()
                .any(|u| u["title"] == "@a.txt" && u["status"] == "completed"),
            "usage" => !updates(&record, "usage_update").is_empty(),
            "tool_call_requested" => ["w1", "w2", "p1"]
                .iter()
                .all(|id| call(id).iter().any(|u| u["sessionUpdate"] == "tool_call")),
            "tool_call_decided" => call("w2").iter().any(|u| {
                u["status"] == "failed" && u["content"].to_string().contains("denied by rule")
            }),
            "tool_call_started" => call("w1").iter().any(|u| u["status"] == "in_progress"),
            "tool_call_ran" => call("w1").iter().any(|u| u["status"] == "completed"),
            "plan_updated" => !updates(&record, "plan").is_empty(),
            "file_changed" => call("w1").iter().any(|u| {
                u["content"].as_array().is_some_and(|c| {
                    c.iter()
                        .any(|b| b["type"] == "diff" && b["newText"] == "new\n")
                })
            }),
            "turn_ended" => said.contains("changed 1 file: b.txt"),
            // What history holds: the chat shows it through the events above, not itself.
            "item_committed" => true,
            other => panic!("event kind `{other}` has no editor mapping in this test"),
        };
        assert!(
            found,
            "`{kind}` is missing in the editor's updates: {record}"
        );
        checked.push(kind.clone());
    }
    // The turn exercised what the mapping is about.
    for kind in [
        "alert",
        "files_attached",
        "tool_call_decided",
        "file_changed",
        "plan_updated",
        "usage",
        "turn_ended",
    ] {
        assert!(checked.iter().any(|k| k == kind), "{kind} did not occur");
    }
}
