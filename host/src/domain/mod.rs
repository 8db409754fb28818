//! The domain layer, at the bottom of the host: the values a turn is made of and the traits the
//! worker asks of plugins, tools and resolvers. It imports nothing else of the host; every other
//! folder builds on it (see `docs/architecture.md`).
//!
//! - [`Segment`], [`LineRange`]: what a person submits.
//! - [`Item`], [`Source`], [`ToolCall`]: what history holds; [`Entry`] and [`FileShown`]: an
//!   item with what the host records about it.
//! - [`Alert`]: what only the person sees. [`TurnEvent`], [`TurnSink`]: what a front end is
//!   told while a turn runs (one typed event stream); [`StreamEvent`]: what a provider reports
//!   while the model answers.
//! - [`Interceptor`] (with its values), [`Hook`] and [`Event`], [`Resolve`] (with its values),
//!   [`Tool`]: what the worker asks of plugins and tools; [`PluginFailure`]: how a plugin call
//!   fails; [`Approval`]: a person's answer on a tool call that needs it.
//! - [`CallPoint`]: the points where plugins are asked, named once; [`DecidedBy`]: who
//!   settled a tool call.
//! - [`CompactionMarker`], [`CompactionInfo`], [`SUMMARY_PROMPT`]: compaction's values.
//! - [`builtin`]: the built-in tools' names and [`builtin::ToolEffect`]; [`Mode`]: the
//!   permission mode that judges each effect.
//! - [`Usage`]: the tokens a model answer took; [`price`]: what models cost and read.
//! - [`diff`]: the line diff a change is shown with.
//! - [`plan`]: the model's plan (`update_plan`), read back from history, and its reminder rule.
//! - [`defaults`]: the security defaults, written down once. [`escape`]: the one escaping
//!   function for names and plugin-supplied text shown to the model or printed to a terminal.
//! - [`Escalation`]: a `shell` call's request for more than the default sandbox;
//!   [`git_only`]: what a `git` escalation may run.

mod alert;
mod approval;
pub mod block;
pub mod builtin;
pub mod canonical_json;
mod compaction;
pub mod defaults;
pub mod diff;
mod entry;
mod escalation;
mod escalation_git;
pub mod escape;
mod failure;
pub mod file_name;
pub mod file_uri;
pub mod hook_event;
pub mod hook_reply;
pub mod hook_tools;
mod intercept;
mod item;
#[cfg(test)]
pub(crate) mod json_strategy;
pub mod mode;
mod observe;
pub mod plan;
mod point;
pub mod price;
mod provider;
pub mod redact;
mod report;
mod resolve;
pub mod rules;
mod segment;
pub mod shell_split;
mod sink;
mod stream;
mod tool;
pub mod tool_matcher;
mod turn_event;
pub mod usage;

pub use alert::{Alert, AlertLevel};
pub use approval::{Approval, AskWhy};
pub use compaction::{CompactionInfo, CompactionMarker, SUMMARY_PROMPT, SUMMARY_SYSTEM};
pub use entry::{Entry, FileShown};
pub use escalation::{Escalation, EscalationKind};
pub use escalation_git::{git_only, writes_repository};
pub use failure::PluginFailure;
pub use intercept::{
    Interceptor, PromptDecision, RequestInfo, SubmittedPrompt, ToolDecision, TurnContext,
    TurnEndDecision, TurnInfo,
};
pub use item::{Item, Source, ToolCall, UnknownSource};
pub use mode::{Mode, ModeVerdict, UnknownMode};
pub use observe::{Event, Hook};
pub use point::{CallPoint, DecidedBy, UnknownPoint};
pub use provider::ProviderKind;
pub use report::RefReport;
pub use resolve::{EntryKind, FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved};
pub use segment::{LineRange, Segment};
pub use sink::{CollectingSink, TurnSink};
pub use stream::StreamEvent;
pub use tool::{
    DENIED_PREFIX, McpCallFigures, NOT_RUN_PREFIX, Tool, ToolCallAudit, ToolContext, ToolOutput,
    ToolSpec, result_shows_run,
};
pub use turn_event::{ChangeKind, ChangeSummary, FileChange, TurnEvent};
pub use usage::Usage;
