//! The call points of a session written before the audit log recorded them, rebuilt from the
//! history and the audit log's `on-prompt-submit` decisions: prompts, requests and turn ends,
//! no tool calls.

use super::points::{Decision, PointInput, RecordedPoint};
use crate::domain::{CallPoint, Item, RequestInfo, Source, SubmittedPrompt, TurnInfo};
use crate::store::{AuditEvent, AuditRecord, Record};

/// A committed group of the history.
struct Group<'a> {
    records: Vec<&'a Record>,
}

impl Group<'_> {
    fn starts_prompt(&self) -> bool {
        self.records
            .first()
            .is_some_and(|r| r.source == Source::User)
    }
    fn plugin_items(&self) -> (Source, Vec<Item>) {
        let mut source = Source::Plugin(String::new());
        let mut items = Vec::new();
        for r in &self.records {
            if let Source::Plugin(_) = r.source {
                source = r.source.clone();
                items.push(r.item.clone());
            }
        }
        (source, items)
    }
    fn answer(&self) -> Option<&Item> {
        self.records
            .iter()
            .find(|r| matches!(r.item, Item::Assistant { .. }))
            .map(|r| &r.item)
    }
}

/// The decisions of one prompt at `on-prompt-submit`, from the audit log.
struct PromptRun {
    decisions: Vec<String>,
    /// Set when the run ended the prompt: (plugin, reason).
    cancelled: Option<(String, String)>,
}

/// Split the audit log's `on-prompt-submit` decisions into one run per submitted prompt.
fn prompt_runs(audit: &[AuditRecord]) -> Vec<PromptRun> {
    let mut runs: Vec<PromptRun> = Vec::new();
    let mut open = false;
    let mut seen: Vec<String> = Vec::new();
    for record in audit {
        let AuditEvent::PluginDecision {
            plugin,
            hook,
            decision,
            reason,
        } = &record.event
        else {
            open = false;
            continue;
        };
        if hook != CallPoint::OnPromptSubmit.name() {
            open = false;
            continue;
        }
        if !open || seen.contains(plugin) {
            runs.push(PromptRun {
                decisions: Vec::new(),
                cancelled: None,
            });
            seen.clear();
            open = true;
        }
        seen.push(plugin.clone());
        let Some(run) = runs.last_mut() else { continue };
        run.decisions.push(match reason {
            Some(reason) => format!("{plugin}: {decision} ({reason})"),
            None => format!("{plugin}: {decision}"),
        });
        if decision == "cancel" || decision == "failed-closed" {
            run.cancelled = Some((plugin.clone(), reason.clone().unwrap_or_default()));
            open = false;
        }
    }
    runs
}

/// The call points of a recorded session, in order.
pub fn recorded_points(
    session: &str,
    records: &[Record],
    audit: &[AuditRecord],
) -> Vec<RecordedPoint> {
    let mut groups: Vec<Group<'_>> = Vec::new();
    for record in records {
        match groups.last_mut() {
            Some(g) if g.records.first().is_some_and(|f| f.group == record.group) => {
                g.records.push(record);
            }
            _ => groups.push(Group {
                records: vec![record],
            }),
        }
    }
    let mut runs = prompt_runs(audit).into_iter().peekable();
    let mut points = Vec::new();
    let mut turn = 0usize;
    let mut prompt = String::new();
    let mut step = 0u32;
    let mut continuations = 0u32;
    let mut pending: Option<(u32, Source, Vec<Item>)> = None;
    let mut after_turn_end: Option<usize> = None;
    let mut seen_items = 0u32;
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    for group in &groups {
        if group.starts_prompt() {
            // Prompts the chain cancelled before this one.
            while let Some(run) = runs.next_if(|r| r.cancelled.is_some()) {
                turn += 1;
                points.push(cancelled(turn, run));
            }
            let chain = runs.next().map(|r| r.decisions).unwrap_or_default();
            turn += 1;
            step = 0;
            continuations = 0;
            pending = None;
            after_turn_end = None;
            let submitted: Vec<Item> = group
                .records
                .iter()
                .filter(|r| matches!(r.source, Source::User | Source::FileRef))
                .map(|r| r.item.clone())
                .collect();
            prompt = group
                .records
                .first()
                .map(|r| r.item.text().to_owned())
                .unwrap_or_default();
            let (source, added) = group.plugin_items();
            points.push(RecordedPoint {
                turn,
                input: PointInput::Prompt(SubmittedPrompt {
                    session: session.to_owned(),
                    text: prompt.clone(),
                    items: submitted,
                }),
                then: Decision::with_items(&source, &added, Decision::Continue),
                chain,
            });
        } else if turn == 0 {
            // Items before any prompt (none in a session written by warden).
        } else if let Some(answer) = group.answer() {
            let (history_items, source, items) =
                pending
                    .take()
                    .unwrap_or((seen_items, Source::Plugin(String::new()), Vec::new()));
            points.push(RecordedPoint {
                turn,
                input: PointInput::Request(RequestInfo {
                    session: session.to_owned(),
                    prompt: prompt.clone(),
                    step,
                    history_items,
                }),
                then: Decision::with_items(&source, &items, Decision::Continue),
                chain: Vec::new(),
            });
            step += 1;
            if let Item::Assistant { text, tool_calls } = answer
                && tool_calls.is_empty()
            {
                points.push(RecordedPoint {
                    turn,
                    input: PointInput::TurnEnd(TurnInfo {
                        session: session.to_owned(),
                        prompt: prompt.clone(),
                        answer: text.clone(),
                        continuations,
                    }),
                    then: Decision::Finish,
                    chain: Vec::new(),
                });
                after_turn_end = Some(points.len() - 1);
            }
        } else if group.records.iter().all(|r| r.source == Source::Tool) {
            // Tool results: no call point.
        } else if let Some(index) = after_turn_end.take() {
            let (source, items) = group.plugin_items();
            if let Some(point) = points.get_mut(index) {
                point.then = Decision::with_items(&source, &items, Decision::Finish);
            }
            continuations += 1;
        } else {
            let (source, items) = group.plugin_items();
            pending = Some((seen_items, source, items));
        }
        seen_items = seen_items.saturating_add(count(group.records.len()));
    }
    for run in runs.filter(|r| r.cancelled.is_some()) {
        turn += 1;
        points.push(cancelled(turn, run));
    }
    points
}

/// The point of a prompt the chain cancelled then (its text was never committed).
fn cancelled(turn: usize, run: PromptRun) -> RecordedPoint {
    let (by, reason) = run.cancelled.unwrap_or_default();
    RecordedPoint {
        turn,
        input: PointInput::CancelledPrompt,
        then: Decision::Cancel {
            reason,
            by: Some(by),
        },
        chain: run.decisions,
    }
}
