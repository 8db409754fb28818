//! Compaction's values: the [`CompactionMarker`] a history record carries to name the range a
//! summary replaces, what interceptors are told at the `compaction` call point
//! ([`CompactionInfo`]), and the documented prompt that asks the model for the summary.

use serde::{Deserialize, Serialize};

/// The range of history (sequence numbers, inclusive) that one compaction replaces. Carried by
/// the marker record of a compaction group; a request is built from the latest marker onward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CompactionMarker {
    /// First sequence number replaced.
    pub from: u64,
    /// Last sequence number replaced.
    pub to: u64,
}

/// What the `compaction` call point tells interceptors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompactionInfo {
    /// Session id.
    pub session: String,
    /// The range the summary replaces.
    pub replaces: CompactionMarker,
    /// The model's summary.
    pub summary: String,
    /// Paths re-read for the compacted session (deleted or denied ones included).
    pub files: Vec<String>,
}

/// The instruction sent (as the last user item, after the items being compacted) to ask the
/// model for a summary. Documented in `docs/sessions.md`.
pub const SUMMARY_PROMPT: &str = "Summarize the conversation above so that it can replace it. \
Keep: the person's goals and open requests, decisions made and why, facts learned about the \
workspace, work done and work left, and any constraints the person stated. Name files by path; \
do not copy their content (current copies of every referenced file follow the summary). \
Write plain prose and short lists, no preamble.";

/// The system prompt of a summary request.
pub const SUMMARY_SYSTEM: &str = "You write faithful, compact summaries of conversations \
between a person and an assistant working in a workspace.";
