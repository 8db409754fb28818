//! Steps 1–2 of a turn, shared by the turn and by `preview`: resolve the prompt's references,
//! then run `on-prompt-submit` through the chain. Nothing is committed here.

use std::collections::HashSet;

use crate::config::FileRefConfig;
use crate::domain::{CallPoint, PromptDecision, Resolve, Segment, SubmittedPrompt};
use crate::fileref::{self, ResolvedPrompt, ShownFiles};
use crate::worker::chain::{ChainEntry, PointRun, Verdict, run_point};

/// A prompt with its references resolved and the chain's answer.
pub(crate) struct Prepared {
    /// The prompt as typed.
    pub(crate) typed: String,
    /// The user item and file items, with alerts, reports and what to audit.
    pub(crate) resolved: ResolvedPrompt,
    /// How `on-prompt-submit` ended.
    pub(crate) run: PointRun,
}

/// Resolve `segments` against what `shown` already shows, then ask the chain.
pub(crate) fn prepare(
    segments: &[Segment],
    resolver: &mut dyn Resolve,
    chain: &mut [ChainEntry],
    config: &FileRefConfig,
    shown: &ShownFiles,
    session: &str,
    used_ids: &HashSet<String>,
) -> Prepared {
    let typed = Segment::typed(segments);
    let resolved = fileref::resolve_prompt(segments, resolver, config, shown);
    let prompt = SubmittedPrompt {
        session: session.to_owned(),
        text: typed.clone(),
        items: resolved.entries.iter().map(|e| e.item.clone()).collect(),
    };
    let run = run_point(chain, CallPoint::OnPromptSubmit, used_ids, |plugin| {
        plugin.on_prompt_submit(&prompt).map(|d| match d {
            PromptDecision::Continue => Verdict::Pass(Some("continue")),
            PromptDecision::ContinueWith(items) => Verdict::Add(items),
            PromptDecision::Cancel(reason) => Verdict::Cancel(reason),
        })
    });
    Prepared {
        typed,
        resolved,
        run,
    }
}
