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
//!
//! - `points`: the terms of a replay ([`Decision`], [`PointInput`], [`RecordedPoint`]) and
//!   [`session_points`], which picks where a session's points come from;
//! - `recorded`: the points from the audit log's records;
//! - `inferred`: the points rebuilt from the history, for older sessions;
//! - `run`: [`replay_interceptor`], with what a decision now would have prevented;
//! - `hooks`: [`recorded_events`] and [`replay_hook`].

mod hooks;
mod inferred;
mod points;
mod recorded;
mod run;

pub use hooks::{recorded_events, replay_hook};
pub use inferred::recorded_points;
pub use points::{Decision, PointInput, PointsFrom, RecordedPoint, ShownItem, session_points};
pub use run::{ReplayRow, replay_interceptor};

#[cfg(test)]
mod tests {
    use std::time::SystemTime;

    use super::*;
    use crate::domain::ToolCall;
    use crate::domain::{Item, Source};
    use crate::store::{AuditEvent, AuditRecord, Record};

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
            usage: None,
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
