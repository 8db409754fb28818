//! What hooks observe: every [`Event`] of a turn, by value, through the [`Hook`] trait. A hook
//! cannot act on the turn.

use super::alert::Alert;
use super::entry::Entry;
use super::failure::PluginFailure;
use super::intercept::ToolDecision;
use super::item::ToolCall;

/// Everything a hook observes, by value.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// A prompt was submitted (its text).
    PromptSubmitted(String),
    /// A commit group was written.
    ItemsCommitted(Vec<Entry>),
    /// A model request was sent.
    RequestSent {
        /// Items in the request.
        items: u32,
        /// Approximate bytes of the items.
        bytes: u64,
    },
    /// A model answer arrived.
    ResponseReceived {
        /// Answer text.
        text: String,
        /// Tool calls requested.
        tool_calls: u32,
    },
    /// A tool ran.
    ToolRan {
        /// Tool name.
        name: String,
        /// Call id.
        call_id: String,
        /// It failed.
        is_error: bool,
    },
    /// A tool call was allowed, denied or rewritten before it ran (delivered to hooks built
    /// for WIT 0.2.0; 0.1.0 hooks do not receive it).
    ToolDecided {
        /// The call as the model asked for it.
        call: ToolCall,
        /// Who decided: `plugin:<name>`, `approval`, `policy` or `default`.
        by: String,
        /// What was decided.
        decision: ToolDecision,
    },
    /// An alert was raised.
    AlertRaised(Alert),
    /// A notification was committed (its text).
    Notification(String),
    /// The turn ended (why).
    TurnEnded(String),
    /// A compaction group was committed.
    Compacted {
        /// First sequence number replaced.
        from: u64,
        /// Last sequence number replaced.
        to: u64,
        /// Items of the group (marker, summary, files re-read, interceptor items).
        items: u32,
    },
    /// A plugin failed.
    PluginFailed {
        /// Plugin name.
        plugin: String,
        /// What happened.
        message: String,
    },
}

/// A hook (an observer plugin) as the worker sees it.
pub trait Hook {
    /// Configured name.
    fn name(&self) -> &str;
    /// Deliver one event.
    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure>;
    /// A turn starts: per-turn budgets and failure counts start again.
    fn new_turn(&mut self) {}
}
