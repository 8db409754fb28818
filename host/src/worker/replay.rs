//! Replay of a recorded session into one plugin: the inputs every call point saw then, what
//! the chain decided then, and what the plugin decides now. Works on the domain traits
//! ([`Interceptor`], [`Hook`]); nothing is committed anywhere.
//!
//! The points come from the audit log's `point` and `tool_call` records, written as each call
//! point happened ([`session_points`]); they refer to the history for prompts, answers, tool
//! calls and results. Sessions written before those records existed are rebuilt from the
//! history by the older inference ([`recorded_points`]), which knows prompts, requests and turn
//! ends but no tool calls.
//!
//! A prompt that the chain cancelled then was never committed, so its text is not recorded; it
//! is listed with the decision then and is not replayed. When the plugin now cancels a prompt
//! (or denies a tool call), the later points that decision would have prevented are marked and
//! not fed to it.

use std::collections::HashMap;

use serde::Serialize;

use crate::domain::{
    CallPoint, Entry, Event, Hook, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo,
    Source, SubmittedPrompt, ToolCall, ToolDecision, ToolOutput, TurnEndDecision, TurnInfo,
};
use crate::store::{AuditEvent, AuditRecord, PointEndRecord, PointInputRecord, Record};

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
    /// Let the tool call run as asked.
    Allow,
    /// Do not run the tool call.
    Deny {
        /// The reason given.
        reason: String,
        /// Who denied it (`plugin:<name>`, `approval`, `policy`), when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        by: Option<String>,
    },
    /// Run the tool call with these arguments.
    Rewrite {
        /// The arguments after the rewrite (`null` when the record does not hold them).
        arguments: serde_json::Value,
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
            (Self::Cancel { reason: a, .. }, Self::Cancel { reason: b, .. })
            | (Self::Deny { reason: a, .. }, Self::Deny { reason: b, .. }) => a == b,
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
    /// `pre-tool-call`: the call as the model asked for it.
    ToolCall(ToolCall),
    /// `post-tool-call`: the call as the tool received it, and what it produced.
    ToolResult(ToolCall, ToolOutput),
}

impl PointInput {
    /// The call point.
    pub fn call_point(&self) -> CallPoint {
        match self {
            Self::Prompt(_) | Self::CancelledPrompt => CallPoint::OnPromptSubmit,
            Self::Request(_) => CallPoint::PreLlmRequest,
            Self::TurnEnd(_) => CallPoint::OnTurnEnd,
            Self::ToolCall(_) => CallPoint::PreToolCall,
            Self::ToolResult(..) => CallPoint::PostToolCall,
        }
    }

    /// The interceptor export this point calls.
    pub fn point(&self) -> &'static str {
        self.call_point().name()
    }

    /// A short description of what the point saw, for people.
    pub fn describe(&self) -> String {
        match self {
            Self::Prompt(p) => format!("{:?}", p.text),
            Self::CancelledPrompt => "(prompt cancelled then; not recorded)".into(),
            Self::Request(r) => format!("step {}", r.step),
            Self::TurnEnd(t) => format!("answer {:?}", t.answer),
            Self::ToolCall(call) | Self::ToolResult(call, _) => {
                format!("{} {} ({})", call.name, call.arguments, call.id)
            }
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

/// Where a session's call points came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PointsFrom {
    /// The audit log's records, written as each point happened.
    Audit,
    /// The history, for a session written before the records existed: prompts, requests and
    /// turn ends only.
    History,
}

/// The call points of a recorded session, in order: from the audit log's point records when
/// the session has them, else rebuilt from the history.
pub fn session_points(
    session: &str,
    records: &[Record],
    audit: &[AuditRecord],
) -> (Vec<RecordedPoint>, PointsFrom) {
    let recorded = audit
        .iter()
        .any(|r| matches!(r.event, AuditEvent::Point(_)));
    if recorded {
        (
            points_from_audit(session, records, audit),
            PointsFrom::Audit,
        )
    } else {
        (
            recorded_points(session, records, audit),
            PointsFrom::History,
        )
    }
}

/// What the history holds, by sequence number and by tool-call id.
struct HistoryIndex<'a> {
    by_seq: HashMap<u64, &'a Record>,
    calls: HashMap<&'a str, &'a ToolCall>,
    results: HashMap<&'a str, ToolOutput>,
}

impl<'a> HistoryIndex<'a> {
    fn new(records: &'a [Record]) -> Self {
        let mut index = Self {
            by_seq: HashMap::with_capacity(records.len()),
            calls: HashMap::new(),
            results: HashMap::new(),
        };
        for record in records {
            index.by_seq.insert(record.seq, record);
            match &record.item {
                Item::Assistant { tool_calls, .. } => {
                    for call in tool_calls {
                        index.calls.insert(call.id.as_str(), call);
                    }
                }
                Item::ToolResult {
                    call_id,
                    content,
                    is_error,
                } => {
                    let output = if *is_error {
                        ToolOutput::error(content.clone())
                    } else {
                        ToolOutput::ok(content.clone())
                    };
                    index.results.insert(call_id.as_str(), output);
                }
                _ => {}
            }
        }
        index
    }

    fn items(&self, seqs: &[u64]) -> Vec<&'a Record> {
        seqs.iter()
            .filter_map(|seq| self.by_seq.get(seq).copied())
            .collect()
    }

    /// The decision of a chain that added the records `seqs` (or `empty` when none).
    fn added(&self, seqs: &[u64], empty: Decision) -> Decision {
        let records = self.items(seqs);
        match records.first() {
            None => empty,
            Some(first) => Decision::ContinueWith {
                items: records
                    .iter()
                    .map(|r| ShownItem::new(&first.source, &r.item))
                    .collect(),
            },
        }
    }
}

/// The chain's decision then, from a point record's end and the items it added.
fn then_of(
    index: &HistoryIndex<'_>,
    end: &PointEndRecord,
    added: &[u64],
    empty: Decision,
) -> Decision {
    match end {
        PointEndRecord::Done => index.added(added, empty),
        PointEndRecord::Cancelled { plugin, reason } => Decision::Cancel {
            reason: reason.clone(),
            by: Some(plugin.clone()),
        },
        PointEndRecord::FailedClosed { plugin, message } => Decision::Cancel {
            reason: message.clone(),
            by: Some(plugin.clone()),
        },
    }
}

/// The call points of a session from its audit log's `point` and `tool_call` records.
fn points_from_audit(
    session: &str,
    records: &[Record],
    audit: &[AuditRecord],
) -> Vec<RecordedPoint> {
    let index = HistoryIndex::new(records);
    // The arguments each rewritten call ran with (its `post-tool-call` record holds them).
    let rewritten: HashMap<&str, &serde_json::Value> = audit
        .iter()
        .filter_map(|r| match &r.event {
            AuditEvent::Point(point) => match &point.input {
                PointInputRecord::PostToolCall {
                    call_id,
                    arguments: Some(arguments),
                } => Some((call_id.as_str(), arguments)),
                _ => None,
            },
            _ => None,
        })
        .collect();
    let mut points = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut turn = 0usize;
    let mut prompt = String::new();
    let chain_of = |pending: &mut Vec<(String, String)>, point: CallPoint| -> Vec<String> {
        let chain = pending
            .iter()
            .filter(|(hook, _)| hook == point.name())
            .map(|(_, line)| line.clone())
            .collect();
        pending.clear();
        chain
    };
    for record in audit {
        match &record.event {
            AuditEvent::PluginDecision {
                plugin,
                hook,
                decision,
                reason,
            } => pending.push((
                hook.clone(),
                match reason {
                    Some(reason) => format!("{plugin}: {decision} ({reason})"),
                    None => format!("{plugin}: {decision}"),
                },
            )),
            AuditEvent::ToolCall {
                call_id,
                decision,
                by,
                reason,
                ..
            } => {
                let chain = chain_of(&mut pending, CallPoint::PreToolCall);
                let Some(call) = index.calls.get(call_id.as_str()) else {
                    continue;
                };
                let then = match decision.as_str() {
                    "denied" => Decision::Deny {
                        reason: reason.clone().unwrap_or_default(),
                        by: Some(by.clone()),
                    },
                    "rewritten" => Decision::Rewrite {
                        arguments: rewritten
                            .get(call_id.as_str())
                            .map_or(serde_json::Value::Null, |a| (*a).clone()),
                    },
                    _ => Decision::Allow,
                };
                points.push(RecordedPoint {
                    turn,
                    input: PointInput::ToolCall((*call).clone()),
                    then,
                    chain,
                });
            }
            AuditEvent::Point(point) => {
                let chain = chain_of(&mut pending, point.point());
                let (input, then) = match &point.input {
                    PointInputRecord::OnPromptSubmit { items } => {
                        turn += 1;
                        let submitted = index.items(items);
                        match submitted.first() {
                            Some(first) => {
                                prompt = first.item.text().to_owned();
                                let input = PointInput::Prompt(SubmittedPrompt {
                                    session: session.to_owned(),
                                    text: prompt.clone(),
                                    items: submitted.iter().map(|r| r.item.clone()).collect(),
                                });
                                let then =
                                    then_of(&index, &point.end, &point.added, Decision::Continue);
                                (input, then)
                            }
                            None => {
                                prompt.clear();
                                let then = then_of(&index, &point.end, &[], Decision::Continue);
                                (PointInput::CancelledPrompt, then)
                            }
                        }
                    }
                    PointInputRecord::PreLlmRequest {
                        step,
                        history_items,
                    } => (
                        PointInput::Request(RequestInfo {
                            session: session.to_owned(),
                            prompt: prompt.clone(),
                            step: *step,
                            history_items: *history_items,
                        }),
                        then_of(&index, &point.end, &point.added, Decision::Continue),
                    ),
                    PointInputRecord::OnTurnEnd {
                        answer,
                        continuations,
                    } => (
                        PointInput::TurnEnd(TurnInfo {
                            session: session.to_owned(),
                            prompt: prompt.clone(),
                            answer: index
                                .by_seq
                                .get(answer)
                                .map(|r| r.item.text().to_owned())
                                .unwrap_or_default(),
                            continuations: *continuations,
                        }),
                        then_of(&index, &point.end, &point.added, Decision::Finish),
                    ),
                    PointInputRecord::PostToolCall { call_id, arguments } => {
                        let (Some(call), Some(output)) = (
                            index.calls.get(call_id.as_str()),
                            index.results.get(call_id.as_str()),
                        ) else {
                            continue;
                        };
                        let mut ran = (*call).clone();
                        if let Some(arguments) = arguments {
                            ran.arguments = arguments.clone();
                        }
                        (
                            PointInput::ToolResult(ran, output.clone()),
                            then_of(&index, &point.end, &point.added, Decision::Continue),
                        )
                    }
                };
                points.push(RecordedPoint {
                    turn,
                    input,
                    then,
                    chain,
                });
            }
            _ => {}
        }
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
                Ok(ToolDecision::Allow) => Decision::Allow,
                Ok(ToolDecision::Deny(reason)) => Decision::Deny {
                    reason,
                    by: Some(format!("plugin:{name}")),
                },
                Ok(ToolDecision::Rewrite(arguments)) => Decision::Rewrite { arguments },
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
