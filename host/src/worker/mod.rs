//! The worker: domain types and the turn loop with its commit rules.
//!
//! - [`Item`], [`Segment`], [`Source`], [`Alert`]: the domain model.
//! - [`Interceptor`], [`Hook`] and their values: what the worker asks of plugins.
//! - [`Worker`]: one session's turns ([`Worker::submit`]); [`setup`] assembles one from
//!   configuration.
//! - [`preview`]: what a prompt would commit, without a model call or a write.
//! - [`replay`]: what one plugin would decide on a recorded session, beside the chain then.

mod chain;
mod error;
mod hooks;
mod item;
mod plugin_api;
pub mod preview;
pub mod replay;
pub mod setup;
mod sink;
mod turn;
mod validate;

pub use chain::ChainEntry;
pub use error::WorkerError;
pub use hooks::Hooks;
pub use item::{Alert, AlertLevel, Item, LineRange, Segment, Source, ToolCall, UnknownSource};
pub use plugin_api::{
    Event, Hook, Interceptor, PromptDecision, RequestInfo, SubmittedPrompt, TurnEndDecision,
    TurnInfo,
};
pub use sink::{CollectingSink, TurnSink};
pub use turn::{DEFAULT_SYSTEM_PROMPT, TurnOutcome, Worker, WorkerParts};
