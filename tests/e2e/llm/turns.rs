//! What the providers send and what they make of the answers.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden::domain::ProviderKind;
use warden::domain::{Item, StreamEvent, ToolCall};
use warden::llm::{Response, StopReason, Usage};
use warden_tests::mock_server::{MockServer, Reply, words};
use warden_tests::snapshot::assert_json_snapshot;

use super::{KINDS, kind_name, provider, recorded_json, request, run, strip_cache_control};

fn usage() -> Option<Usage> {
    Some(Usage {
        input_tokens: 11,
        output_tokens: 7,
        ..Usage::default()
    })
}

/// Runs `items` once per provider (streamed), snapshots the request, returns the responses.
fn snapshot_turn(case: &str, items: &[Item], reply: &Reply) {
    for kind in KINDS {
        let server = MockServer::start().unwrap_or_else(|e| panic!("{e}"));
        server.push(reply.clone());
        let (r, _) = run(
            provider(kind, &server).as_mut(),
            &request(items.to_vec(), true),
        );
        assert!(r.is_ok(), "{case} {}: {r:?}", kind_name(kind));
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        assert_json_snapshot(
            &format!("llm/{case}.{}", kind_name(kind)),
            &recorded_json(&reqs[0]),
        );
    }
}

#[test]
fn plain_turn_streamed_and_not() {
    let answer = "It is a Rust workspace.";
    for kind in KINDS {
        for stream in [true, false] {
            let server = MockServer::start().unwrap_or_else(|e| panic!("{e}"));
            server.push(Reply::text(answer));
            let items = vec![Item::user("What is in this repository?")];
            let (r, events) = run(provider(kind, &server).as_mut(), &request(items, stream));
            assert_eq!(
                r.ok(),
                Some(Response {
                    text: answer.into(),
                    tool_calls: Vec::new(),
                    stop_reason: StopReason::EndTurn,
                    usage: usage(),
                })
            );
            let expected: Vec<StreamEvent> = if stream {
                words(answer)
                    .into_iter()
                    .map(|w| StreamEvent::TextDelta(w.into()))
                    .collect()
            } else {
                vec![StreamEvent::TextDelta(answer.into())]
            };
            assert_eq!(events, expected);
            let reqs = server.requests();
            assert_eq!(reqs.len(), 1);
            let mode = if stream { "stream" } else { "whole" };
            assert_json_snapshot(
                &format!("llm/plain_turn.{}.{mode}", kind_name(kind)),
                &recorded_json(&reqs[0]),
            );
        }
    }
}

#[test]
fn file_placed_as_system_item() {
    snapshot_turn(
        "file_system_message",
        &[
            Item::user("Explain @src/lib.rs"),
            Item::system("[File: src/lib.rs]\npub fn add(a: i32, b: i32) -> i32 { a + b }\n"),
        ],
        &Reply::text("It adds."),
    );
}

#[test]
fn file_placed_as_reminder() {
    snapshot_turn(
        "file_reminder",
        &[
            Item::user("Explain @src/lib.rs"),
            Item::system(
                "<system-reminder>\n<file path=\"src/lib.rs\">\npub fn add(a: i32, b: i32) -> i32 { a + b }\n</file>\n</system-reminder>",
            ),
        ],
        &Reply::text("It adds."),
    );
}

#[test]
fn file_placed_as_tool_result() {
    snapshot_turn(
        "file_tool_result",
        &[
            Item::user("Explain @src/lib.rs"),
            Item::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "fileref_1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "src/lib.rs"}),
                }],
            },
            Item::ToolResult {
                call_id: "fileref_1".into(),
                content: "pub fn add(a: i32, b: i32) -> i32 { a + b }\n".into(),
                is_error: false,
            },
        ],
        &Reply::text("It adds."),
    );
}

#[test]
fn notifications_mid_history() {
    snapshot_turn(
        "notification",
        &[
            Item::user("Start the build."),
            Item::system("[notification] build #41 queued"),
            Item::assistant("Started."),
            Item::user("Is it done?"),
            Item::system("[notification] build #41 passed"),
        ],
        &Reply::text("Yes, it passed."),
    );
}

#[test]
fn tool_round_trip() {
    for kind in KINDS {
        let server = MockServer::start().unwrap_or_else(|e| panic!("{e}"));
        let args = json!({"path": "src/main.rs"});
        server.push(Reply::tool_calls(
            "Let me read it.",
            &[("call_1", "read_file", args.clone())],
        ));
        server.push(Reply::text("It prints hello."));
        let mut p = provider(kind, &server);
        let mut items = vec![Item::user("What does main do?")];

        let (r, events) = run(p.as_mut(), &request(items.clone(), true));
        let first = r.unwrap_or_else(|e| panic!("{e}"));
        let call = ToolCall {
            id: "call_1".into(),
            name: "read_file".into(),
            arguments: args.clone(),
        };
        assert_eq!(first.tool_calls, vec![call]);
        assert_eq!(first.stop_reason, StopReason::ToolUse);
        assert!(events.contains(&StreamEvent::ToolCallStarted {
            id: "call_1".into(),
            name: "read_file".into()
        }));

        items.push(first.to_item());
        items.push(Item::ToolResult {
            call_id: "call_1".into(),
            content: "fn main() { println!(\"hello\"); }".into(),
            is_error: false,
        });
        let (r, _) = run(p.as_mut(), &request(items, true));
        assert_eq!(r.ok().map(|r| r.text), Some("It prints hello.".into()));

        let reqs: Vec<Value> = server.requests().iter().map(recorded_json).collect();
        assert_json_snapshot(
            &format!("llm/tool_round_trip.{}", kind_name(kind)),
            &json!(reqs),
        );
    }
}

#[test]
fn next_turn_extends_the_previous_request_across_a_resume() {
    for kind in KINDS {
        let server = MockServer::start().unwrap_or_else(|e| panic!("{e}"));
        server.push(Reply::text("First answer."));
        server.push(Reply::text("Second answer."));
        let mut items = vec![
            Item::user("Read @a.txt"),
            Item::system("[File: a.txt]\nalpha"),
        ];
        let (r, _) = run(
            provider(kind, &server).as_mut(),
            &request(items.clone(), true),
        );
        items.push(r.unwrap_or_else(|e| panic!("{e}")).to_item());

        // Resume: history goes through its serialized form and a new provider is built.
        let saved = serde_json::to_string(&items).unwrap_or_default();
        let mut items: Vec<Item> = serde_json::from_str(&saved).unwrap_or_default();
        items.push(Item::system("[notification] a.txt changed"));
        items.push(Item::user("And now?"));
        let (r, _) = run(provider(kind, &server).as_mut(), &request(items, true));
        assert!(r.is_ok());

        let reqs = server.requests();
        let (mut a, mut b) = (reqs[0].body.clone(), reqs[1].body.clone());
        strip_cache_control(&mut a);
        strip_cache_control(&mut b);
        let (ma, mb) = (a["messages"].take(), b["messages"].take());
        let (ma, mb) = (
            ma.as_array().cloned().unwrap_or_default(),
            mb.as_array().cloned().unwrap_or_default(),
        );
        assert!(mb.len() > ma.len(), "{}", kind_name(kind));
        assert_eq!(&mb[..ma.len()], &ma[..], "{}", kind_name(kind));
        assert_eq!(a, b, "everything but the messages is unchanged");
    }
}

#[test]
fn echo_provider_needs_no_network() {
    let cfg = warden::config::ModelConfig::default();
    let mut p =
        warden::setup::provider::from_config(&cfg, &|_| None).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!((p.name(), p.model()), ("echo", "echo"));
    let (r, _) = run(p.as_mut(), &request(vec![Item::user("hi")], true));
    let text = r.map(|r| r.text).unwrap_or_default();
    assert_eq!(
        text,
        "[echo provider] received 1 item (1 user).\nfiles: none\nlast user text: \"hi\""
    );
    let _ = ProviderKind::Echo;
}
