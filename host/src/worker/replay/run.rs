//! One plugin fed a session's recorded points, beside what the chain decided then.

use std::collections::HashMap;

use super::points::{Decision, PointInput, RecordedPoint};
use crate::domain::{
    Interceptor, PluginFailure, PromptDecision, Source, ToolDecision, TurnEndDecision,
};

/// What the plugin decided at one point, beside the chain's decision then.
#[derive(Debug, Clone)]
pub struct ReplayRow {
    /// The recorded point.
    pub point: RecordedPoint,
    /// The plugin's decision now; `None` when the point could not be replayed.
    pub now: Option<Decision>,
    /// The plugin's decision now at an earlier point (a cancel, a deny) would have prevented
    /// this one: it was not fed to the plugin.
    pub unreached: bool,
    /// Indices (in the replay) of the later points this decision would have prevented.
    pub prevents: Vec<usize>,
}

impl ReplayRow {
    /// True when the plugin would decide differently from the chain then.
    pub fn differs(&self) -> bool {
        self.now
            .as_ref()
            .is_some_and(|now| !now.same_as(&self.point.then))
    }
}

/// Feed `plugin` every recorded point in order, on one instance, as a turn would. A point that
/// the plugin's own earlier decision would have prevented (the rest of a turn it cancels now,
/// the `post-tool-call` of a call it denies now) is not fed to it: the row is marked, and the
/// deciding row lists it.
pub fn replay_interceptor(
    points: &[RecordedPoint],
    plugin: &mut dyn Interceptor,
) -> Vec<ReplayRow> {
    let source = Source::Plugin(plugin.name().to_owned());
    let name = plugin.name().to_owned();
    let failed = |err: PluginFailure| Decision::Failed {
        message: err.to_string(),
    };
    let mut rows: Vec<ReplayRow> = Vec::with_capacity(points.len());
    // The row whose cancel ends the rest of its turn, and rows whose deny stops a call.
    let mut cut: Option<(usize, usize)> = None;
    let mut denied: HashMap<String, usize> = HashMap::new();
    for point in points {
        let index = rows.len();
        let preventer = match &point.input {
            _ if cut.is_some_and(|(turn, _)| turn == point.turn) => cut.map(|(_, row)| row),
            PointInput::ToolResult(call, _) => denied.get(&call.id).copied(),
            _ => None,
        };
        if let Some(row) = preventer {
            if let Some(deciding) = rows.get_mut(row) {
                deciding.prevents.push(index);
            }
            rows.push(ReplayRow {
                point: point.clone(),
                now: None,
                unreached: true,
                prevents: Vec::new(),
            });
            continue;
        }
        let now = match &point.input {
            PointInput::CancelledPrompt => None,
            PointInput::Prompt(prompt) => Some(match plugin.on_prompt_submit(prompt) {
                Ok(PromptDecision::Continue) => Decision::Continue,
                Ok(PromptDecision::Cancel(reason)) => Decision::Cancel {
                    reason,
                    by: Some(name.clone()),
                },
                Ok(PromptDecision::ContinueWith(items)) => {
                    Decision::with_items(&source, &items, Decision::Continue)
                }
                Err(err) => failed(err),
            }),
            PointInput::Request(request) => Some(match plugin.pre_llm_request(request) {
                Ok(items) => Decision::with_items(&source, &items, Decision::Continue),
                Err(err) => failed(err),
            }),
            PointInput::TurnEnd(turn) => Some(match plugin.on_turn_end(turn) {
                Ok(TurnEndDecision::Finish) => Decision::Finish,
                Ok(TurnEndDecision::ContinueWith(items)) => {
                    Decision::with_items(&source, &items, Decision::Finish)
                }
                Err(err) => failed(err),
            }),
            PointInput::ToolCall(call) => Some(match plugin.pre_tool_call(call) {
                Ok(ToolDecision::Allow) => Decision::Allow { by: None },
                Ok(ToolDecision::Deny(reason)) => Decision::Deny {
                    reason,
                    by: Some(crate::domain::DecidedBy::Plugin(name.clone()).to_string()),
                },
                Ok(ToolDecision::Rewrite(arguments)) => Decision::Rewrite { arguments },
                Ok(ToolDecision::Ask(reason)) => Decision::Ask { reason },
                Err(err) => failed(err),
            }),
            PointInput::ToolResult(call, output) => {
                Some(match plugin.post_tool_call(call, output) {
                    Ok(items) => Decision::with_items(&source, &items, Decision::Continue),
                    Err(err) => failed(err),
                })
            }
        };
        match (&point.input, &now) {
            (PointInput::Prompt(_), Some(Decision::Cancel { .. })) => {
                cut = Some((point.turn, index));
            }
            (PointInput::ToolCall(call), Some(Decision::Deny { .. }))
                if !matches!(point.then, Decision::Deny { .. }) =>
            {
                denied.insert(call.id.clone(), index);
            }
            _ => {}
        }
        rows.push(ReplayRow {
            point: point.clone(),
            now,
            unreached: false,
            prevents: Vec::new(),
        });
    }
    rows
}
