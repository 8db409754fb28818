//! History → Anthropic Messages request body.
//!
//! - The system prompt goes in `system`.
//! - Roles strictly alternate and start with `user`: consecutive items of the same wire role
//!   are merged into one message; `System` items become `<system-reminder>` text blocks of the
//!   adjacent user turn (a system item before the first user item joins that first turn);
//!   `ToolResult` items become `tool_result` blocks, placed before any text of their user turn
//!   as the API requires.
//! - Assistant tool calls become `tool_use` blocks; an assistant item with neither text nor
//!   tool calls contributes nothing (the API refuses empty text blocks), as does any empty text.
//! - `cache_control` breakpoints (at most three of the four allowed): on the system prompt, on
//!   the last block of the previous user turn (where the previous request ended, so its cache
//!   entry is read), and on the last block of the request (written for the next one).

use serde_json::{Map, Value, json};

use crate::domain::Item;
use crate::llm::Request;

/// Value of the `anthropic-version` header.
pub const API_VERSION: &str = "2023-06-01";

/// One message being built.
struct Turn {
    role: &'static str,
    blocks: Vec<Value>,
}

/// The request body for `req`.
pub fn request_body(req: &Request) -> Value {
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("max_tokens".into(), json!(req.max_tokens));
    if let Some(system) = req.system.as_deref().filter(|s| !s.is_empty()) {
        body.insert(
            "system".into(),
            json!([{"type": "text", "text": system, "cache_control": ephemeral()}]),
        );
    }
    body.insert("messages".into(), Value::Array(messages(&req.items)));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(|t| json!({"name": t.name, "description": t.description, "input_schema": t.input_schema}))
            .collect();
        body.insert("tools".into(), Value::Array(tools));
    }
    if req.stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    Value::Object(body)
}

/// The `messages` array for `items`, with cache breakpoints.
pub fn messages(items: &[Item]) -> Vec<Value> {
    let mut turns: Vec<Turn> = Vec::new();
    for item in items {
        match item {
            Item::User { text } => push(&mut turns, "user", text_block(text)),
            Item::System { text } => push(&mut turns, "user", text_block(&reminder(text))),
            Item::Assistant { text, tool_calls } => {
                push(&mut turns, "assistant", text_block(text));
                for call in tool_calls {
                    push(
                        &mut turns,
                        "assistant",
                        Some(
                            json!({"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}),
                        ),
                    );
                }
            }
            Item::ToolResult {
                call_id,
                content,
                is_error,
            } => {
                let mut block =
                    json!({"type": "tool_result", "tool_use_id": call_id, "content": content});
                if *is_error {
                    block["is_error"] = Value::Bool(true);
                }
                push_tool_result(&mut turns, block);
            }
        }
    }
    mark_breakpoints(&mut turns);
    turns
        .into_iter()
        .map(|t| json!({"role": t.role, "content": t.blocks}))
        .collect()
}

/// Wraps a system item's text in `<system-reminder>` unless it already is one.
pub fn reminder(text: &str) -> String {
    let trimmed = text.trim();
    if trimmed.starts_with("<system-reminder>") && trimmed.ends_with("</system-reminder>") {
        text.to_owned()
    } else {
        format!("<system-reminder>\n{text}\n</system-reminder>")
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

fn text_block(text: &str) -> Option<Value> {
    (!text.is_empty()).then(|| json!({"type": "text", "text": text}))
}

fn push(turns: &mut Vec<Turn>, role: &'static str, block: Option<Value>) {
    let Some(block) = block else { return };
    match turns.last_mut() {
        Some(last) if last.role == role => last.blocks.push(block),
        _ => turns.push(Turn {
            role,
            blocks: vec![block],
        }),
    }
}

/// Tool results go first in their user turn, after earlier results, before any text.
fn push_tool_result(turns: &mut Vec<Turn>, block: Value) {
    match turns.last_mut() {
        Some(last) if last.role == "user" => {
            let at = last
                .blocks
                .iter()
                .position(|b| b["type"] != "tool_result")
                .unwrap_or(last.blocks.len());
            last.blocks.insert(at, block);
        }
        _ => turns.push(Turn {
            role: "user",
            blocks: vec![block],
        }),
    }
}

fn mark_breakpoints(turns: &mut [Turn]) {
    let previous_user = turns
        .iter()
        .rposition(|t| t.role == "user")
        .and_then(|last| turns[..last].iter().rposition(|t| t.role == "user"));
    if let Some(i) = previous_user {
        mark_last_block(&mut turns[i]);
    }
    if let Some(last) = turns.last_mut() {
        mark_last_block(last);
    }
}

fn mark_last_block(turn: &mut Turn) {
    if let Some(Value::Object(block)) = turn.blocks.last_mut() {
        block.insert("cache_control".into(), ephemeral());
    }
}

#[cfg(test)]
#[path = "wire_tests.rs"]
mod tests;
