//! `warden preview`: what a prompt would commit — resolved files and interceptor items — with
//! no model call and nothing written.

use serde::Serialize;

use crate::config::Config;
use crate::fileref::{self, RefReport, Resolve, ShownFiles};
use crate::worker::chain::{ChainEntry, Step, step};
use crate::worker::{Alert, Item, PromptDecision, Segment, Source, SubmittedPrompt};

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

/// Resolve `segments` and run the interceptors' `on-prompt-submit`, committing nothing.
pub fn preview(
    segments: &[Segment],
    resolver: &mut dyn Resolve,
    chain: &mut [ChainEntry],
    config: &Config,
) -> Preview {
    resolver.new_turn();
    let resolved = fileref::resolve_prompt(segments, resolver, &config.fileref, &ShownFiles::new());
    let typed = Segment::typed(segments);
    let mut alerts = resolved.alerts.clone();
    let mut items: Vec<ShownItem> = resolved
        .items
        .iter()
        .map(|(source, item)| ShownItem {
            item: item.clone(),
            source: source.clone(),
        })
        .collect();
    let prompt = SubmittedPrompt {
        session: String::new(),
        text: typed,
        items: resolved.items.iter().map(|(_, i)| i.clone()).collect(),
    };
    let mut cancelled_by = None;
    for entry in chain.iter_mut() {
        let name = entry.plugin.name().to_owned();
        let result = entry.plugin.on_prompt_submit(&prompt);
        match step(entry, result, |d| match d {
            PromptDecision::ContinueWith(items) => Some(items.as_slice()),
            _ => None,
        }) {
            Step::Answer(PromptDecision::Continue) => {}
            Step::Answer(PromptDecision::ContinueWith(more)) => {
                items.extend(more.into_iter().map(|item| ShownItem {
                    item,
                    source: Source::Plugin(name.clone()),
                }));
            }
            Step::Answer(PromptDecision::Cancel(reason)) => {
                alerts.push(Alert::error(
                    format!("plugin:{name}"),
                    format!("turn would be cancelled: {reason}"),
                ));
                cancelled_by = Some(name);
                break;
            }
            Step::FailedOpen(message) => {
                alerts.push(Alert::warn(
                    format!("plugin:{name}"),
                    format!("{message} (failure policy: open)"),
                ));
            }
            Step::FailedClosed(message) => {
                alerts.push(Alert::error(
                    format!("plugin:{name}"),
                    format!("{message} (failure policy: closed; the turn would be cancelled)"),
                ));
                cancelled_by = Some(name);
                break;
            }
        }
    }
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
