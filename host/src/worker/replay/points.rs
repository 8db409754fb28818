//! The terms of a replay: a decision at a call point, what the point saw, one recorded point;
//! and [`session_points`], which takes a session's points from the audit log's records when it
//! has them, else from its history.

use serde::Serialize;

use super::inferred::recorded_points;
use super::recorded::points_from_audit;
use crate::domain::{
    CallPoint, Item, RequestInfo, Source, SubmittedPrompt, ToolCall, ToolOutput, TurnInfo,
};
use crate::store::{AuditEvent, AuditRecord, Record};

/// A decision at one call point, in the terms shared by the chain then and the plugin now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "kebab-case")]
pub enum Decision {
    /// Let it through (on a prompt) or add nothing (before a request).
    Continue,
    /// Stop the turn.
    Cancel {
        /// The reason shown.
        reason: String,
        /// The plugin that cancelled, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Add these items (with the source they were, or would be, committed under).
    ContinueWith {
        /// The items.
        items: Vec<ShownItem>,
    },
    /// End the turn.
    Finish,
    /// The call failed.
    Failed {
        /// What went wrong.
        message: String,
    },
    /// Let the tool call run as asked.
    Allow {
        /// The rule that let it run (`rule:<id>`), when one did.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Do not run the tool call.
    Deny {
        /// The reason given.
        reason: String,
        /// Who denied it (`plugin:<name>`, `rule:<id>`, `approval`, `policy`), when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Let the chain go on, and ask the person before the call runs.
    Ask {
        /// The reason given.
        reason: String,
    },
    /// Run the tool call with these arguments.
    Rewrite {
        /// The arguments after the rewrite (`null` when the record does not hold them).
        arguments: serde_json::Value,
    },
}

/// An item as shown in a replay: role, text and source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownItem {
    /// `user`, `system`, `assistant` or `tool`.
    pub role: String,
    /// The item's text.
    pub text: String,
    /// `plugin:<name>` etc.
    pub source: String,
}

impl ShownItem {
    pub(super) fn new(source: &Source, item: &Item) -> Self {
        Self {
            role: item.role().to_owned(),
            text: item.text().to_owned(),
            source: source.to_string(),
        }
    }
}

impl Decision {
    /// Same decision, ignoring who made it and under which source the items would go.
    pub fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Cancel { reason: a, .. }, Self::Cancel { reason: b, .. })
            | (Self::Deny { reason: a, .. }, Self::Deny { reason: b, .. }) => a == b,
            (Self::Allow { .. }, Self::Allow { .. }) => true,
            (Self::ContinueWith { items: a }, Self::ContinueWith { items: b }) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.role == y.role && x.text == y.text)
            }
            _ => self == other,
        }
    }

    pub(super) fn with_items(source: &Source, items: &[Item], empty: Self) -> Self {
        if items.is_empty() {
            empty
        } else {
            Self::ContinueWith {
                // As the host would commit them (a plugin's `system` text escaped).
                items: items
                    .iter()
                    .map(|i| ShownItem::new(source, &crate::worker::chain::plugin_item(i.clone())))
                    .collect(),
            }
        }
    }
}

/// The input of one recorded call point.
#[derive(Debug, Clone, PartialEq)]
pub enum PointInput {
    /// `on-prompt-submit`.
    Prompt(SubmittedPrompt),
    /// A prompt the chain cancelled then: its text was never committed.
    CancelledPrompt,
    /// `pre-llm-request`.
    Request(RequestInfo),
    /// `on-turn-end`.
    TurnEnd(TurnInfo),
    /// `pre-tool-call`: the call as the model asked for it.
    ToolCall(ToolCall),
    /// `post-tool-call`: the call as the tool received it, and what it produced.
    ToolResult(ToolCall, ToolOutput),
}

impl PointInput {
    /// The call point.
    pub fn call_point(&self) -> CallPoint {
        match self {
            Self::Prompt(_) | Self::CancelledPrompt => CallPoint::OnPromptSubmit,
            Self::Request(_) => CallPoint::PreLlmRequest,
            Self::TurnEnd(_) => CallPoint::OnTurnEnd,
            Self::ToolCall(_) => CallPoint::PreToolCall,
            Self::ToolResult(..) => CallPoint::PostToolCall,
        }
    }

    /// The interceptor export this point calls.
    pub fn point(&self) -> &'static str {
        self.call_point().name()
    }

    /// A short description of what the point saw, for people.
    pub fn describe(&self) -> String {
        match self {
            Self::Prompt(p) => format!("{:?}", p.text),
            Self::CancelledPrompt => "(prompt cancelled then; not recorded)".into(),
            Self::Request(r) => format!("step {}", r.step),
            Self::TurnEnd(t) => format!("answer {:?}", t.answer),
            Self::ToolCall(call) | Self::ToolResult(call, _) => {
                format!("{} {} ({})", call.name, call.arguments, call.id)
            }
        }
    }
}

/// One recorded call point.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedPoint {
    /// The turn, from 1 (cancelled prompts count as turns).
    pub turn: usize,
    /// What the point saw.
    pub input: PointInput,
    /// What the chain decided then.
    pub then: Decision,
    /// The chain's individual decisions then, from the audit log (`plugin: decision`).
    pub chain: Vec<String>,
}

/// Where a session's call points came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PointsFrom {
    /// The audit log's records, written as each point happened.
    Audit,
    /// The history, for a session written before the records existed: prompts, requests and
    /// turn ends only.
    History,
}

/// The call points of a recorded session, in order: from the audit log's point records when
/// the session has them, else rebuilt from the history.
pub fn session_points(
    session: &str,
    records: &[Record],
    audit: &[AuditRecord],
) -> (Vec<RecordedPoint>, PointsFrom) {
    let recorded = audit
        .iter()
        .any(|r| matches!(r.event, AuditEvent::Point(_)));
    if recorded {
        (
            points_from_audit(session, records, audit),
            PointsFrom::Audit,
        )
    } else {
        (
            recorded_points(session, records, audit),
            PointsFrom::History,
        )
    }
}
