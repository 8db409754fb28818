//! What an approval shows of a call that edits a file (arguments `path` plus `content`, or
//! `path` plus `old_string`/`new_string`): a unified diff against the file as it is, read
//! through the real-path rules (`crate::confine`: inside the workspace root, not denied by the
//! deny globs, a regular UTF-8 file of at most [`MAX_READ`] bytes). When the file cannot be
//! read (new, denied, outside, binary) only the new content is shown, and the reason why.
//! What a shell call's approval shows: its command, and that it runs in the sandbox.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::style::Style;
use crate::confine::FsPolicy;
use crate::confine::real_path::real_path;
use crate::domain::diff::{DiffLine, unified};
use crate::domain::escape::{escape, escape_capped};
use crate::domain::{Escalation, EscalationKind};

/// Largest current file read for a diff.
const MAX_READ: u64 = 1 << 20;
/// Most diff lines shown.
const MAX_LINES: usize = 200;
/// Longest line shown.
const MAX_LINE: usize = 400;

/// Reads workspace files for an approval's diff.
pub(crate) struct Files {
    root: PathBuf,
    policy: FsPolicy,
}

impl Files {
    /// The reader for workspace `root` under the deny globs `deny`; `None` when the root
    /// cannot be resolved (then approvals show only the new content).
    pub(crate) fn new(root: &Path, deny: &[String]) -> Option<Self> {
        let root = root.canonicalize().ok()?;
        let policy = FsPolicy::new(std::slice::from_ref(&root), deny).ok()?;
        Some(Self { root, policy })
    }

    /// The current text of `path` (relative to the root), or why it cannot be shown.
    fn read(&self, path: &str) -> Result<String, String> {
        let full = self.root.join(path);
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(&full)
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::NotFound => "a new file".to_owned(),
                _ => format!("cannot be read: {err}"),
            })?;
        let real = real_path(&file).map_err(|err| format!("cannot be read: {err}"))?;
        self.policy
            .check_read(&real)
            .map_err(|refusal| refusal.reason().to_owned())?;
        let meta = file.metadata().map_err(|err| err.to_string())?;
        if !meta.is_file() {
            return Err("not a regular file".into());
        }
        if meta.len() > MAX_READ {
            return Err(format!("larger than {} KiB", MAX_READ >> 10));
        }
        let mut bytes = Vec::new();
        file.take(MAX_READ)
            .read_to_end(&mut bytes)
            .map_err(|err| err.to_string())?;
        String::from_utf8(bytes).map_err(|_| "not UTF-8 text".to_owned())
    }
}

/// The diff lines an approval of `arguments` shows, or `None` when the call is not an edit.
pub(crate) fn edit_lines(style: Style, files: Option<&Files>, arguments: &Value) -> Option<String> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    let path = text("path")?;
    let current = files.map_or_else(|| Err("cannot be read".to_owned()), |f| f.read(path));
    let (old, new, note) = match (text("content"), text("old_string"), text("new_string")) {
        (Some(content), _, _) => match current {
            Ok(old) => (old, content.to_owned(), None),
            Err(why) => (String::new(), content.to_owned(), Some(why)),
        },
        (None, Some(from), Some(to)) => {
            let all = arguments.get("replace_all").and_then(Value::as_bool) == Some(true);
            match current {
                Ok(old) if old.contains(from) => {
                    let new = if all {
                        old.replace(from, to)
                    } else {
                        old.replacen(from, to, 1)
                    };
                    (old, new, None)
                }
                Ok(_) => (
                    from.to_owned(),
                    to.to_owned(),
                    Some("old_string is not in the file".to_owned()),
                ),
                Err(why) => (from.to_owned(), to.to_owned(), Some(why)),
            }
        }
        _ => return None,
    };
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
