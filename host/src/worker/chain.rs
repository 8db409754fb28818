//! The interceptor chain: config order, failure policy, validation of returned items.

use crate::config::FailurePolicy;
use crate::plugin::PluginError;
use crate::worker::validate::check_plugin_items;
use crate::worker::{Interceptor, Item};

/// One interceptor with its failure policy.
pub struct ChainEntry {
    /// The interceptor.
    pub plugin: Box<dyn Interceptor>,
    /// What its failure means for the turn.
    pub failure: FailurePolicy,
}

/// What the chain made of one call to one plugin.
pub(crate) enum Step<T> {
    /// The plugin answered.
    Answer(T),
    /// The plugin failed and its policy is open: go on without it.
    FailedOpen(String),
    /// The plugin failed and its policy is closed: the turn stops.
    FailedClosed(String),
}

/// Apply the failure policy to a call's result, and validate items it returns.
pub(crate) fn step<T>(
    entry: &ChainEntry,
    result: Result<T, PluginError>,
    items_of: impl Fn(&T) -> Option<&[Item]>,
) -> Step<T> {
    let outcome = result.map_err(|e| e.to_string()).and_then(|answer| {
        match items_of(&answer).map(check_plugin_items) {
            Some(Err(why)) => Err(format!(
                "plugin {}: returned invalid items: {why}",
                entry.plugin.name()
            )),
            _ => Ok(answer),
        }
    });
    match (outcome, entry.failure) {
        (Ok(answer), _) => Step::Answer(answer),
        (Err(message), FailurePolicy::Open) => Step::FailedOpen(message),
        (Err(message), FailurePolicy::Closed) => Step::FailedClosed(message),
    }
}
