//! Sample hook: count events by kind and log the counts at the end of every turn; log each
//! compaction (WIT 0.3.0) as it is committed.

use std::collections::BTreeMap;

use warden_plugin::Config;
use warden_plugin::hook::{CompactionStats, Event, Hook};

#[derive(Default)]
struct EventCounter {
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

impl Hook for EventCounter {
    fn init(_config: Config) -> Result<Self, String> {
        Ok(Self::default())
    }

    fn on_event(&mut self, event: Event) {
        *self.counts.entry(kind(&event)).or_default() += 1;
        if let Event::TurnEnded(_) = event {
            let summary: Vec<String> = self
                .counts
                .iter()
                .map(|(k, n)| format!("{k}={n}"))
                .collect();
            warden_plugin::info!("event counts: {}", summary.join(" "));
        }
    }

    fn on_compaction(&mut self, stats: CompactionStats) {
        *self.counts.entry("compacted").or_default() += 1;
        warden_plugin::info!(
            "compacted: history {}-{} replaced by {} items",
            stats.replaces.first,
            stats.replaces.last,
            stats.items
        );
    }
}

warden_plugin::export_hook!(EventCounter);
