//! A warden hook: counts events by kind and logs the counts at the end of every turn.
//!
//! Config: none. See the logs with `WARDEN_LOG=warden::plugin=info`.

use std::collections::BTreeMap;

use warden_plugin::Config;
use warden_plugin::hook::{Event, Hook};

#[derive(Default)]
struct Plugin {
    counts: BTreeMap<&'static str, u64>,
}

fn kind(event: &Event) -> &'static str {
    match event {
        Event::PromptSubmitted(_) => "prompt-submitted",
        Event::ItemsCommitted(_) => "items-committed",
        Event::RequestSent(_) => "request-sent",
        Event::ResponseReceived(_) => "response-received",
        Event::ToolRan(_) => "tool-ran",
        Event::ToolDecided(_) => "tool-decided",
        Event::AlertRaised(_) => "alert-raised",
        Event::Notification(_) => "notification",
        Event::TurnEnded(_) => "turn-ended",
        Event::PluginFailed(_) => "plugin-failed",
    }
}

impl Plugin {
    /// Count one event; the summary line when it ends a turn.
    fn count(&mut self, event: &Event) -> Option<String> {
        *self.counts.entry(kind(event)).or_default() += 1;
        matches!(event, Event::TurnEnded(_)).then(|| {
            let counts: Vec<String> = self
                .counts
                .iter()
                .map(|(k, n)| format!("{k}={n}"))
                .collect();
            format!("event counts: {}", counts.join(" "))
        })
    }
}

impl Hook for Plugin {
    fn init(_config: Config) -> Result<Self, String> {
        Ok(Self::default())
    }

    fn on_event(&mut self, event: Event) {
        if let Some(summary) = self.count(&event) {
            warden_plugin::info!("{summary}");
        }
    }
}

warden_plugin::export_hook!(Plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_events_and_summarises_at_turn_end() {
        let mut plugin = Plugin::default();
        assert_eq!(plugin.count(&Event::PromptSubmitted("hi".into())), None);
        assert_eq!(
            plugin
                .count(&Event::TurnEnded("answered".into()))
                .as_deref(),
            Some("event counts: prompt-submitted=1 turn-ended=1")
        );
    }
}
