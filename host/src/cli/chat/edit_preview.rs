//! What an approval shows of a call that edits a file: the change `front::edit_preview` works
//! out, as a unified diff (when the current file cannot be read, the change as asked and the
//! reason why). What a shell call's approval shows: its command, and that it runs in the
//! sandbox.

use serde_json::Value;

use super::style::Style;
use crate::domain::diff::{DiffLine, unified};
use crate::domain::escape::{escape, escape_capped};
use crate::domain::{Escalation, EscalationKind};
pub(crate) use crate::front::edit_preview::Files;
use crate::front::edit_preview::{ProposedEdit, proposed};

/// Most diff lines shown.
const MAX_LINES: usize = 200;
/// Longest line shown.
const MAX_LINE: usize = 400;

/// The diff lines an approval of `arguments` shows, or `None` when the call is not an edit.
pub(crate) fn edit_lines(style: Style, files: Option<&Files>, arguments: &Value) -> Option<String> {
    let ProposedEdit { old, new, note, .. } = proposed(files, arguments)?;
    let old = old.unwrap_or_default();
    let mut out = String::new();
    if let Some(why) = note {
        out.push_str(&format!(
            "  {}\n",
            style.dim(&format!(
                "(current file not shown: {}; the change as asked)",
                escape_capped(&why, MAX_LINE)
            ))
        ));
    }
    let lines = unified(&old, &new);
    if lines.is_empty() {
        out.push_str(&format!("  {}\n", style.dim("(no change)")));
    }
    for line in lines.iter().take(MAX_LINES) {
        let shown = match line {
            DiffLine::Hunk(h) => style.hunk(h),
            DiffLine::Same(l) => format!(" {}", escape_capped(l, MAX_LINE)),
            DiffLine::Removed(l) => style.removed(&format!("-{}", escape_capped(l, MAX_LINE))),
            DiffLine::Added(l) => style.added(&format!("+{}", escape_capped(l, MAX_LINE))),
        };
        out.push_str(&format!("  {shown}\n"));
    }
    if lines.len() > MAX_LINES {
        out.push_str(&format!(
            "  {}\n",
            style.dim(&format!("… {} more diff lines", lines.len() - MAX_LINES))
        ));
    }
    Some(out)
}

/// Longest command shown in full in an approval question; a longer one shows its first
/// [`HEAD_SHOWN`] and last [`TAIL_SHOWN`] bytes, says how many are not shown and how to see
/// them all (`[v]`): never cut silently.
pub(crate) const MAX_COMMAND: usize = 2000;
const HEAD_SHOWN: usize = 1200;
const TAIL_SHOWN: usize = 600;

/// The lines a shell call's approval shows: its command (escaped; whole when `whole` or short
/// enough), and where it runs — in the sandbox, with what an escalation adds, or plainly
/// outside it.
pub(crate) fn shell_lines(arguments: &Value, whole: bool) -> Option<String> {
    let command = arguments.get("command").and_then(Value::as_str)?;
    let escaped = escape(command);
    let shown = if whole || escaped.len() <= MAX_COMMAND {
        escaped.into_owned()
    } else {
        let head = floor_boundary(&escaped, HEAD_SHOWN);
        let tail = ceil_boundary(&escaped, escaped.len() - TAIL_SHOWN);
        format!(
            "{}\n  … {} bytes of the command not shown here (press [v] to see all of it) …\n  {}",
            &escaped[..head],
            tail - head,
            &escaped[tail..]
        )
    };
    let place = match Escalation::from_arguments(arguments) {
        Ok(Some(e)) if e.kind == EscalationKind::Unsandboxed => {
            "runs OUTSIDE the sandbox, with your own rights: every file you can reach, the network, your credentials".to_owned()
        }
        Ok(Some(e)) => format!("runs in the sandbox, with {}", escape_capped(&e.grants(), MAX_LINE)),
        _ => "runs in the sandbox".to_owned(),
    };
    Some(format!("  command: {shown}\n  {place}\n"))
}

/// The largest char boundary of `s` at or below `at`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The smallest char boundary of `s` at or above `at`.
fn ceil_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at += 1;
    }
    at
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn an_edit_is_a_diff_against_the_file_and_a_denied_file_is_not_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\ntwo\nthree\n").unwrap();
        std::fs::write(dir.path().join(".env"), "SECRET=1\n").unwrap();
        let files = Files::new(dir.path(), &[".env".to_owned()]).unwrap();
        let style = Style::plain();
        let edit =
            serde_json::json!({"path": "a.txt", "old_string": "two", "new_string": "2\u{1b}[2J"});
        let shown = edit_lines(style, Some(&files), &edit).unwrap();
        assert!(
            shown.contains("  @@ -1,3 +1,3 @@\n   one\n  -two\n  +2\\u{1b}[2J\n   three\n"),
            "{shown}"
        );
        let write = serde_json::json!({"path": ".env", "content": "SECRET=2\n"});
        let shown = edit_lines(style, Some(&files), &write).unwrap();
        assert!(!shown.contains("SECRET=1"), "{shown}");
        assert!(
            shown.contains("current file not shown: denied by the deny globs"),
            "{shown}"
        );
        assert!(shown.contains("+SECRET=2"), "{shown}");
        let outside = serde_json::json!({"path": "../x", "content": "y"});
        let shown = edit_lines(style, Some(&files), &outside).unwrap();
        assert!(shown.contains("current file not shown"), "{shown}");
        assert!(edit_lines(style, Some(&files), &serde_json::json!({"path": "a.txt"})).is_none());
        assert_eq!(
            shell_lines(&serde_json::json!({"command": "rm -rf /\u{7}"}), false).unwrap(),
            "  command: rm -rf /\\u{7}\n  runs in the sandbox\n"
        );
    }
}
