//! What a turn tells the outside: one typed [`TurnEvent`] per thing that happened, emitted once
//! by the worker. Every front end (`chat`, `run`, `mcp serve`, `run --json-stream`) renders or
//! serialises the same events; the JSON lines of `--json-stream` are these values serialised
//! (`{"type":"tool_call_ran",…}`, see `docs/events.md`).

use serde::Serialize;

use super::alert::Alert;
use super::builtin::ToolEffect;
use super::file_name;
use super::item::{Item, ToolCall};
use super::plan::PlanStep;
use super::report::RefReport;
use super::usage::Usage;

/// One thing a running turn reports. New kinds may be added: a reader skips the `type`s it
/// does not know.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TurnEvent {
    /// A turn starts in `session`.
    TurnStarted {
        /// The session id.
        session: String,
    },
    /// An alert for the person (never sent to the model).
    Alert(Alert),
    /// A piece of answer text, as it streams.
    TextDelta {
        /// The piece.
        text: String,
    },
    /// A model request's attempt starts; `left_ms` is what is left of its wait budget.
    Waiting {
        /// Provider name (`openai`).
        provider: String,
        /// Attempt number, from 1.
        attempt: u32,
        /// Most attempts the retry policy allows.
        attempts: u32,
        /// Milliseconds left of the wait budget.
        left_ms: u64,
    },
    /// The previous attempt failed with a retryable error; it is sent again after `delay_ms`.
    Retrying {
        /// Retry number, from 1.
        attempt: u32,
        /// Milliseconds before the retry.
        delay_ms: u64,
        /// What failed.
        reason: String,
    },
    /// The prompt's `@` references, as resolved (one report per mention).
    FilesAttached {
        /// The reports.
        refs: Vec<RefReport>,
    },
    /// An item was committed to the session's history.
    ItemCommitted {
        /// Its sequence number in the session.
        seq: u64,
        /// Who it comes from (`user`, `model`, `tool`, `plugin:<name>`, …).
        source: String,
        /// The item.
        item: Item,
    },
    /// The tokens a model answer took, as its provider reported them (after the answer's
    /// `item_committed`; absent when the provider reported none).
    Usage(Usage),
    /// The model asked for a tool call.
    ToolCallRequested {
        /// The call as the model asked for it.
        call: ToolCall,
    },
    /// The call was allowed or denied, and by whom.
    ToolCallDecided {
        /// The call (with the arguments that run, or that were asked for when denied).
        call: ToolCall,
        /// What the call may do (`read`, `write`, `shell`).
        effect: ToolEffect,
        /// True when it may run.
        allowed: bool,
        /// Who decided: `plugin:<name>`, `approval`, `mode`, `policy` or `default`.
        by: String,
        /// Why it was denied (`None` when allowed).
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// An allowed call starts running (with the arguments the tool receives).
    ToolCallStarted {
        /// The call as run.
        call: ToolCall,
    },
    /// An allowed call ran.
    ToolCallRan {
        /// The call as run.
        call: ToolCall,
        /// The result is an error.
        is_error: bool,
        /// The command's exit status (a `shell` call; 128 + the signal when one killed it).
        #[serde(skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        /// The result the model sees.
        output: String,
    },
    /// An `update_plan` call set the model's plan (after the call's `tool_call_ran`).
    PlanUpdated {
        /// The call that set it.
        call_id: String,
        /// Every step, in order.
        steps: Vec<PlanStep>,
        /// Why the plan changed, when the model said.
        #[serde(skip_serializing_if = "Option::is_none")]
        explanation: Option<String>,
    },
    /// A call changed a file in the workspace.
    FileChanged(FileChange),
    /// The turn ended.
    TurnEnded {
        /// `answered`, `cancelled`, `stopped`, `interrupted` or `failed`.
        outcome: String,
        /// Why, when it did not end with an answer.
        #[serde(skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// Every file the turn changed, once each, in the order first changed, with the lines
        /// added and removed between its content before the turn and after it.
        changes: Vec<ChangeSummary>,
    },
}

impl TurnEvent {
    /// The `tool_call_ran` event's verdict for the person: it failed when its result is an
    /// error or its command exited non-zero.
    pub fn ran_failed(is_error: bool, exit_code: Option<i32>) -> bool {
        is_error || exit_code.is_some_and(|code| code != 0)
    }
}

/// One file changed by one call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileChange {
    /// The call that changed it.
    pub call_id: String,
    /// The tool (`write_file`, `edit_file`, `shell`).
    pub tool: String,
    /// The path, relative to the workspace (a name that is not UTF-8 with U+FFFD for each
    /// invalid byte; see [`file_name`]).
    pub path: String,
    /// The name's exact bytes in hex, present only when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<String>,
    /// `created`, `modified` or `deleted`.
    pub kind: ChangeKind,
    /// Lines added.
    pub added: u64,
    /// Lines removed.
    pub removed: u64,
    /// The change as a unified diff (`@@` hunks, `+`/`-`/` ` lines); empty when either side
    /// is binary or too large to compare.
    pub diff: String,
    /// The diff was cut (a very large change); `added` and `removed` still count all of it.
    pub diff_cut: bool,
}

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// It did not exist before.
    Created,
    /// Its content changed.
    Modified,
    /// It no longer exists.
    Deleted,
}

impl FileChange {
    /// The path for a person or the model, escaped (bytes that are not UTF-8 as `\xNN`).
    pub fn shown(&self) -> String {
        file_name::shown_fields(&self.path, self.path_hex.as_deref())
    }
}

/// One file's changes over a turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ChangeSummary {
    /// The path, relative to the workspace (as in [`FileChange::path`]).
    pub path: String,
    /// The name's exact bytes in hex, present only when it is not UTF-8.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<String>,
    /// Lines added over the turn.
    pub added: u64,
    /// Lines removed over the turn.
    pub removed: u64,
}

impl ChangeSummary {
    /// The path for a person or the model, escaped (bytes that are not UTF-8 as `\xNN`).
    pub fn shown(&self) -> String {
        file_name::shown_fields(&self.path, self.path_hex.as_deref())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialise_with_a_snake_case_type_tag() {
        let alert = TurnEvent::Alert(Alert::warn("host", "careful"));
        let value = serde_json::to_value(&alert).unwrap_or_default();
        assert_eq!(value["type"], "alert");
        assert_eq!(value["level"], "warn");
        let ran = TurnEvent::ToolCallRan {
            call: ToolCall {
                id: "c1".into(),
                name: "shell".into(),
                arguments: serde_json::json!({"command": "false"}),
            },
            is_error: false,
            exit_code: Some(1),
            output: "exit status: 1".into(),
        };
        let value = serde_json::to_value(&ran).unwrap_or_default();
        assert_eq!(value["type"], "tool_call_ran");
        assert_eq!(value["exit_code"], 1);
        let usage = TurnEvent::Usage(Usage {
            input_tokens: 3,
            output_tokens: 2,
            cache_read_tokens: 5,
            cache_write_tokens: 0,
        });
        let value = serde_json::to_value(&usage).unwrap_or_default();
        assert_eq!(value["type"], "usage");
        assert_eq!(value["input_tokens"], 3);
        assert_eq!(value["cache_read_tokens"], 5);
        assert!(value.get("cache_write_tokens").is_none(), "{value}");
    }

    #[test]
    fn a_non_zero_exit_or_an_error_fails() {
        assert!(!TurnEvent::ran_failed(false, None));
        assert!(!TurnEvent::ran_failed(false, Some(0)));
        assert!(TurnEvent::ran_failed(false, Some(101)));
        assert!(TurnEvent::ran_failed(true, None));
    }
}
