//! What a compaction and an undo did, as lines for a person (the chat prints them, an editor
//! gets them as a message).

use crate::worker::Compacted;
use crate::worker::undo::UndoReport;

/// `compacted items 3–40 into 5 items; files re-read: a.rs`.
pub fn compacted(done: &Compacted) -> String {
    format!(
        "compacted items {}–{} into {} items; files re-read: {}",
        done.replaces.from,
        done.replaces.to,
        done.items,
        if done.files.is_empty() {
            "none".to_owned()
        } else {
            done.files.join(", ")
        }
    )
}

/// One line per file, then a summary.
pub fn undone(report: &UndoReport, session: &str) -> Vec<String> {
    if report.turns.is_empty() {
        return vec![format!("session {session}: no file changes to undo")];
    }
    let mut lines: Vec<String> = report
        .lines
        .iter()
        .map(|line| format!("{}: {}", line.path, line.done))
        .collect();
    let failed = report.lines.iter().filter(|l| !l.ok).count();
    lines.push(if failed == 0 {
        format!(
            "undid {} turn{} of session {session}",
            report.turns.len(),
            if report.turns.len() == 1 { "" } else { "s" }
        )
    } else {
        format!("{failed} file(s) could not be restored (see above)")
    });
    lines
}
