//! Renders a scripted [`Answer`] in each wire format: a whole JSON body, or the list of SSE
//! events a real server would stream.

use serde_json::{Value, json};

use super::script::Answer;

/// Which API a request was made to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// `POST /v1/messages`.
    Anthropic,
    /// `POST /v1/chat/completions`.
    OpenAi,
}

/// Input tokens reported in usage.
pub const INPUT_TOKENS: u64 = 11;
/// Output tokens reported in usage.
pub const OUTPUT_TOKENS: u64 = 7;

/// The non-streamed body for `answer`.
pub fn body(format: Format, answer: &Answer, model: &str) -> Value {
    match format {
        Format::Anthropic => {
            let mut content = Vec::new();
            if !answer.text.is_empty() {
                content.push(json!({"type": "text", "text": answer.text}));
            }
            for c in &answer.tool_calls {
                content.push(
                    json!({"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}),
                );
            }
            json!({
                "id": "msg_mock", "type": "message", "role": "assistant", "model": model,
                "content": content, "stop_reason": anthropic_stop(answer), "stop_sequence": null,
                "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": OUTPUT_TOKENS},
            })
        }
        Format::OpenAi => {
            let mut message = json!({"role": "assistant", "content": answer.text});
            if !answer.tool_calls.is_empty() {
                message["tool_calls"] = answer
                    .tool_calls
                    .iter()
                    .map(|c| {
                        json!({"id": c.id, "type": "function",
                        "function": {"name": c.name, "arguments": c.arguments.to_string()}})
                    })
                    .collect();
            }
            json!({
                "id": "chatcmpl-mock", "object": "chat.completion", "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": openai_finish(answer)}],
                "usage": {"prompt_tokens": INPUT_TOKENS, "completion_tokens": OUTPUT_TOKENS,
                          "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS},
            })
        }
    }
}

/// The SSE events streaming `answer`, each a complete event ending in a blank line.
pub fn events(format: Format, answer: &Answer, model: &str) -> Vec<String> {
    match format {
        Format::Anthropic => anthropic_events(answer, model),
        Format::OpenAi => openai_events(answer, model),
    }
}

fn anthropic_events(answer: &Answer, model: &str) -> Vec<String> {
    let ev = |name: &str, data: Value| format!("event: {name}\ndata: {data}\n\n");
    let mut out = vec![
        ev(
            "message_start",
            json!({"type": "message_start", "message": {
            "id": "msg_mock", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": null, "stop_sequence": null,
            "usage": {"input_tokens": INPUT_TOKENS, "output_tokens": 1}}}),
        ),
        ev("ping", json!({"type": "ping"})),
    ];
    let mut index = 0;
    if !answer.text.is_empty() {
        out.push(ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "text", "text": ""}}),
        ));
        for piece in words(&answer.text) {
            out.push(ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "text_delta", "text": piece}}),
            ));
        }
        out.push(ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    for c in &answer.tool_calls {
        out.push(ev(
            "content_block_start",
            json!({"type": "content_block_start", "index": index,
            "content_block": {"type": "tool_use", "id": c.id, "name": c.name, "input": {}}}),
        ));
        for half in halves(&c.arguments.to_string()) {
            out.push(ev(
                "content_block_delta",
                json!({"type": "content_block_delta", "index": index,
                "delta": {"type": "input_json_delta", "partial_json": half}}),
            ));
        }
        out.push(ev(
            "content_block_stop",
            json!({"type": "content_block_stop", "index": index}),
        ));
        index += 1;
    }
    out.push(ev(
        "message_delta",
        json!({"type": "message_delta",
        "delta": {"stop_reason": anthropic_stop(answer), "stop_sequence": null},
        "usage": {"output_tokens": OUTPUT_TOKENS}}),
    ));
    out.push(ev("message_stop", json!({"type": "message_stop"})));
    out
}

fn openai_events(answer: &Answer, model: &str) -> Vec<String> {
    let chunk = |delta: Value, finish: Value| {
        let data = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]});
        format!("data: {data}\n\n")
    };
    let mut out = vec![chunk(
        json!({"role": "assistant", "content": ""}),
        Value::Null,
    )];
    for piece in words(&answer.text) {
        out.push(chunk(json!({"content": piece}), Value::Null));
    }
    for (i, c) in answer.tool_calls.iter().enumerate() {
        out.push(chunk(
            json!({"tool_calls": [{"index": i, "id": c.id, "type": "function",
                "function": {"name": c.name, "arguments": ""}}]}),
            Value::Null,
        ));
        for half in halves(&c.arguments.to_string()) {
            out.push(chunk(
                json!({"tool_calls": [{"index": i, "function": {"arguments": half}}]}),
                Value::Null,
            ));
        }
    }
    out.push(chunk(json!({}), json!(openai_finish(answer))));
    let usage = json!({"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": model,
        "choices": [], "usage": {"prompt_tokens": INPUT_TOKENS, "completion_tokens": OUTPUT_TOKENS,
        "total_tokens": INPUT_TOKENS + OUTPUT_TOKENS}});
    out.push(format!("data: {usage}\n\n"));
    out.push("data: [DONE]\n\n".to_owned());
    out
}

fn anthropic_stop(answer: &Answer) -> &'static str {
    if answer.tool_calls.is_empty() {
        "end_turn"
    } else {
        "tool_use"
    }
}

fn openai_finish(answer: &Answer) -> &'static str {
    if answer.tool_calls.is_empty() {
        "stop"
    } else {
        "tool_calls"
    }
}

/// Words with their trailing spaces: `"a b"` → `["a ", "b"]`.
pub fn words(text: &str) -> Vec<&str> {
    text.split_inclusive(' ').collect()
}

fn halves(s: &str) -> [&str; 2] {
    let mut mid = s.len() / 2;
    while !s.is_char_boundary(mid) {
        mid += 1;
    }
    [&s[..mid], &s[mid..]]
}
