use pretty_assertions::assert_eq;
use proptest::prelude::*;
use serde_json::json;

use super::*;
use crate::domain::{ToolCall, ToolSpec};

fn call(id: &str, path: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: json!({"path": path}),
    }
}

fn request(items: Vec<Item>) -> Request {
    Request {
        model: "claude-test".into(),
        system: Some("You are terse.".into()),
        items,
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object", "properties": {"path": {"type": "string"}}}),
        }],
        max_tokens: 256,
        stream: true,
    }
}

fn strip_cache_control(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.remove("cache_control");
            map.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}

#[test]
fn history_maps_to_alternating_turns_with_reminders_tools_and_breakpoints() {
    let items = vec![
        Item::system("[File: a.txt]\nA"),
        Item::user("hi"),
        Item::system("[File: b.txt]\nB"),
        Item::Assistant {
            text: "Reading.".into(),
            tool_calls: vec![call("t1", "c.txt"), call("t2", "d.txt")],
        },
        Item::ToolResult {
            call_id: "t1".into(),
            content: "C".into(),
            is_error: false,
        },
        Item::ToolResult {
            call_id: "t2".into(),
            content: "not found".into(),
            is_error: true,
        },
        Item::system("build finished"),
        Item::assistant("done"),
        Item::user("next"),
    ];
    let eph = json!({"type": "ephemeral"});
    assert_eq!(
        request_body(&request(items)),
        json!({
            "model": "claude-test",
            "max_tokens": 256,
            "system": [{"type": "text", "text": "You are terse.", "cache_control": eph}],
            "messages": [
                {"role": "user", "content": [
                    {"type": "text", "text": "<system-reminder>\n[File: a.txt]\nA\n</system-reminder>"},
                    {"type": "text", "text": "hi"},
                    {"type": "text", "text": "<system-reminder>\n[File: b.txt]\nB\n</system-reminder>"},
                ]},
                {"role": "assistant", "content": [
                    {"type": "text", "text": "Reading."},
                    {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "c.txt"}},
                    {"type": "tool_use", "id": "t2", "name": "read_file", "input": {"path": "d.txt"}},
                ]},
                {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": "t1", "content": "C"},
                    {"type": "tool_result", "tool_use_id": "t2", "content": "not found", "is_error": true},
                    {"type": "text", "text": "<system-reminder>\nbuild finished\n</system-reminder>", "cache_control": eph},
                ]},
                {"role": "assistant", "content": [{"type": "text", "text": "done"}]},
                {"role": "user", "content": [{"type": "text", "text": "next", "cache_control": eph}]},
            ],
            "tools": [{"name": "read_file", "description": "Read a file",
                       "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}}}],
            "stream": true,
        })
    );
}

#[test]
fn reminder_items_are_not_wrapped_twice_and_empty_parts_vanish() {
    let reminder_text = "<system-reminder>\n<file path=\"a\">x</file>\n</system-reminder>";
    let mut req = request(vec![
        Item::user("q"),
        Item::system(reminder_text),
        Item::assistant(""),
        Item::user(""),
    ]);
    req.system = None;
    req.tools.clear();
    req.stream = false;
    assert_eq!(
        request_body(&req),
        json!({
            "model": "claude-test",
            "max_tokens": 256,
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "q"},
                {"type": "text", "text": reminder_text, "cache_control": {"type": "ephemeral"}},
            ]}],
        })
    );
}

#[test]
fn tool_results_precede_text_in_their_turn() {
    let msgs = messages(&[
        Item::user("q"),
        Item::Assistant {
            text: String::new(),
            tool_calls: vec![call("t1", "a")],
        },
        Item::system("late notice"),
        Item::ToolResult {
            call_id: "t1".into(),
            content: "A".into(),
            is_error: false,
        },
    ]);
    let kinds: Vec<&str> = msgs[2]["content"]
        .as_array()
        .map(|blocks| blocks.iter().filter_map(|b| b["type"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(kinds, vec!["tool_result", "text"]);
}

fn user_side_item() -> impl Strategy<Value = Item> {
    prop_oneof![
        "[a-z ]{1,8}".prop_map(Item::user),
        "[a-z ]{1,8}".prop_map(Item::system),
        ("[a-z]{1,3}", "[a-z]{0,6}", any::<bool>()).prop_map(|(id, content, is_error)| {
            Item::ToolResult {
                call_id: id,
                content,
                is_error,
            }
        }),
    ]
}

fn assistant_item() -> impl Strategy<Value = Item> {
    ("[a-z ]{0,8}", prop::collection::vec("[a-z]{1,3}", 0..3))
        .prop_filter("an answer has text or calls", |(t, c)| {
            !t.is_empty() || !c.is_empty()
        })
        .prop_map(|(text, ids)| Item::Assistant {
            text,
            tool_calls: ids.iter().map(|id| call(id, "p")).collect(),
        })
}

/// History as the worker builds it: rounds of user-side items, each answered by the model.
fn history() -> impl Strategy<Value = Vec<Item>> {
    prop::collection::vec(
        (
            prop::collection::vec(user_side_item(), 1..4),
            assistant_item(),
        ),
        0..4,
    )
    .prop_map(|rounds| {
        rounds
            .into_iter()
            .flat_map(|(mut items, answer)| {
                items.push(answer);
                items
            })
            .collect()
    })
}

proptest! {
    #[test]
    fn next_request_begins_with_this_requests_messages(
        past in history(),
        now in prop::collection::vec(user_side_item(), 1..4),
        answer in assistant_item(),
        later in prop::collection::vec(user_side_item(), 1..4),
    ) {
        let mut items = past;
        items.extend(now);
        let mut first = request_body(&request(items.clone()));
        items.push(answer);
        items.extend(later);
        let mut second = request_body(&request(items));
        strip_cache_control(&mut first);
        strip_cache_control(&mut second);
        let a = first["messages"].as_array().cloned().unwrap_or_default();
        let b = second["messages"].as_array().cloned().unwrap_or_default();
        prop_assert!(b.len() > a.len());
        prop_assert_eq!(&b[..a.len()], &a[..]);
        first["messages"] = Value::Null;
        second["messages"] = Value::Null;
        prop_assert_eq!(first, second);
    }

    #[test]
    fn roles_alternate_and_start_with_user(items in history(), tail in prop::collection::vec(user_side_item(), 1..3)) {
        let mut items = items;
        items.extend(tail);
        let msgs = messages(&items);
        prop_assert_eq!(msgs[0]["role"].as_str(), Some("user"));
        for pair in msgs.windows(2) {
            prop_assert_ne!(&pair[0]["role"], &pair[1]["role"]);
        }
        let marks = msgs
            .iter()
            .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b.get("cache_control").is_some())
            .count();
        prop_assert!(marks <= 2);
    }
}
