//! Fan-out of events to hooks. A hook gets each event by value, under its own deadline; a
//! failing hook changes nothing and is reported once per turn.

use std::collections::HashSet;

use crate::domain::{Alert, Event, Hook};

/// The configured hooks.
pub struct Hooks {
    hooks: Vec<Box<dyn Hook>>,
    /// Hooks already reported as failing this turn.
    reported: HashSet<String>,
}

impl Hooks {
    /// Hooks, in config order.
    pub fn new(hooks: Vec<Box<dyn Hook>>) -> Self {
        Self {
            hooks,
            reported: HashSet::new(),
        }
    }

    /// Start a new turn: failures are reported again.
    pub(crate) fn new_turn(&mut self) {
        self.reported.clear();
        for hook in &mut self.hooks {
            hook.new_turn();
        }
    }

    /// Deliver `event` to every hook; returns alerts for hooks that failed (the first failure
    /// of each hook per turn).
    pub(crate) fn emit(&mut self, event: &Event) -> Vec<Alert> {
        let mut alerts = Vec::new();
        for hook in &mut self.hooks {
            let _span = crate::trace::span("hook").with("plugin", hook.name());
            if let Err(err) = hook.on_event(event) {
                tracing::warn!(plugin = hook.name(), "hook failed: {err}");
                if self.reported.insert(hook.name().to_owned()) {
                    alerts.push(Alert::warn(
                        format!("plugin:{}", hook.name()),
                        format!("hook failed (ignored; hooks cannot affect the turn): {err}"),
                    ));
                }
            }
        }
        alerts
    }

    /// Number of hooks.
    pub fn len(&self) -> usize {
        self.hooks.len()
    }

    /// True when no hook is configured.
    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }
}
