//! History → OpenAI Chat Completions request body.
//!
//! - The system prompt is the first `system` message; `System` items are `system` messages in
//!   place, so history maps one item to one message.
//! - Assistant tool calls are `tool_calls` entries (`type: function`, arguments as a JSON
//!   string, serialized with sorted keys so the same call always yields the same text); the
//!   content of an assistant message with tool calls and no text is `null`.
//! - `ToolResult` items are `role: tool` messages with `tool_call_id`; the wire has no error
//!   flag, so a failed tool's output is prefixed with `[error] `.
//! - Tools are `{"type":"function","function":{name,description,parameters}}`; a streamed
//!   request asks for usage with `stream_options.include_usage`.

use serde_json::{Map, Value, json};

use crate::domain::Item;
use crate::llm::Request;

/// Prefix of a failed tool's output.
pub const TOOL_ERROR_PREFIX: &str = "[error] ";

/// The request body for `req`.
pub fn request_body(req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert(
        "messages".into(),
        Value::Array(messages(req.system.as_deref(), &req.items)),
    );
    body.insert("max_tokens".into(), json!(req.max_tokens));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| {
                json!({"type": "function", "function": {
                    "name": t.name, "description": t.description, "parameters": t.input_schema
                }})
            })
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if req.stream {
        body.insert("stream".into(), Value::Bool(true));
        body.insert("stream_options".into(), json!({"include_usage": true}));
    }
    Value::Object(body)
}

/// The `messages` array: the system prompt, then one message per item.
pub fn messages(system: Option<&str>, items: &[Item]) -> Vec<Value> {
    let system = system
        .filter(|s| !s.is_empty())
        .map(|s| json!({"role": "system", "content": s}));
    system
        .into_iter()
        .chain(items.iter().map(message))
        .collect()
}

fn message(item: &Item) -> Value {
    match item {
        Item::User { text } => json!({"role": "user", "content": text}),
        Item::System { text } => json!({"role": "system", "content": text}),
        Item::Assistant { text, tool_calls } if tool_calls.is_empty() => {
            json!({"role": "assistant", "content": text})
        }
        Item::Assistant { text, tool_calls } => {
            let calls: Vec<Value> = tool_calls
                .iter()
                .map(|c| {
                    json!({"id": c.id, "type": "function", "function": {
                        "name": c.name, "arguments": c.arguments.to_string()
                    }})
                })
                .collect();
            let content = if text.is_empty() {
                Value::Null
            } else {
                json!(text)
            };
            json!({"role": "assistant", "content": content, "tool_calls": calls})
        }
        Item::ToolResult {
            call_id,
            content,
            is_error,
        } => {
            let content = if *is_error {
                format!("{TOOL_ERROR_PREFIX}{content}")
            } else {
                content.clone()
            };
            json!({"role": "tool", "tool_call_id": call_id, "content": content})
        }
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
