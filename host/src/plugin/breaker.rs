//! The per-turn failure breaker of a plugin: after a trap or a deadline the plugin gets one
//! more try in the same turn; after its second failure its remaining calls in that turn fail
//! at once, naming the first failure, instead of each costing a full deadline.

use super::error::PluginError;

/// Failures in one turn after which calls are no longer made.
pub(crate) const FAILURES_PER_TURN: u32 = 2;

/// Counts a plugin's failures in the current turn.
#[derive(Debug, Default)]
pub(crate) struct Breaker {
    failures: u32,
    first: Option<String>,
}

impl Breaker {
    /// Refuses the call if the plugin already failed [`FAILURES_PER_TURN`] times this turn.
    pub(crate) fn check(&self, plugin: &str, call: &'static str) -> Result<(), PluginError> {
        if self.failures < FAILURES_PER_TURN {
            return Ok(());
        }
        Err(PluginError::Suspended {
            plugin: plugin.to_owned(),
            call,
            failures: self.failures,
            first: self.first.clone().unwrap_or_default(),
        })
    }

    /// Failures counted this turn.
    pub(crate) fn failures(&self) -> u32 {
        self.failures
    }

    /// Counts a failed call.
    pub(crate) fn record(&mut self, err: &PluginError) {
        self.failures = self.failures.saturating_add(1);
        if self.first.is_none() {
            self.first = Some(err.to_string());
        }
    }

    /// A new turn: the plugin is tried again.
    pub(crate) fn reset(&mut self) {
        *self = Self::default();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_after_the_second_failure_and_names_the_first() {
        let mut b = Breaker::default();
        let err = |n: u64| PluginError::Deadline {
            plugin: "r".into(),
            call: "resolve",
            timeout_ms: n,
            tries: 0,
        };
        assert!(b.check("r", "resolve").is_ok());
        b.record(&err(1));
        assert!(b.check("r", "resolve").is_ok());
        b.record(&err(2));
        let msg = b
            .check("r", "resolve")
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            msg.contains("1 ms deadline") && !msg.contains("2 ms"),
            "{msg}"
        );
        b.reset();
        assert!(b.check("r", "resolve").is_ok());
    }
}
