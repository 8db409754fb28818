//! Child sessions report to their parent: when a turn of a session started with a parent ends,
//! however it ends, one notification is queued to the parent's inbox. The parent commits it
//! before its next request, exactly once, like any notification.

use super::{HOST, TurnOutcome, Worker};
use crate::domain::defaults::truncation_marker;
use crate::domain::{Alert, TurnSink};
use crate::worker::WorkerError;

impl Worker {
    /// Queue the report of a turn that ended with `result` to the parent's inbox, if there is
    /// a parent. A failure to queue is a warning: the child's own turn is already committed.
    pub(super) fn report_to_parent(
        &mut self,
        sink: &mut dyn TurnSink,
        result: &Result<TurnOutcome, WorkerError>,
    ) {
        let Some(parent) = self.writer.header().parent.clone() else {
            return;
        };
        let text = child_report(
            self.writer.id(),
            result,
            usize::try_from(self.config.fileref.max_bytes).unwrap_or(usize::MAX),
        );
        if let Err(err) = self.writer.report_to_parent(&text) {
            self.raise(
                sink,
                Alert::warn(
                    HOST,
                    format!("the report to parent session {parent} was not queued: {err}"),
                ),
            );
        }
    }
}

/// The notification text a child's turn leaves for its parent: child id, outcome, and the
/// answer (or reason) cut at `max_bytes` with the truncation marker.
pub(crate) fn child_report(
    child: &str,
    result: &Result<TurnOutcome, WorkerError>,
    max_bytes: usize,
) -> String {
    let (outcome, body) = match result {
        Ok(TurnOutcome::Answered { text }) => ("answered", text.clone()),
        Ok(TurnOutcome::Cancelled { plugin, reason }) => (
            "cancelled",
            format!("cancelled by plugin {plugin}: {reason}"),
        ),
        Ok(TurnOutcome::Stopped { reason }) => ("stopped", reason.clone()),
        Ok(TurnOutcome::Interrupted { reason }) => ("interrupted", reason.clone()),
        Err(err) => ("failed", err.to_string()),
    };
    let body = if body.len() > max_bytes {
        let mut cut = max_bytes;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        format!("{}\n{}", &body[..cut], truncation_marker(body.len() as u64))
    } else {
        body
    };
    format!(
        "Ambient report from child session {child}, not a request: its turn ended ({outcome}).\n\
         <child-report session=\"{child}\" outcome=\"{outcome}\">\n{body}\n</child-report>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_answer_is_cut_at_the_cap_and_marked() {
        let answer = Ok(TurnOutcome::Answered {
            text: "é".repeat(10),
        });
        let text = child_report("c1", &answer, 5);
        assert!(text.contains("outcome=\"answered\""), "{text}");
        assert!(
            text.contains("\néé\n[...truncated, 20 bytes total"),
            "{text}"
        );
        let short = child_report("c1", &answer, 100);
        assert!(short.contains(&"é".repeat(10)) && !short.contains("truncated"));
    }
}
