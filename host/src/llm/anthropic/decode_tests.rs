use pretty_assertions::assert_eq;
use serde_json::json;

use crate::domain::{StreamEvent, ToolCall};
use crate::llm::{LlmError, Response, StopReason, Usage, Wire, replay_stream};

const STREAM: &str = "event: message_start\n\
data: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"content\":[],\"model\":\"m\",\"stop_reason\":null,\"usage\":{\"input_tokens\":12,\"cache_read_input_tokens\":100,\"cache_creation_input_tokens\":7,\"output_tokens\":1}}}\n\n\
event: ping\ndata: {\"type\": \"ping\"}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Let me \"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"look.\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"read_file\",\"input\":{}}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"path\\\": \"}}\n\n\
event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"\\\"a.rs\\\"}\"}}\n\n\
event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}\n\n\
event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":30}}\n\n\
event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n";

fn expected() -> Response {
    Response {
        text: "Let me look.".into(),
        tool_calls: vec![ToolCall {
            id: "toolu_1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.rs"}),
        }],
        stop_reason: StopReason::ToolUse,
        usage: Some(Usage {
            input_tokens: 12,
            output_tokens: 30,
            cache_read_tokens: 100,
            cache_write_tokens: 7,
        }),
    }
}

fn replay(text: &str) -> (Result<Response, LlmError>, Vec<StreamEvent>) {
    let mut events = Vec::new();
    let r = replay_stream(Wire::Anthropic, [text.as_bytes()], &mut |e| {
        events.push(e.clone())
    });
    (r, events)
}

#[test]
fn stream_decodes_text_tool_use_and_usage() {
    let (r, events) = replay(STREAM);
    assert_eq!(r.ok(), Some(expected()));
    assert_eq!(
        events,
        vec![
            StreamEvent::TextDelta("Let me ".into()),
            StreamEvent::TextDelta("look.".into()),
            StreamEvent::ToolCallStarted {
                id: "toolu_1".into(),
                name: "read_file".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                id: "toolu_1".into(),
                delta: "{\"path\": ".into()
            },
            StreamEvent::ToolCallArgumentsDelta {
                id: "toolu_1".into(),
                delta: "\"a.rs\"}".into()
            },
        ]
    );
}

#[test]
fn byte_by_byte_chunks_decode_the_same() {
    let bytes = STREAM.as_bytes();
    let r = replay_stream(Wire::Anthropic, bytes.chunks(1), &mut |_| {});
    assert_eq!(r.ok(), Some(expected()));
}

#[test]
fn stream_without_message_stop_is_truncated() {
    let cut = STREAM.find("event: message_delta").unwrap_or(0);
    let (r, _) = replay(&STREAM[..cut]);
    let err = r.err().map(|e| (e.is_retryable(), e.to_string()));
    assert_eq!(
        err,
        Some((
            true,
            "anthropic: stream ended early: the connection closed after 10 events without message_stop".into()
        ))
    );
}

#[test]
fn malformed_event_names_what_was_wrong() {
    let (r, _) = replay(
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\n\n",
    );
    let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.starts_with("anthropic: malformed stream: data of the content_block_delta event is not a valid event: EOF"),
        "{msg}"
    );
    let (r, _) = replay(
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"n\"}}\n\n\
         event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{oops\"}}\n\n\
         event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n",
    );
    let msg = r.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        msg.contains("input of tool_use block 0 (n, t) is not JSON"),
        "{msg}"
    );
}

#[test]
fn error_event_is_a_provider_error() {
    let (r, _) = replay(
        "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n",
    );
    let err = r.err();
    assert_eq!(
        err.as_ref().map(|e| e.to_string()),
        Some("anthropic: overloaded_error: Overloaded".into())
    );
    assert!(err.is_some_and(|e| e.is_retryable()));
}

#[test]
fn whole_body_decodes() {
    let body = json!({
        "id": "msg_1", "type": "message", "role": "assistant", "model": "m",
        "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.rs"}},
        ],
        "stop_reason": "tool_use",
        "usage": {"input_tokens": 12, "output_tokens": 30, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 7},
    });
    let r = super::decode_body(body.to_string().as_bytes());
    assert_eq!(r.ok(), Some(expected()));
    let bad = super::decode_body(b"{\"content\": 3}")
        .err()
        .map(|e| e.to_string());
    assert!(bad.is_some_and(|m| {
        m.starts_with("anthropic: malformed response: the body is not a Messages response")
    }));
}

#[test]
fn tool_input_given_whole_at_the_start_is_kept() {
    let (r, _) = replay(
        "event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"tool_use\",\"id\":\"t\",\"name\":\"list_files\",\"input\":{\"path\":\".\"}}}\n\n\
         event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n\
         event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n",
    );
    let calls = r.map(|r| r.tool_calls).unwrap_or_default();
    assert_eq!(
        calls.first().map(|c| c.arguments.clone()),
        Some(json!({"path": "."}))
    );
}
