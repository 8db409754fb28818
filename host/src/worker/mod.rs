//! The worker: domain types and the turn loop.

mod item;
mod plugin_api;

pub use item::{Alert, AlertLevel, Item, LineRange, Segment, Source, ToolCall};
pub use plugin_api::{
    Event, Hook, Interceptor, PromptDecision, RequestInfo, SubmittedPrompt, TurnEndDecision,
    TurnInfo,
};
