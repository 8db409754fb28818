//! OpenAI Chat Completions answers → [`Response`]: streamed chunks (`choices[0].delta` with
//! `content` and `tool_calls` deltas by index, a final usage chunk, `[DONE]`) and whole bodies.
//!
//! The terminal event is `data: [DONE]`. Some compatible servers close the stream after the
//! chunk carrying `finish_reason` without sending `[DONE]`; that is accepted as complete. A
//! stream that ends before either is truncated.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::domain::{StreamEvent, ToolCall};
use crate::llm::http::{Flow, StreamDecode, parse_arguments};
use crate::llm::sse::SseEvent;
use crate::llm::surrogates::{replaced_in_bytes, replaced_in_str};
use crate::llm::{LlmError, Response, StopReason, Usage};

const PROVIDER: &str = "openai";

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<ChunkChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
    #[serde(default)]
    error: Option<WireError>,
}

#[derive(Deserialize)]
struct ChunkChoice {
    #[serde(default)]
    index: u32,
    #[serde(default)]
    delta: Option<ChunkDelta>,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct ChunkDelta {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<CallDelta>,
}

#[derive(Deserialize)]
struct CallDelta {
    #[serde(default)]
    index: usize,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Deserialize, Clone, Copy)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    #[serde(default)]
    prompt_tokens_details: Option<PromptDetails>,
}

#[derive(Deserialize, Clone, Copy)]
struct PromptDetails {
    #[serde(default)]
    cached_tokens: u64,
}

impl From<WireUsage> for Usage {
    fn from(w: WireUsage) -> Self {
        // `prompt_tokens` counts the cached ones too: they are kept apart here, as Anthropic
        // reports them, so that the four counts never overlap.
        let cached = w.prompt_tokens_details.map_or(0, |d| d.cached_tokens);
        Usage {
            input_tokens: w.prompt_tokens.saturating_sub(cached),
            output_tokens: w.completion_tokens,
            cache_read_tokens: cached.min(w.prompt_tokens),
            cache_write_tokens: 0,
        }
    }
}

#[derive(Deserialize)]
struct WireError {
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    message: String,
}

struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Decoder of one streamed answer.
#[derive(Default)]
pub(crate) struct OpenAiStream {
    text: String,
    calls: BTreeMap<usize, PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    events: usize,
}

impl StreamDecode for OpenAiStream {
    fn event(
        &mut self,
        ev: &SseEvent,
        emit: &mut dyn FnMut(&StreamEvent),
    ) -> Result<Flow, LlmError> {
        self.events += 1;
        if ev.data.trim() == "[DONE]" {
            return Ok(Flow::Done);
        }
        let chunk: Chunk = serde_json::from_str(&replaced_in_str(&ev.data)).map_err(|e| {
            stream_error(format!(
                "chunk {} is not a chat.completion.chunk: {e}",
                self.events
            ))
        })?;
        if let Some(error) = chunk.error {
            return Err(LlmError::Provider {
                provider: PROVIDER,
                kind: error.kind.unwrap_or_else(|| "error".into()),
                message: error.message,
            });
        }
        if let Some(usage) = chunk.usage {
            self.usage = Some(usage.into());
        }
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if let Some(delta) = choice.delta {
                self.delta(delta, emit);
            }
            if choice.finish_reason.is_some() {
                self.finish_reason = choice.finish_reason;
            }
        }
        Ok(Flow::Continue)
    }

    fn finish(self, terminal: bool) -> Result<Response, LlmError> {
        if !terminal && self.finish_reason.is_none() {
            return Err(LlmError::TruncatedStream {
                provider: PROVIDER,
                detail: format!(
                    "the connection closed after {} events without finish_reason or [DONE]",
                    self.events
                ),
            });
        }
        let mut tool_calls = Vec::with_capacity(self.calls.len());
        for (index, call) in self.calls {
            let arguments = parse_arguments(&call.arguments).map_err(|e| {
                stream_error(format!(
                    "arguments of tool call {index} ({}, {}) are not JSON: {e}",
                    call.name, call.id
                ))
            })?;
            tool_calls.push(ToolCall {
                id: call.id,
                name: call.name,
                arguments,
            });
        }
        Ok(Response {
            text: self.text,
            tool_calls,
            stop_reason: finish_reason(self.finish_reason),
            usage: self.usage,
        })
    }
}

impl OpenAiStream {
    fn delta(&mut self, delta: ChunkDelta, emit: &mut dyn FnMut(&StreamEvent)) {
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            self.text.push_str(&text);
            emit(&StreamEvent::TextDelta(text));
        }
        for call in delta.tool_calls {
            let function = call.function.unwrap_or(FunctionDelta {
                name: None,
                arguments: None,
            });
            let entry = self.calls.entry(call.index).or_insert_with(|| {
                let id = call.id.unwrap_or_else(|| format!("call_{}", call.index));
                let name = function.name.clone().unwrap_or_default();
                emit(&StreamEvent::ToolCallStarted {
                    id: id.clone(),
                    name: name.clone(),
                });
                PartialCall {
                    id,
                    name,
                    arguments: String::new(),
                }
            });
            if let Some(args) = function.arguments.filter(|a| !a.is_empty()) {
                entry.arguments.push_str(&args);
                emit(&StreamEvent::ToolCallArgumentsDelta {
                    id: entry.id.clone(),
                    delta: args,
                });
            }
        }
    }
}

#[derive(Deserialize)]
struct Body {
    choices: Vec<BodyChoice>,
    #[serde(default)]
    usage: Option<WireUsage>,
}

#[derive(Deserialize)]
struct BodyChoice {
    message: BodyMessage,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Deserialize)]
struct BodyMessage {
    #[serde(default)]
    content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<BodyCall>,
}

#[derive(Deserialize)]
struct BodyCall {
    id: String,
    function: BodyFunction,
}

#[derive(Deserialize)]
struct BodyFunction {
    name: String,
    #[serde(default)]
    arguments: String,
}

/// Decodes a whole Chat Completions response body.
pub(crate) fn decode_body(body: &[u8]) -> Result<Response, LlmError> {
    let malformed = |detail: String| LlmError::MalformedResponse {
        provider: PROVIDER,
        detail,
    };
    let body: Body = serde_json::from_slice(&replaced_in_bytes(body))
        .map_err(|e| malformed(format!("the body is not a chat completion: {e}")))?;
    let Some(choice) = body.choices.into_iter().next() else {
        return Err(malformed("the completion has no choices".into()));
    };
    let mut tool_calls = Vec::new();
    for call in choice.message.tool_calls {
        let arguments = parse_arguments(&call.function.arguments).map_err(|e| {
            malformed(format!(
                "arguments of tool call {} ({}) are not JSON: {e}",
                call.id, call.function.name
            ))
        })?;
        tool_calls.push(ToolCall {
            id: call.id,
            name: call.function.name,
            arguments,
        });
    }
    Ok(Response {
        text: choice.message.content.unwrap_or_default(),
        tool_calls,
        stop_reason: finish_reason(choice.finish_reason),
        usage: body.usage.map(Usage::from),
    })
}

fn finish_reason(s: Option<String>) -> StopReason {
    match s.as_deref() {
        Some("stop") => StopReason::EndTurn,
        Some("tool_calls" | "function_call") => StopReason::ToolUse,
        Some("length") => StopReason::MaxTokens,
        Some(other) => StopReason::Other(other.to_owned()),
        None => StopReason::Other("unknown".to_owned()),
    }
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
