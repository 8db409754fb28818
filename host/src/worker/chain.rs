//! The interceptor chain and its one runner: every call point (`on-prompt-submit`,
//! `pre-llm-request`, `on-turn-end`) asks the interceptors in config order, under each one's
//! failure policy, with the items they return validated. The turn and `preview` both run
//! points through [`run_point`], so a chain rule lives in one place.

use std::collections::HashSet;
use std::time::Instant;

use crate::config::FailurePolicy;
use crate::domain::{Entry, Interceptor, Item, PluginFailure, Source};
use crate::store::AuditEvent;
use crate::worker::validate::{call_ids, check_plugin_items, reused_call_ids};

/// One interceptor with its failure policy.
pub struct ChainEntry {
    /// The interceptor.
    pub plugin: Box<dyn Interceptor>,
    /// What its failure means for the turn.
    pub failure: FailurePolicy,
}

/// What one interceptor answered, in the chain's common terms.
pub(crate) enum Verdict {
    /// Nothing to add; the audit records the decision name, if any.
    Pass(Option<&'static str>),
    /// Items to commit, attributed to the plugin.
    Add(Vec<Item>),
    /// Stop the turn with this reason (only `on-prompt-submit` can).
    Cancel(String),
}

/// How a call point ended.
pub(crate) enum PointEnd {
    /// Every plugin answered (or failed open): the entries to commit, in chain order.
    Items(Vec<Entry>),
    /// A plugin cancelled.
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

/// A plugin that failed at a point.
pub(crate) struct Failure {
    /// Plugin name.
    pub(crate) plugin: String,
    /// What went wrong.
    pub(crate) message: String,
    /// Its policy is closed (the point ended with it).
    pub(crate) closed: bool,
}

/// Everything a call point produced: how it ended, the audit records of every decision, and
/// the failures (in chain order) for the caller to report.
pub(crate) struct PointRun {
    pub(crate) end: PointEnd,
    pub(crate) decisions: Vec<AuditEvent>,
    pub(crate) failures: Vec<Failure>,
}

fn decision(plugin: &str, point: &str, decision: &str, reason: Option<String>) -> AuditEvent {
    AuditEvent::PluginDecision {
        plugin: plugin.to_owned(),
        hook: point.to_owned(),
        decision: decision.to_owned(),
        reason,
    }
}

/// Ask every interceptor of `chain` at `point` through `call`. `used_ids` are the tool-call
/// ids the session already holds: a plugin may not reuse one (a duplicate id would pair a
/// result with the wrong call).
pub(crate) fn run_point(
    chain: &mut [ChainEntry],
    point: &'static str,
    used_ids: &HashSet<String>,
    mut call: impl FnMut(&mut dyn Interceptor) -> Result<Verdict, PluginFailure>,
) -> PointRun {
    let mut items = Vec::new();
    let mut decisions = Vec::new();
    let mut failures = Vec::new();
    for entry in chain.iter_mut() {
        let name = entry.plugin.name().to_owned();
        let span = tracing::debug_span!(
            "plugin call",
            plugin = %name,
            point,
            outcome = tracing::field::Empty,
            us = tracing::field::Empty
        );
        let _entered = span.enter();
        let started = Instant::now();
        let result = call(entry.plugin.as_mut());
        let outcome = result.map_err(|e| e.to_string()).and_then(|verdict| {
            match &verdict {
                Verdict::Add(added) => check_plugin_items(added)
                    .map_err(|why| format!("plugin {name}: returned invalid items: {why}"))
                    .and_then(|()| {
                        let mut used: HashSet<&str> =
                            used_ids.iter().map(String::as_str).collect();
                        used.extend(call_ids(items.iter().map(|e: &Entry| &e.item)));
                        let reused = reused_call_ids(added, &used);
                        if reused.is_empty() {
                            Ok(())
                        } else {
                            Err(format!(
                                "plugin {name}: {point} returned invalid output: tool call ids {reused:?} are already used in this session"
                            ))
                        }
                    }),
                Verdict::Pass(_) | Verdict::Cancel(_) => Ok(()),
            }
            .map(|()| verdict)
        });
        span.record("us", started.elapsed().as_micros() as u64);
        match (outcome, entry.failure) {
            (Ok(Verdict::Pass(name_of)), _) => {
                span.record("outcome", name_of.unwrap_or("continue"));
                if let Some(what) = name_of {
                    decisions.push(decision(&name, point, what, None));
                }
            }
            (Ok(Verdict::Add(added)), _) => {
                span.record("outcome", "continue-with");
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
            (Ok(Verdict::Cancel(reason)), _) => {
                span.record("outcome", "cancel");
                decisions.push(decision(&name, point, "cancel", Some(reason.clone())));
                return PointRun {
                    end: PointEnd::Cancelled {
                        plugin: name,
                        reason,
                    },
                    decisions,
                    failures,
                };
            }
            (Err(message), FailurePolicy::Open) => {
                span.record("outcome", "failed-open");
                decisions.push(decision(&name, point, "failed-open", Some(message.clone())));
                failures.push(Failure {
                    plugin: name,
                    message,
                    closed: false,
                });
            }
            (Err(message), FailurePolicy::Closed) => {
                span.record("outcome", "failed-closed");
                decisions.push(decision(
                    &name,
                    point,
                    "failed-closed",
                    Some(message.clone()),
                ));
                failures.push(Failure {
                    plugin: name.clone(),
                    message: message.clone(),
                    closed: true,
                });
                return PointRun {
                    end: PointEnd::FailedClosed {
                        plugin: name,
                        message,
                    },
                    decisions,
                    failures,
                };
            }
        }
    }
    PointRun {
        end: PointEnd::Items(items),
        decisions,
        failures,
    }
}
