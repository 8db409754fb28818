//! Decoding a recorded SSE stream exactly as a live one is decoded: the same parser, event
//! decoder and accumulation into a [`Response`]. For tests, tools and benchmarks.

use super::anthropic::AnthropicStream;
use super::http::{StreamDecode, decode_chunk};
use super::openai::OpenAiStream;
use super::sse::SseParser;
use super::{LlmError, Response};
use crate::domain::StreamEvent;

/// A streamed wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// Anthropic Messages events.
    Anthropic,
    /// OpenAI Chat Completions chunks.
    OpenAi,
}

/// Decodes the stream made of `chunks`, reporting events to `on_event`.
pub fn replay_stream<'a>(
    wire: Wire,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    on_event: &mut dyn FnMut(&StreamEvent),
) -> Result<Response, LlmError> {
    match wire {
        Wire::Anthropic => drive(AnthropicStream::default(), chunks, on_event),
        Wire::OpenAi => drive(OpenAiStream::default(), chunks, on_event),
    }
}

fn drive<'a, D: StreamDecode>(
    mut decoder: D,
    chunks: impl IntoIterator<Item = &'a [u8]>,
    on_event: &mut dyn FnMut(&StreamEvent),
) -> Result<Response, LlmError> {
    let mut parser = SseParser::new();
    for chunk in chunks {
        if decode_chunk(&mut parser, &mut decoder, chunk, on_event)? {
            return decoder.finish(true);
        }
    }
    decoder.finish(false)
}
