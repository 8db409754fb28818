//! A turn's limits: the step limit (`worker.max_steps`) and a model that loops (the same tool
//! calls, with the same arguments, getting the same results, several rounds in a row). Either
//! ends the turn resumably: a committed note tells the model (and the person reading the
//! session) what happened and how to go on.

use sha2::{Digest, Sha256};

use super::{HOST, TurnOutcome, Worker};
use crate::domain::{Alert, Entry, Event, Item, Source, ToolCall, TurnSink};
use crate::worker::WorkerError;

/// Rounds in a row of the same calls with the same results that end the turn.
pub(super) const REPEATS_THAT_END_A_TURN: u32 = 3;

/// The last round of tool calls and how many times in a row it came back unchanged.
#[derive(Debug, Default)]
pub(super) struct RepeatWatch {
    last: Option<[u8; 32]>,
    times: u32,
}

impl RepeatWatch {
    /// Records one round: `calls` (ids ignored) and `results`, the committed items after the
    /// answer. Returns how many times in a row this round came, once that reaches
    /// [`REPEATS_THAT_END_A_TURN`].
    pub(super) fn round<'a>(
        &mut self,
        calls: &[ToolCall],
        results: impl Iterator<Item = &'a Item>,
    ) -> Option<u32> {
        let mut hash = Sha256::new();
        for call in calls {
            hash.update(call.name.as_bytes());
            hash.update([0]);
            hash.update(call.arguments.to_string().as_bytes());
            hash.update([0]);
        }
        for item in results {
            // Results refer to calls by id, which changes every round: only what they say counts.
            if let Item::ToolResult {
                content, is_error, ..
            } = item
            {
                hash.update([u8::from(*is_error)]);
                hash.update(content.as_bytes());
                hash.update([0]);
            } else {
                hash.update(item.role().as_bytes());
                hash.update(item.text().as_bytes());
                hash.update([0]);
            }
        }
        let digest: [u8; 32] = hash.finalize().into();
        if self.last == Some(digest) {
            self.times += 1;
        } else {
            self.last = Some(digest);
            self.times = 1;
        }
        (self.times >= REPEATS_THAT_END_A_TURN).then_some(self.times)
    }
}

/// The reason a turn ends at the step limit of `max_steps` requests.
pub(super) fn steps_reason(max_steps: u32) -> String {
    format!(
        "the turn reached its limit of {max_steps} model requests (worker.max_steps); send `continue` to go on, or raise worker.max_steps"
    )
}

/// The reason a turn ends because `calls` came back `times` times in a row with the same
/// results.
pub(super) fn repeat_reason(calls: &[ToolCall], times: u32) -> String {
    let mut names: Vec<String> = Vec::new();
    for call in calls {
        let name = format!("`{}`", crate::domain::escape::escape_capped(&call.name, 64));
        if !names.contains(&name) {
            names.push(name);
        }
    }
    format!(
        "the model called {} with the same arguments and got the same result {times} times in a row; the turn ended so it does not loop. Send `continue` with a hint to go on",
        names.join(", ")
    )
}

impl Worker {
    /// Ends the turn at a limit: a warning, a committed note (so a resumed session shows the
    /// model why its turn ended), and [`TurnOutcome::Limited`].
    pub(super) fn limit_reached(
        &mut self,
        sink: &mut dyn TurnSink,
        reason: String,
    ) -> Result<TurnOutcome, WorkerError> {
        self.raise(sink, Alert::warn(HOST, reason.clone()));
        let note = Item::system(format!("[the turn ended early: {reason}]"));
        self.commit(sink, vec![Entry::new(Source::Host, note)])?;
        self.emit(sink, Event::TurnEnded(reason.clone()));
        Ok(TurnOutcome::Limited { reason })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(id: &str, path: &str) -> ToolCall {
        ToolCall {
            id: id.into(),
            name: "read_file".into(),
            arguments: serde_json::json!({ "path": path }),
        }
    }

    fn result(id: &str, text: &str) -> Item {
        Item::ToolResult {
            call_id: id.into(),
            content: text.into(),
            is_error: false,
        }
    }

    #[test]
    fn the_third_same_round_ends_the_turn_whatever_the_ids() {
        let mut watch = RepeatWatch::default();
        for (i, expected) in [None, None, Some(3), Some(4)].into_iter().enumerate() {
            let id = format!("c{i}");
            let got = watch.round(&[call(&id, "a")], [result(&id, "x")].iter());
            assert_eq!(got, expected, "round {i}");
        }
    }

    #[test]
    fn a_changed_argument_or_result_starts_the_count_again() {
        let mut watch = RepeatWatch::default();
        assert_eq!(
            watch.round(&[call("1", "a")], [result("1", "x")].iter()),
            None
        );
        assert_eq!(
            watch.round(&[call("2", "a")], [result("2", "x")].iter()),
            None
        );
        assert_eq!(
            watch.round(&[call("3", "a")], [result("3", "y")].iter()),
            None
        );
        assert_eq!(
            watch.round(&[call("4", "b")], [result("4", "y")].iter()),
            None
        );
        assert_eq!(
            watch.round(&[call("5", "b")], [result("5", "y")].iter()),
            None
        );
    }
}
