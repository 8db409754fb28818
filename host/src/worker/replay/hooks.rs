//! A hook replayed with the events the history rebuilds.

use crate::domain::{Entry, Event, Hook, Item, Source};
use crate::store::Record;

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
