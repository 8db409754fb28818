//! Anthropic Messages answers → [`Response`]: the streamed event sequence (`message_start`,
//! `content_block_start` / `_delta` / `_stop` with `text_delta` and `input_json_delta`,
//! `message_delta`, `message_stop`, `ping`, `error`) and the whole JSON body.
//!
//! The terminal event is `message_stop`; a stream that ends before it is truncated. Unknown
//! event, block and delta types (thinking, citations …) are skipped.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::domain::{StreamEvent, ToolCall};
use crate::llm::http::{Flow, StreamDecode, parse_arguments};
use crate::llm::sse::SseEvent;
use crate::llm::surrogates::{replaced_in_bytes, replaced_in_str};
use crate::llm::{LlmError, Response, StopReason, Usage};

const PROVIDER: &str = "anthropic";

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Event {
    MessageStart {
        message: MessageStart,
    },
    ContentBlockStart {
        index: usize,
        content_block: BlockStart,
    },
    ContentBlockDelta {
        index: usize,
        delta: Delta,
    },
    ContentBlockStop {
        index: usize,
    },
    MessageDelta {
        delta: MessageDelta,
        #[serde(default)]
        usage: Option<WireUsage>,
    },
    MessageStop,
    Ping,
    Error {
        error: WireError,
    },
    #[serde(other)]
    Unknown,
}

#[derive(Deserialize)]
struct MessageStart {
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BlockStart {
    Text {
        #[serde(default)]
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        #[serde(default)]
        input: Option<serde_json::Value>,
    },
    #[serde(other)]
    Other,
}

#[derive(Deserialize)]
#[serde(rename_all = "snake_case")]
enum DeltaKind {
    TextDelta,
    InputJsonDelta,
    #[serde(other)]
    Other,
}

/// A block delta, read as a plain struct (no tag buffering): it is the hot event.
#[derive(Deserialize)]
struct Delta {
    #[serde(rename = "type")]
    kind: DeltaKind,
    #[serde(default)]
    text: Option<String>,
    #[serde(default)]
    partial_json: Option<String>,
}

#[derive(Deserialize)]
struct DeltaEvent {
    index: usize,
    delta: Delta,
}

#[derive(Deserialize)]
struct MessageDelta {
    #[serde(default)]
    stop_reason: Option<String>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct WireUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
}

impl WireUsage {
    fn merge_into(self, u: &mut Usage) {
        u.input_tokens = self.input_tokens.unwrap_or(u.input_tokens);
        u.output_tokens = self.output_tokens.unwrap_or(u.output_tokens);
        u.cache_read_tokens = self.cache_read_input_tokens.unwrap_or(u.cache_read_tokens);
        u.cache_write_tokens = self
            .cache_creation_input_tokens
            .unwrap_or(u.cache_write_tokens);
    }
}

#[derive(Deserialize)]
struct WireError {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    message: String,
}

enum Block {
    Text,
    Tool {
        id: String,
        name: String,
        json: String,
        /// `input` given whole at the start (used when no deltas follow).
        start_input: Option<serde_json::Value>,
    },
    Other,
}

/// Decoder of one streamed answer.
#[derive(Default)]
pub(crate) struct AnthropicStream {
    text: String,
    open: BTreeMap<usize, Block>,
    calls: Vec<ToolCall>,
    stop_reason: Option<String>,
    usage: Option<Usage>,
    events: usize,
}

impl StreamDecode for AnthropicStream {
    fn event(
        &mut self,
        ev: &SseEvent,
        emit: &mut dyn FnMut(&StreamEvent),
    ) -> Result<Flow, LlmError> {
        self.events += 1;
        if ev.event == "content_block_delta" {
            let d: DeltaEvent =
                serde_json::from_str(&replaced_in_str(&ev.data)).map_err(|e| malformed(ev, &e))?;
            self.delta(d.index, d.delta, emit)?;
            return Ok(Flow::Continue);
        }
        let parsed: Event =
            serde_json::from_str(&replaced_in_str(&ev.data)).map_err(|e| malformed(ev, &e))?;
        match parsed {
            Event::MessageStart { message } => {
                let mut usage = Usage::default();
                message.usage.unwrap_or_default().merge_into(&mut usage);
                self.usage = Some(usage);
            }
            Event::ContentBlockStart {
                index,
                content_block,
            } => {
                let block = match content_block {
                    BlockStart::Text { text } => {
                        self.push_text(text, emit);
                        Block::Text
                    }
                    BlockStart::ToolUse { id, name, input } => {
                        emit(&StreamEvent::ToolCallStarted {
                            id: id.clone(),
                            name: name.clone(),
                        });
                        Block::Tool {
                            id,
                            name,
                            json: String::new(),
                            start_input: input
                                .filter(|v| v.as_object().is_some_and(|o| !o.is_empty())),
                        }
                    }
                    BlockStart::Other => Block::Other,
                };
                self.open.insert(index, block);
            }
            Event::ContentBlockDelta { index, delta } => self.delta(index, delta, emit)?,
            Event::ContentBlockStop { index } => {
                if let Some(Block::Tool {
                    id,
                    name,
                    json,
                    start_input,
                }) = self.open.remove(&index)
                {
                    let parsed = match start_input {
                        Some(input) if json.trim().is_empty() => Ok(input),
                        _ => parse_arguments(&json),
                    };
                    let arguments = parsed.map_err(|e| {
                        stream_error(format!(
                            "input of tool_use block {index} ({name}, {id}) is not JSON: {e}"
                        ))
                    })?;
                    self.calls.push(ToolCall {
                        id,
                        name,
                        arguments,
                    });
                }
            }
            Event::MessageDelta { delta, usage } => {
                if delta.stop_reason.is_some() {
                    self.stop_reason = delta.stop_reason;
                }
                if let Some(u) = usage {
                    u.merge_into(self.usage.get_or_insert_with(Usage::default));
                }
            }
            Event::MessageStop => return Ok(Flow::Done),
            Event::Ping | Event::Unknown => {}
            Event::Error { error } => {
                return Err(LlmError::Provider {
                    provider: PROVIDER,
                    kind: error.kind,
                    message: error.message,
                });
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(self, terminal: bool) -> Result<Response, LlmError> {
        if !terminal {
            return Err(LlmError::TruncatedStream {
                provider: PROVIDER,
                detail: format!(
                    "the connection closed after {} events without message_stop",
                    self.events
                ),
            });
        }
        if let Some(index) = self.open.keys().next() {
            return Err(stream_error(format!(
                "message_stop arrived while block {index} was still open"
            )));
        }
        Ok(Response {
            text: self.text,
            stop_reason: stop_reason(self.stop_reason),
            tool_calls: self.calls,
            usage: self.usage,
        })
    }
}

impl AnthropicStream {
    fn delta(
        &mut self,
        index: usize,
        delta: Delta,
        emit: &mut dyn FnMut(&StreamEvent),
    ) -> Result<(), LlmError> {
        match (self.open.get_mut(&index), delta.kind) {
            (Some(Block::Text), DeltaKind::TextDelta) => {
                self.push_text(delta.text.unwrap_or_default(), emit);
            }
            (Some(Block::Tool { id, json, .. }), DeltaKind::InputJsonDelta) => {
                let partial = delta.partial_json.unwrap_or_default();
                json.push_str(&partial);
                emit(&StreamEvent::ToolCallArgumentsDelta {
                    id: id.clone(),
                    delta: partial,
                });
            }
            (Some(_), _) => {}
            (None, _) => {
                return Err(stream_error(format!(
                    "content_block_delta for block {index}, which was never started"
                )));
            }
        }
        Ok(())
    }

    fn push_text(&mut self, text: String, emit: &mut dyn FnMut(&StreamEvent)) {
        if !text.is_empty() {
            self.text.push_str(&text);
            emit(&StreamEvent::TextDelta(text));
        }
    }
}

#[derive(Deserialize)]
struct Body {
    content: Vec<BodyBlock>,
    #[serde(default)]
    stop_reason: Option<String>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum BodyBlock {
    Text {
        text: String,
    },
    ToolUse {
        id: String,
        name: String,
        input: serde_json::Value,
    },
    #[serde(other)]
    Other,
}

/// Decodes a whole Messages response body.
pub(crate) fn decode_body(body: &[u8]) -> Result<Response, LlmError> {
    let body: Body = serde_json::from_slice(&replaced_in_bytes(body)).map_err(|e| {
        LlmError::MalformedResponse {
            provider: PROVIDER,
            detail: format!("the body is not a Messages response: {e}"),
        }
    })?;
    let mut response = Response {
        text: String::new(),
        tool_calls: Vec::new(),
        stop_reason: stop_reason(body.stop_reason),
        usage: body.usage.map(|w| {
            let mut u = Usage::default();
            w.merge_into(&mut u);
            u
        }),
    };
    for block in body.content {
        match block {
            BodyBlock::Text { text } => response.text.push_str(&text),
            BodyBlock::ToolUse { id, name, input } => response.tool_calls.push(ToolCall {
                id,
                name,
                arguments: input,
            }),
            BodyBlock::Other => {}
        }
    }
    Ok(response)
}

fn stop_reason(s: Option<String>) -> StopReason {
    match s.as_deref() {
        Some("end_turn") => StopReason::EndTurn,
        Some("tool_use") => StopReason::ToolUse,
        Some("max_tokens") => StopReason::MaxTokens,
        Some("stop_sequence") => StopReason::StopSequence,
        Some(other) => StopReason::Other(other.to_owned()),
        None => StopReason::Other("unknown".to_owned()),
    }
}

fn malformed(ev: &SseEvent, e: &serde_json::Error) -> LlmError {
    let name = if ev.event.is_empty() {
        "unnamed"
    } else {
        &ev.event
    };
    stream_error(format!(
        "data of the {name} event is not a valid event: {e}"
    ))
}

fn stream_error(detail: String) -> LlmError {
    LlmError::MalformedStream {
        provider: PROVIDER,
        detail,
    }
}

#[cfg(test)]
#[path = "decode_tests.rs"]
mod tests;
