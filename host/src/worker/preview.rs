//! `warden preview`: what a prompt would commit — resolved files and interceptor items — with
//! no model call and nothing written. It runs the turn's own steps 1–2 (see `prompt`), so the
//! chain's rules are the same as in a turn.

use serde::Serialize;

use crate::config::Config;
use crate::domain::{Alert, Item, Resolve, Segment, Source};
use crate::fileref::{self, RefReport, ShownFiles};
use crate::worker::chain::{ChainEntry, PointEnd};
use crate::worker::prompt::prepare;

/// One item as `preview --json` and `session export` show it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShownItem {
    /// The item (`role`, `text`, and `tool_calls` or `call_id` where present).
    #[serde(flatten)]
    pub item: Item,
    /// Who produced it.
    pub source: Source,
}

/// What a prompt would commit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Preview {
    /// Items in commit order.
    pub items: Vec<ShownItem>,
    /// Alerts the person would see.
    pub alerts: Vec<Alert>,
    /// One report per `@` mention.
    pub refs: Vec<RefReport>,
    /// Set when an interceptor would cancel the prompt (then nothing would be committed).
    #[serde(skip)]
    pub cancelled_by: Option<String>,
}

/// Resolve the references of `prompt` (as typed) and run the interceptors'
/// `on-prompt-submit`, committing nothing.
pub fn preview(
    prompt: &str,
    resolver: &mut dyn Resolve,
    chain: &mut [ChainEntry],
    config: &Config,
) -> Preview {
    preview_segments(&fileref::parse(prompt).segments, resolver, chain, config)
}

/// [`preview`] for a prompt already parsed (a front end that adjusted its references, e.g. to
/// the directory the person typed them in).
pub fn preview_segments(
    segments: &[Segment],
    resolver: &mut dyn Resolve,
    chain: &mut [ChainEntry],
    config: &Config,
) -> Preview {
    resolver.new_turn();
    let prepared = prepare(
        segments,
        resolver,
        chain,
        &config.fileref,
        &ShownFiles::new(),
        "",
        &std::collections::HashSet::new(),
    );
    let resolved = prepared.resolved;
    let mut alerts = resolved.alerts;
    for failure in &prepared.run.failures {
        let source = crate::domain::Source::Plugin(failure.plugin.clone()).to_string();
        alerts.push(if failure.closed {
            Alert::error(
                source,
                format!("{failure} (failure policy: closed; the turn would be cancelled)"),
            )
        } else {
            Alert::warn(source, format!("{failure} (failure policy: open)"))
        });
    }
    let shown = |e: crate::domain::Entry| ShownItem {
        item: e.item,
        source: e.source,
    };
    let mut items: Vec<ShownItem> = resolved.entries.into_iter().map(shown).collect();
    let cancelled_by = match prepared.run.end {
        PointEnd::Items(added) => {
            items.extend(added.into_iter().map(shown));
            None
        }
        PointEnd::Cancelled { plugin, reason } => {
            alerts.push(Alert::error(
                crate::domain::Source::Plugin(plugin.clone()).to_string(),
                format!("turn would be cancelled: {reason}"),
            ));
            Some(plugin)
        }
        PointEnd::FailedClosed(failure) => Some(failure.plugin),
    };
    if cancelled_by.is_some() {
        items.clear();
    }
    Preview {
        items,
        alerts,
        refs: resolved.refs,
        cancelled_by,
    }
}
