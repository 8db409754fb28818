use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;
use crate::domain::{ToolCall, ToolSpec};

#[test]
fn history_maps_one_item_to_one_message() {
    let req = Request {
        model: "gpt-test".into(),
        system: Some("You are terse.".into()),
        items: vec![
            Item::user("hi"),
            Item::system("[File: a.txt]\nA"),
            Item::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".into(),
                    name: "read_file".into(),
                    arguments: json!({"path": "b.txt", "limit": 3}),
                }],
            },
            Item::ToolResult {
                call_id: "call_1".into(),
                content: "not found".into(),
                is_error: true,
            },
            Item::assistant("done"),
            Item::system("build finished"),
            Item::user("next"),
        ],
        tools: vec![ToolSpec {
            name: "read_file".into(),
            description: "Read a file".into(),
            input_schema: json!({"type": "object"}),
        }],
        max_tokens: 100,
        stream: true,
    };
    assert_eq!(
        request_body(&req),
        json!({
            "model": "gpt-test",
            "messages": [
                {"role": "system", "content": "You are terse."},
                {"role": "user", "content": "hi"},
                {"role": "system", "content": "[File: a.txt]\nA"},
                {"role": "assistant", "content": null, "tool_calls": [
                    {"id": "call_1", "type": "function",
                     "function": {"name": "read_file", "arguments": "{\"path\":\"b.txt\",\"limit\":3}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_1", "content": "[error] not found"},
                {"role": "assistant", "content": "done"},
                {"role": "system", "content": "build finished"},
                {"role": "user", "content": "next"},
            ],
            "max_tokens": 100,
            "tools": [{"type": "function", "function": {
                "name": "read_file", "description": "Read a file", "parameters": {"type": "object"}}}],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
}

#[test]
fn next_request_begins_with_this_requests_messages() {
    let mut items = vec![Item::user("a"), Item::system("n")];
    let first = messages(Some("s"), &items);
    items.push(Item::assistant("b"));
    items.push(Item::user("c"));
    let second = messages(Some("s"), &items);
    assert_eq!(&second[..first.len()], &first[..]);
}
