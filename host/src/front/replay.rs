//! A session's history as a front end shows it again when the session is continued (an
//! editor's `session/load`): each prompt the person typed, then the events a turn would have
//! sent for what was committed after it — answer text, each tool call with its result, each
//! plan the model set. Items the host or a plugin injected (attached files, reminders,
//! summaries) are not replayed: the person never saw them as messages.

use crate::domain::builtin::UPDATE_PLAN;
use crate::domain::plan::Plan;
use crate::domain::{Item, TurnEvent};

/// One thing to show again.
#[derive(Debug, Clone, PartialEq)]
pub enum Replayed {
    /// A prompt the person typed.
    Prompt(String),
    /// What a turn sent for a committed item.
    Event(TurnEvent),
}

/// `items` (a session's history, in order) as what to show again.
pub fn replay<'a>(items: impl IntoIterator<Item = &'a Item>) -> Vec<Replayed> {
    let items: Vec<&Item> = items.into_iter().collect();
    let result_of = |id: &str| {
        items.iter().find_map(|item| match item {
            Item::ToolResult {
                call_id,
                content,
                is_error,
            } if call_id == id => Some((content.clone(), *is_error)),
            _ => None,
        })
    };
    let mut out = Vec::new();
    for item in &items {
        match item {
            Item::User { text } => out.push(Replayed::Prompt(text.clone())),
            Item::Assistant { text, tool_calls } => {
                if !text.is_empty() {
                    out.push(Replayed::Event(TurnEvent::TextDelta { text: text.clone() }));
                }
                for call in tool_calls {
                    out.push(Replayed::Event(TurnEvent::ToolCallRequested {
                        call: call.clone(),
                    }));
                    let Some((output, is_error)) = result_of(&call.id) else {
                        continue;
                    };
                    out.push(Replayed::Event(TurnEvent::ToolCallRan {
                        call: call.clone(),
                        is_error,
                        exit_code: None,
                        output,
                    }));
                    if call.name == UPDATE_PLAN
                        && !is_error
                        && let Ok(plan) = Plan::parse(&call.arguments)
                    {
                        out.push(Replayed::Event(TurnEvent::PlanUpdated {
                            call_id: call.id.clone(),
                            steps: plan.steps,
                            explanation: plan.explanation,
                        }));
                    }
                }
            }
            Item::System { .. } | Item::ToolResult { .. } => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;
    use serde_json::json;

    #[test]
    fn prompts_answers_calls_results_and_plans_replay_in_order_and_injected_items_do_not() {
        let plan = ToolCall {
            id: "p1".into(),
            name: UPDATE_PLAN.into(),
            arguments: json!({"plan": [{"step": "read", "status": "in_progress"}]}),
        };
        let read = ToolCall {
            id: "r1".into(),
            name: "read_file".into(),
            arguments: json!({"path": "a.txt"}),
        };
        let items = vec![
            Item::user("look at a.txt"),
            Item::system("<file a.txt>"),
            Item::Assistant {
                text: "on it".into(),
                tool_calls: vec![plan.clone(), read.clone()],
            },
            Item::ToolResult {
                call_id: "r1".into(),
                content: "body".into(),
                is_error: false,
            },
            Item::ToolResult {
                call_id: "p1".into(),
                content: "plan updated".into(),
                is_error: false,
            },
            Item::assistant("done"),
        ];
        let replayed = replay(&items);
        let kinds: Vec<String> = replayed
            .iter()
            .map(|r| match r {
                Replayed::Prompt(text) => format!("prompt:{text}"),
                Replayed::Event(event) => serde_json::to_value(event)
                    .ok()
                    .and_then(|v| v["type"].as_str().map(str::to_owned))
                    .unwrap_or_default(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "prompt:look at a.txt",
                "text_delta",
                "tool_call_requested",
                "tool_call_ran",
                "plan_updated",
                "tool_call_requested",
                "tool_call_ran",
                "text_delta",
            ]
        );
        assert!(
            matches!(&replayed[6], Replayed::Event(TurnEvent::ToolCallRan { output, .. }) if output == "body")
        );
    }
}
