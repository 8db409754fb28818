//! Model providers: the [`Provider`] contract the worker calls, and its implementations —
//! [`echo`] (offline, deterministic), Anthropic Messages ([`anthropic`]) and OpenAI-compatible
//! Chat Completions ([`openai`]).
//!
//! - [`Request`] is built from history alone; each provider turns [`Item`]s into its wire format
//!   so that an append-only history yields requests whose messages extend the previous
//!   request's messages exactly (provider prompt caches hit).
//! - [`Provider::complete`] is synchronous: HTTP providers own a current-thread tokio runtime
//!   and block on the request. Every piece of the answer is reported to `on_event` as it
//!   arrives (streamed or not); the [`Response`] is returned only when the answer is complete.
//!   A failed or cancelled request never yields a `Response`, so no half-written assistant item
//!   can be committed.
//! - Failures are [`LlmError`]s; [`LlmError::is_retryable`] is the retry policy, applied by the
//!   providers themselves with backoff ([`RetryPolicy`]).
//!
//! Modules: [`sse`] (server-sent events parser), `http` (transport, retries, cancellation),
//! `retry`, `error`, `cancel`, [`echo`], [`anthropic`], [`openai`], `settings` ([`ProviderSettings`] →
//! a provider), `replay` (decoding recorded streams).

pub mod anthropic;
mod cancel;
pub mod echo;
mod error;
mod http;
pub mod openai;
mod replay;
mod retry;
mod settings;
pub mod sse;
mod surrogates;

use serde::{Deserialize, Serialize};

pub use crate::domain::Usage;
use crate::domain::{Item, StreamEvent, ToolCall, ToolSpec};
pub use cancel::CancelToken;
pub use error::LlmError;
pub use replay::{Wire, replay_stream};
pub use retry::{MAX_HONOURED_WAIT, RetryPolicy};
pub use settings::{ProviderSettings, default_model};

/// One model request, built from history alone.
#[derive(Debug, Clone, PartialEq)]
pub struct Request {
    /// Model name as the provider knows it (usually [`Provider::model`]).
    pub model: String,
    /// System prompt, sent apart from history.
    pub system: Option<String>,
    /// The whole history, oldest first.
    pub items: Vec<Item>,
    /// Tools offered to the model.
    pub tools: Vec<ToolSpec>,
    /// Cap on answer tokens.
    pub max_tokens: u32,
    /// Ask the provider to stream the answer.
    pub stream: bool,
}

/// Why the model stopped.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The answer is complete.
    EndTurn,
    /// The model wants tool results.
    ToolUse,
    /// `max_tokens` was reached.
    MaxTokens,
    /// A stop sequence was produced.
    StopSequence,
    /// Anything else the provider said, verbatim.
    Other(String),
}

/// A complete answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    /// Answer text (all text blocks, concatenated).
    pub text: String,
    /// Tool calls, in the order the model made them.
    pub tool_calls: Vec<ToolCall>,
    /// Why the model stopped.
    pub stop_reason: StopReason,
    /// Token counts, when the provider reported them.
    pub usage: Option<Usage>,
}

impl Response {
    /// The assistant item to commit for this answer.
    pub fn to_item(&self) -> Item {
        Item::Assistant {
            text: self.text.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}

/// A model provider.
pub trait Provider: Send {
    /// `echo`, `anthropic` or `openai`.
    fn name(&self) -> &str;

    /// The model requests go to by default.
    fn model(&self) -> &str;

    /// Sends `req` and blocks until the answer is complete, reporting pieces to `on_event` as
    /// they arrive. Retryable failures are retried per the provider's [`RetryPolicy`] while no
    /// answer content has been reported; once content has been reported, a failure ends the
    /// request. `cancel` stops it at once with [`LlmError::Cancelled`] (a Ctrl-C handler calls
    /// [`CancelToken::cancel`] from its own thread).
    ///
    /// HTTP providers block on their own runtime: call this from a plain thread, not from
    /// inside an async task.
    fn complete(
        &mut self,
        req: &Request,
        on_event: &mut dyn FnMut(&StreamEvent),
        cancel: &CancelToken,
    ) -> Result<Response, LlmError>;
}
