//! Replay of a recorded session into one plugin: the inputs every call point saw then
//! (rebuilt from the history and the audit log, in order), what the chain decided then, and what
//! the plugin decides now. Works on the domain traits ([`Interceptor`], [`Hook`]); nothing is
//! committed anywhere.
//!
//! What the record holds and what it does not: a prompt that the chain cancelled then was never
//! committed, so its text is not in the history; it is listed (from the audit log) with the
//! decision then and is not replayed. Everything committed is replayed exactly.

use serde::Serialize;

use crate::domain::{
    Entry, Event, Hook, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo, Source,
    SubmittedPrompt, TurnEndDecision, TurnInfo,
};
use crate::store::{AuditEvent, AuditRecord, Record};

/// A decision at one call point, in the terms shared by the chain then and the plugin now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "decision", rename_all = "kebab-case")]
pub enum Decision {
    /// Let it through (on a prompt) or add nothing (before a request).
    Continue,
    /// Stop the turn.
    Cancel {
        /// The reason shown.
        reason: String,
        /// The plugin that cancelled, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Add these items (with the source they were, or would be, committed under).
    ContinueWith {
        /// The items.
        items: Vec<ShownItem>,
    },
    /// End the turn.
    Finish,
    /// The call failed.
    Failed {
        /// What went wrong.
        message: String,
    },
}

/// An item as shown in a replay: role, text and source.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShownItem {
    /// `user`, `system`, `assistant` or `tool`.
    pub role: String,
    /// The item's text.
    pub text: String,
    /// `plugin:<name>` etc.
    pub source: String,
}

impl ShownItem {
    fn new(source: &Source, item: &Item) -> Self {
        Self {
            role: item.role().to_owned(),
            text: item.text().to_owned(),
            source: source.to_string(),
        }
    }
}

impl Decision {
    /// Same decision, ignoring who made it and under which source the items would go.
    pub fn same_as(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Cancel { reason: a, .. }, Self::Cancel { reason: b, .. }) => a == b,
            (Self::ContinueWith { items: a }, Self::ContinueWith { items: b }) => {
                a.len() == b.len()
                    && a.iter()
                        .zip(b)
                        .all(|(x, y)| x.role == y.role && x.text == y.text)
            }
            _ => self == other,
        }
    }

    fn with_items(source: &Source, items: &[Item], empty: Self) -> Self {
        if items.is_empty() {
            empty
        } else {
            Self::ContinueWith {
                items: items.iter().map(|i| ShownItem::new(source, i)).collect(),
            }
        }
    }
}

/// The input of one recorded call point.
#[derive(Debug, Clone, PartialEq)]
pub enum PointInput {
    /// `on-prompt-submit`.
    Prompt(SubmittedPrompt),
    /// A prompt the chain cancelled then: its text was never committed.
    CancelledPrompt,
    /// `pre-llm-request`.
    Request(RequestInfo),
    /// `on-turn-end`.
    TurnEnd(TurnInfo),
}

impl PointInput {
    /// The interceptor export this point calls.
    pub fn point(&self) -> &'static str {
        match self {
            Self::Prompt(_) | Self::CancelledPrompt => "on-prompt-submit",
            Self::Request(_) => "pre-llm-request",
            Self::TurnEnd(_) => "on-turn-end",
        }
    }
}

/// One recorded call point.
#[derive(Debug, Clone, PartialEq)]
pub struct RecordedPoint {
    /// The turn, from 1 (cancelled prompts count as turns).
    pub turn: usize,
    /// What the point saw.
    pub input: PointInput,
    /// What the chain decided then.
    pub then: Decision,
    /// The chain's individual decisions then, from the audit log (`plugin: decision`).
    pub chain: Vec<String>,
}

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
        if hook != "on-prompt-submit" {
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
                let (by, reason) = run.cancelled.unwrap_or_default();
                points.push(RecordedPoint {
                    turn,
                    input: PointInput::CancelledPrompt,
                    then: Decision::Cancel {
                        reason,
                        by: Some(by),
                    },
                    chain: run.decisions,
                });
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
        let (by, reason) = run.cancelled.unwrap_or_default();
        points.push(RecordedPoint {
            turn,
            input: PointInput::CancelledPrompt,
            then: Decision::Cancel {
                reason,
                by: Some(by),
            },
            chain: run.decisions,
        });
    }
    points
}

/// What the plugin decided at one point, beside the chain's decision then.
#[derive(Debug, Clone)]
pub struct ReplayRow {
    /// The recorded point.
    pub point: RecordedPoint,
    /// The plugin's decision now; `None` when the point could not be replayed.
    pub now: Option<Decision>,
}

impl ReplayRow {
    /// True when the plugin would decide differently from the chain then.
    pub fn differs(&self) -> bool {
        self.now
            .as_ref()
            .is_some_and(|now| !now.same_as(&self.point.then))
    }
}

/// Feed `plugin` every recorded point in order, on one instance, as a turn would.
pub fn replay_interceptor(
    points: &[RecordedPoint],
    plugin: &mut dyn Interceptor,
) -> Vec<ReplayRow> {
    let source = Source::Plugin(plugin.name().to_owned());
    let failed = |err: PluginFailure| Decision::Failed {
        message: err.to_string(),
    };
    points
        .iter()
        .map(|point| {
            let now = match &point.input {
                PointInput::CancelledPrompt => None,
                PointInput::Prompt(prompt) => Some(match plugin.on_prompt_submit(prompt) {
                    Ok(PromptDecision::Continue) => Decision::Continue,
                    Ok(PromptDecision::Cancel(reason)) => Decision::Cancel {
                        reason,
                        by: Some(plugin.name().to_owned()),
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
            };
            ReplayRow {
                point: point.clone(),
                now,
            }
        })
        .collect()
}

/// The events a hook would have received from the recorded history, in order (the ones the
/// history can rebuild: prompts, commits, requests, answers, tool runs, turn ends).
pub fn recorded_events(records: &[Record]) -> Vec<(usize, Event)> {
    let mut events = Vec::new();
    let mut turn = 0usize;
    let mut seen = 0u64;
    let mut bytes = 0u64;
    let mut index = 0;
    while index < records.len() {
        let group = records[index].group;
        let end = records[index..]
            .iter()
            .position(|r| r.group != group)
            .map_or(records.len(), |n| index + n);
        let slice = &records[index..end];
        let first = &slice[0];
        if first.source == Source::User {
            turn += 1;
            events.push((turn, Event::PromptSubmitted(first.item.text().to_owned())));
        }
        if let Some(Item::Assistant { text, tool_calls }) = slice
            .iter()
            .map(|r| &r.item)
            .find(|i| matches!(i, Item::Assistant { .. }))
        {
            events.push((
                turn,
                Event::RequestSent {
                    items: u32::try_from(seen).unwrap_or(u32::MAX),
                    bytes,
                },
            ));
            events.push((
                turn,
                Event::ResponseReceived {
                    text: text.clone(),
                    tool_calls: u32::try_from(tool_calls.len()).unwrap_or(u32::MAX),
                },
            ));
        }
        for r in slice {
            if let Item::ToolResult {
                call_id, is_error, ..
            } = &r.item
            {
                let name = records[..index]
                    .iter()
                    .rev()
                    .find_map(|p| match &p.item {
                        Item::Assistant { tool_calls, .. } => tool_calls
                            .iter()
                            .find(|c| &c.id == call_id)
                            .map(|c| c.name.clone()),
                        _ => None,
                    })
                    .unwrap_or_default();
                events.push((
                    turn,
                    Event::ToolRan {
                        name,
                        call_id: call_id.clone(),
                        is_error: *is_error,
                    },
                ));
            }
        }
        events.push((
            turn,
            Event::ItemsCommitted(
                slice
                    .iter()
                    .map(|r| Entry::new(r.source.clone(), r.item.clone()).showing(r.files.clone()))
                    .collect(),
            ),
        ));
        seen += slice.len() as u64;
        bytes += slice.iter().map(|r| r.item.byte_len() as u64).sum::<u64>();
        let next_is_prompt = records.get(end).is_none_or(|r| r.source == Source::User);
        let answered = slice.iter().any(
            |r| matches!(&r.item, Item::Assistant { tool_calls, .. } if tool_calls.is_empty()),
        );
        if answered && next_is_prompt {
            events.push((turn, Event::TurnEnded("answered".into())));
        }
        index = end;
    }
    events
}

/// Deliver every recorded event to `hook`; the error of each delivery that failed.
pub fn replay_hook(events: &[(usize, Event)], hook: &mut dyn Hook) -> Vec<Option<String>> {
    events
        .iter()
        .map(|(_, event)| hook.on_event(event).err().map(|e| e.to_string()))
        .collect()
}

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::domain::ToolCall;

    fn record(seq: u64, group: u64, source: Source, item: Item) -> Record {
        Record {
            seq,
            group,
            source,
            ts: SystemTime::UNIX_EPOCH,
            item,
            origin: None,
            files: Vec::new(),
            compaction: None,
        }
    }

    fn decision(plugin: &str, hook: &str, decision: &str, reason: Option<&str>) -> AuditRecord {
        AuditRecord {
            ts: SystemTime::UNIX_EPOCH,
            event: AuditEvent::PluginDecision {
                plugin: plugin.into(),
                hook: hook.into(),
                decision: decision.into(),
                reason: reason.map(str::to_owned),
            },
        }
    }

    fn plugin(name: &str) -> Source {
        Source::Plugin(name.into())
    }

    /// A cancelled prompt, then a turn with a file, a plugin item, a notification, a tool call,
    /// a turn-end continuation and a second answer.
    #[test]
    fn points_follow_the_turn_loop_and_the_audit_log() {
        let call = ToolCall {
            id: "c1".into(),
            name: "read_file".into(),
            arguments: serde_json::json!({"path": "a.txt"}),
        };
        let records = vec![
            record(1, 1, Source::User, Item::user("ship @a.txt")),
            record(
                2,
                1,
                Source::FileRef,
                Item::system("[File: a.txt]\nalpha\n"),
            ),
            record(3, 1, plugin("kw"), Item::system("ctx")),
            record(4, 2, Source::Notify, Item::system("[Notification] red")),
            record(
                5,
                3,
                Source::Provider,
                Item::Assistant {
                    text: String::new(),
                    tool_calls: vec![call],
                },
            ),
            record(
                6,
                4,
                Source::Tool,
                Item::ToolResult {
                    call_id: "c1".into(),
                    content: "alpha".into(),
                    is_error: false,
                },
            ),
            record(7, 5, Source::Provider, Item::assistant("done")),
            record(8, 6, plugin("review"), Item::system("check again")),
            record(9, 7, Source::Provider, Item::assistant("checked")),
        ];
        let audit = vec![
            decision("guard", "on-prompt-submit", "cancel", Some("no")),
            decision("guard", "on-prompt-submit", "continue", None),
            decision("kw", "on-prompt-submit", "continue-with", Some("1 items")),
            decision("review", "on-turn-end", "continue-with", Some("1 items")),
            decision("review", "on-turn-end", "finish", None),
        ];
        let points = recorded_points("s", &records, &audit);
        let summary: Vec<(usize, &str, String)> = points
            .iter()
            .map(|p| {
                let then = match &p.then {
                    Decision::ContinueWith { items } => format!("continue-with {}", items.len()),
                    Decision::Cancel { reason, by } => {
                        format!("cancel {reason} by {}", by.as_deref().unwrap_or("?"))
                    }
                    other => format!("{other:?}").to_lowercase(),
                };
                (p.turn, p.input.point(), then)
            })
            .collect();
        assert_eq!(
            summary,
            vec![
                (1, "on-prompt-submit", "cancel no by guard".to_owned()),
                (2, "on-prompt-submit", "continue-with 1".to_owned()),
                (2, "pre-llm-request", "continue".to_owned()),
                (2, "pre-llm-request", "continue".to_owned()),
                (2, "on-turn-end", "continue-with 1".to_owned()),
                (2, "pre-llm-request", "continue".to_owned()),
                (2, "on-turn-end", "finish".to_owned()),
            ]
        );
        assert_eq!(points[0].input, PointInput::CancelledPrompt);
        let PointInput::Prompt(prompt) = &points[1].input else {
            panic!("{:?}", points[1].input);
        };
        assert_eq!(prompt.items.len(), 2, "the user item and the file item");
        assert_eq!(
            points[1].chain,
            ["guard: continue", "kw: continue-with (1 items)"]
        );
        // The first request came after the prompt group (3 items), before the notification.
        let steps: Vec<(u32, u32)> = points
            .iter()
            .filter_map(|p| match &p.input {
                PointInput::Request(r) => Some((r.step, r.history_items)),
                _ => None,
            })
            .collect();
        assert_eq!(steps, [(0, 3), (1, 6), (2, 8)]);
        let ends: Vec<(String, u32)> = points
            .iter()
            .filter_map(|p| match &p.input {
                PointInput::TurnEnd(t) => Some((t.answer.clone(), t.continuations)),
                _ => None,
            })
            .collect();
        assert_eq!(ends, [("done".to_owned(), 0), ("checked".to_owned(), 1)]);
    }

    #[test]
    fn decisions_compare_by_what_they_do_not_who_made_them() {
        let item = |source: &str| ShownItem {
            role: "system".into(),
            text: "ctx".into(),
            source: source.into(),
        };
        let a = Decision::ContinueWith {
            items: vec![item("plugin:a")],
        };
        let b = Decision::ContinueWith {
            items: vec![item("plugin:b")],
        };
        assert!(a.same_as(&b));
        let cancel = |by: &str| Decision::Cancel {
            reason: "no".into(),
            by: Some(by.into()),
        };
        assert!(cancel("x").same_as(&cancel("y")));
        assert!(!Decision::Continue.same_as(&cancel("x")));
        assert!(!Decision::Continue.same_as(&a));
    }
}
