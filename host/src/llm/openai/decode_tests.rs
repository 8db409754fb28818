use pretty_assertions::assert_eq;
use serde_json::json;

use crate::domain::{StreamEvent, ToolCall};
use crate::llm::{LlmError, Response, StopReason, Usage, Wire, replay_stream};

const STREAM: &str = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"\"},\"finish_reason\":null}],\"usage\":null}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Let me \"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"look.\"},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read_file\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\":\"}}]},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\\\"a.rs\\\"}\"}}]},\"finish_reason\":null}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\n\
data: {\"id\":\"c1\",\"choices\":[],\"usage\":{\"prompt_tokens\":20,\"completion_tokens\":9,\"prompt_tokens_details\":{\"cached_tokens\":16}}}\n\n\
data: [DONE]\n\n";

fn expected() -> Response {
    Response {
        text: "Let me look.".into(),
        tool_calls: vec![ToolCall {
            id: "call_1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.rs"}),
        }],
        stop_reason: StopReason::ToolUse,
        // 20 prompt tokens of which 16 were cached.
        usage: Some(Usage {
            input_tokens: 4,
            output_tokens: 9,
            cache_read_tokens: 16,
            cache_write_tokens: 0,
        }),
    }
}

fn replay(text: &str) -> (Result<Response, LlmError>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let r = replay_stream(Wire::OpenAi, [text.as_bytes()], &mut |e| {
        events.push(e.clone())
    });
    (r, events)
}

#[test]
fn stream_decodes_content_tool_calls_and_usage() {
    let (r, events) = replay(STREAM);
    assert_eq!(r.ok(), Some(expected()));
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Let me ".into()),
            StreamEvent::TextDelta("look.".into()),
            StreamEvent::ToolCallStarted {
                id: "call_1".into(),
                name: "read_file".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                id: "call_1".into(),
                delta: "{\"path\":".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                id: "call_1".into(),
                delta: "\"a.rs\"}".into()
            },
        ]
    );
    let bytes = STREAM.as_bytes();
    let r = replay_stream(Wire::OpenAi, bytes.chunks(3), &mut |_| {});
    assert_eq!(r.ok(), Some(expected()));
}

#[test]
fn truncation_before_finish_reason_is_an_error_after_it_is_not() {
    let cut = STREAM
        .find("data: {\"id\":\"c1\",\"choices\":[{\"index\":0,\"delta\":{},")
        .unwrap_or(0);
    let (r, _) = replay(&STREAM[..cut]);
    assert_eq!(
        r.err().map(|e| e.to_string()),
        Some("openai: stream ended early: the connection closed after 6 events without finish_reason or [DONE]".into())
    );
    let cut = STREAM.find("data: [DONE]").unwrap_or(0);
    let (r, _) = replay(&STREAM[..cut]);
    assert_eq!(r.ok(), Some(expected()));
}

#[test]
fn malformed_chunk_and_error_chunk() {
    let (r, _) = replay(
        "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"}}]}\n\ndata: {nope\n\n",
    );
    let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.starts_with(
            "openai: malformed stream: chunk 2 is not a chat.completion.chunk: key must be a string"
        ),
        "{msg}"
    );
    let (r, _) = replay(
        "data: {\"error\":{\"message\":\"model overloaded\",\"type\":\"server_error\"}}\n\n",
    );
    let err = r.err();
    assert_eq!(
        err.as_ref().map(|e| e.to_string()),
        Some("openai: server_error: model overloaded".into())
    );
    assert!(err.is_some_and(|e| e.is_retryable()));
}

#[test]
fn whole_body_decodes() {
    let body = json!({
        "id": "c1", "object": "chat.completion",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": "Let me look.",
            "tool_calls": [{"id": "call_1", "type": "function",
                            "function": {"name": "read_file", "arguments": "{\"path\":\"a.rs\"}"}}]}}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 16}},
    });
    assert_eq!(
        super::decode_body(body.to_string().as_bytes()).ok(),
        Some(expected())
    );
    let none = super::decode_body(b"{\"choices\": []}")
        .err()
        .map(|e| e.to_string());
    assert_eq!(
        none,
        Some("openai: malformed response: the completion has no choices".into())
    );
}
