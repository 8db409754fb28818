//! The call points of a session from its audit log's `point` and `tool_call` records, written
//! as each point happened; their inputs are looked up in the history.

use std::collections::HashMap;

use super::points::{Decision, PointInput, RecordedPoint, ShownItem};
use crate::domain::{
    CallPoint, Item, RequestInfo, SubmittedPrompt, ToolCall, ToolOutput, TurnInfo,
};
use crate::store::{AuditEvent, AuditRecord, PointEndRecord, PointInputRecord, Record};

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
pub(super) fn points_from_audit(
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
                    // A rule that let it run is named, as one that denied it is.
                    _ => Decision::Allow {
                        by: by.starts_with("rule:").then(|| by.clone()),
                    },
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
