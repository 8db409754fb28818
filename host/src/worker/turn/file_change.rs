//! A change a call made to one file, as a [`FileChange`] for the front end: its kind, the
//! lines added and removed, and its unified diff (none when a side is binary or not kept);
//! and what a whole turn did to each file, for its summary.

use std::ffi::OsStr;

use crate::domain::diff::{render, unified};
use crate::domain::file_name;
use crate::domain::{ChangeKind, ChangeSummary, FileChange, ToolCall};
use crate::tools::Content;

/// Most diff lines one change carries (the rest is cut, and the change says so).
const MAX_DIFF_LINES: usize = 2000;

/// One side of a change.
#[derive(Clone)]
pub(crate) enum Side {
    /// No file.
    Missing,
    /// The file's bytes.
    Bytes(Vec<u8>),
    /// A file whose bytes are not at hand (over a size cap, or not kept).
    Unknown,
}

impl Side {
    /// The side a snapshot holds.
    pub(crate) fn of(content: &Content) -> Self {
        match content {
            Content::Missing => Self::Missing,
            Content::Bytes(bytes) => Self::Bytes(bytes.clone()),
            Content::Large { .. } => Self::Unknown,
        }
    }

    /// Its text: `Some("")` for no file, `None` when unknown or binary.
    fn text(&self) -> Option<&str> {
        match self {
            Self::Missing => Some(""),
            Self::Bytes(bytes) if !bytes.contains(&0) => std::str::from_utf8(bytes).ok(),
            Self::Bytes(_) | Self::Unknown => None,
        }
    }
}

/// A file one call changed: the change, with both sides.
pub(crate) struct Changed {
    pub(super) change: FileChange,
    before: Side,
    after: Side,
}

/// What `call` did to `path`, from `before` to `after`.
pub(super) fn changed(call: &ToolCall, path: &OsStr, before: Side, after: Side) -> Changed {
    Changed {
        change: file_change(call, path, &before, &after),
        before,
        after,
    }
}

/// The files a turn changed, each with its content before the turn's first change to it and
/// after its last.
#[derive(Default)]
pub(crate) struct TurnChanges(Vec<Changed>);

impl TurnChanges {
    /// One more change, in call order.
    pub(super) fn add(&mut self, change: Changed) {
        match self.0.iter_mut().find(|c| {
            c.change.path == change.change.path && c.change.path_hex == change.change.path_hex
        }) {
            Some(known) => known.after = change.after,
            None => self.0.push(change),
        }
    }

    /// Each file once, in the order first changed, with the lines the turn added and removed
    /// (its first content against its last; 0 and 0 when a side is binary or not kept).
    pub(super) fn summary(&self) -> Vec<ChangeSummary> {
        self.0
            .iter()
            .map(|c| {
                let (added, removed) = match (c.before.text(), c.after.text()) {
                    (Some(old), Some(new)) => {
                        let (_, added, removed) = render(&unified(old, new));
                        (added, removed)
                    }
                    _ => (c.change.added, c.change.removed),
                };
                ChangeSummary {
                    path: c.change.path.clone(),
                    path_hex: c.change.path_hex.clone(),
                    added,
                    removed,
                }
            })
            .collect()
    }
}

/// The change to `path` from `before` to `after` over several turns (no one call made it:
/// `call_id` and `tool` are empty).
pub(crate) fn net_change(path: &OsStr, before: &Side, after: &Side) -> FileChange {
    let nobody = ToolCall {
        id: String::new(),
        name: String::new(),
        arguments: serde_json::Value::Null,
    };
    file_change(&nobody, path, before, after)
}

fn file_change(call: &ToolCall, path: &OsStr, before: &Side, after: &Side) -> FileChange {
    let kind = match (before, after) {
        (Side::Missing, _) => ChangeKind::Created,
        (_, Side::Missing) => ChangeKind::Deleted,
        _ => ChangeKind::Modified,
    };
    let (diff, added, removed, diff_cut) = match (before.text(), after.text()) {
        (Some(old), Some(new)) => {
            let lines = unified(old, new);
            let cut = lines.len() > MAX_DIFF_LINES;
            let (diff, added, removed) = render(&lines[..lines.len().min(MAX_DIFF_LINES)]);
            // The counts are of the whole change, even when its diff is cut.
            let (_, added_all, removed_all) = if cut {
                render(&lines)
            } else {
                (String::new(), added, removed)
            };
            (diff, added_all, removed_all, cut)
        }
        _ => (String::new(), 0, 0, false),
    };
    let (path, path_hex) = file_name::encode(path);
    FileChange {
        call_id: call.id.clone(),
        tool: call.name.clone(),
        path,
        path_hex,
        kind,
        added,
        removed,
        diff,
        diff_cut,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call() -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "edit_file".into(),
            arguments: serde_json::json!({}),
        }
    }

    #[test]
    fn a_text_change_has_its_diff_and_counts() {
        let change = file_change(
            &call(),
            OsStr::new("a.rs"),
            &Side::Bytes(b"a\nb\n".to_vec()),
            &Side::Bytes(b"a\nB\nc\n".to_vec()),
        );
        assert_eq!(change.kind, ChangeKind::Modified);
        assert_eq!((change.added, change.removed), (2, 1));
        assert!(change.diff.contains("-b\n+B\n+c\n"), "{}", change.diff);
        let created = file_change(
            &call(),
            OsStr::new("n"),
            &Side::Missing,
            &Side::Bytes(b"x\n".to_vec()),
        );
        assert_eq!((created.kind, created.added), (ChangeKind::Created, 1));
        let binary = file_change(
            &call(),
            OsStr::new("b"),
            &Side::Bytes(vec![0, 1]),
            &Side::Missing,
        );
        assert_eq!(binary.kind, ChangeKind::Deleted);
        assert!(binary.diff.is_empty());
        let unknown = file_change(
            &call(),
            OsStr::new("u"),
            &Side::Unknown,
            &Side::Bytes(b"x".to_vec()),
        );
        assert!(unknown.diff.is_empty());
    }

    #[test]
    fn a_turns_summary_is_each_files_net_change() {
        let mut turn = TurnChanges::default();
        let text = |t: &str| Side::Bytes(t.as_bytes().to_vec());
        turn.add(changed(
            &call(),
            OsStr::new("n"),
            Side::Missing,
            text(
                "a
b
",
            ),
        ));
        turn.add(changed(
            &call(),
            OsStr::new("o"),
            text(
                "x
",
            ),
            text(
                "y
",
            ),
        ));
        turn.add(changed(
            &call(),
            OsStr::new("n"),
            text(
                "a
b
",
            ),
            text(
                "a
c
",
            ),
        ));
        let summary = turn.summary();
        assert_eq!(summary.len(), 2);
        assert_eq!((summary[0].added, summary[0].removed), (2, 0));
        assert_eq!((summary[1].added, summary[1].removed), (1, 1));
    }
}
