//! One hook point of the interceptor chain (`on-prompt-submit`, `pre-llm-request`,
//! `on-turn-end`), run in config order under each plugin's failure policy. The three points
//! differ only in what a plugin may answer; this is where the chain's rules live once.

use super::Worker;
use crate::plugin::PluginError;
use crate::store::{AuditEvent, Entry};
use crate::worker::chain::{Step, step};
use crate::worker::validate::{call_ids, reused_call_ids};
use crate::worker::{Alert, Event, Interceptor, Item, Source, TurnSink};

/// What one interceptor answered, in the chain's common terms.
pub(super) enum Verdict {
    /// Nothing to add; the audit records the decision name, if any.
    Pass(Option<&'static str>),
    /// Items to commit, attributed to the plugin.
    Add(Vec<Item>),
    /// Stop the turn with this reason (only `on-prompt-submit` can).
    Cancel(String),
}

/// How a hook point ended.
pub(super) enum PointEnd {
    /// Every plugin answered (or failed open): the items to commit, in chain order.
    Items(Vec<Entry>),
    /// A plugin cancelled the prompt.
    Cancelled {
        /// Plugin name.
        plugin: String,
        /// Its reason.
        reason: String,
    },
    /// A plugin failed and its policy is closed.
    FailedClosed {
        /// Plugin name.
        plugin: String,
        /// What went wrong.
        message: String,
    },
}

fn decision(plugin: &str, point: &str, decision: &str, reason: Option<String>) -> AuditEvent {
    AuditEvent::PluginDecision {
        plugin: plugin.to_owned(),
        hook: point.to_owned(),
        decision: decision.to_owned(),
        reason,
    }
}

/// Refuses added items whose tool-call ids the session's history (or an earlier plugin at
/// this point) already used: a duplicate id would pair a result with the wrong call.
fn reject_reused_ids<'a>(
    plugin: &str,
    point: &'static str,
    verdict: Verdict,
    history: impl Iterator<Item = &'a Item>,
    added: &[Entry],
) -> Result<Verdict, PluginError> {
    let Verdict::Add(items) = &verdict else {
        return Ok(verdict);
    };
    let mut used = call_ids(history);
    used.extend(call_ids(added.iter().map(|e| &e.item)));
    let reused = reused_call_ids(items, &used);
    if reused.is_empty() {
        return Ok(verdict);
    }
    Err(PluginError::BadOutput {
        plugin: plugin.to_owned(),
        call: point,
        message: format!("tool call ids {reused:?} are already used in this session"),
    })
}

impl Worker {
    /// Ask every interceptor at `point`; returns how the point ended and the audit records of
    /// every decision (for the caller to write with what it commits).
    pub(super) fn run_point(
        &mut self,
        sink: &mut dyn TurnSink,
        point: &'static str,
        mut call: impl FnMut(&mut dyn Interceptor) -> Result<Verdict, PluginError>,
    ) -> (PointEnd, Vec<AuditEvent>) {
        let mut items = Vec::new();
        let mut decisions = Vec::new();
        for index in 0..self.chain.len() {
            let entry = &mut self.chain[index];
            let name = entry.plugin.name().to_owned();
            let _span = tracing::debug_span!("interceptor", plugin = %name, point).entered();
            let result = call(entry.plugin.as_mut()).and_then(|verdict| {
                reject_reused_ids(&name, point, verdict, self.writer.items(), &items)
            });
            let entry = &mut self.chain[index];
            let verdict = step(entry, result, |v| match v {
                Verdict::Add(items) => Some(items.as_slice()),
                Verdict::Pass(_) | Verdict::Cancel(_) => None,
            });
            match verdict {
                Step::Answer(Verdict::Pass(name_of)) => {
                    if let Some(what) = name_of {
                        decisions.push(decision(&name, point, what, None));
                    }
                }
                Step::Answer(Verdict::Add(added)) => {
                    decisions.push(decision(
                        &name,
                        point,
                        "continue-with",
                        Some(format!("{} items", added.len())),
                    ));
                    let source = Source::Plugin(name.clone());
                    items.extend(
                        added
                            .into_iter()
                            .map(|item| Entry::new(source.clone(), item)),
                    );
                }
                Step::Answer(Verdict::Cancel(reason)) => {
                    decisions.push(decision(&name, point, "cancel", Some(reason.clone())));
                    return (
                        PointEnd::Cancelled {
                            plugin: name,
                            reason,
                        },
                        decisions,
                    );
                }
                Step::FailedOpen(message) => {
                    decisions.push(decision(&name, point, "failed-open", Some(message.clone())));
                    self.plugin_failed(sink, &name, &message, false);
                }
                Step::FailedClosed(message) => {
                    decisions.push(decision(
                        &name,
                        point,
                        "failed-closed",
                        Some(message.clone()),
                    ));
                    self.plugin_failed(sink, &name, &message, true);
                    return (
                        PointEnd::FailedClosed {
                            plugin: name,
                            message,
                        },
                        decisions,
                    );
                }
            }
        }
        (PointEnd::Items(items), decisions)
    }

    /// Tell the hooks that a plugin failed and, when its policy is open, the person too (a
    /// closed failure ends the turn, and the caller's alert says so with the same message).
    pub(super) fn plugin_failed(
        &mut self,
        sink: &mut dyn TurnSink,
        plugin: &str,
        message: &str,
        closed: bool,
    ) {
        if !closed {
            self.raise(
                sink,
                Alert::warn(
                    format!("plugin:{plugin}"),
                    format!("{message} (failure policy: open; continuing without it)"),
                ),
            );
        }
        self.emit(
            sink,
            Event::PluginFailed {
                plugin: plugin.to_owned(),
                message: message.to_owned(),
            },
        );
    }
}
