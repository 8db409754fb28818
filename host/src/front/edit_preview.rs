//! What a call that edits a file would change (arguments `path` plus `content`, or `path` plus
//! `old_string`/`new_string`): the file as it is, read through the real-path rules
//! (`crate::confine`: inside the workspace root, not denied by the deny globs, a regular UTF-8
//! file of at most [`MAX_READ`] bytes), and the text it would hold. When the file cannot be
//! read (new, denied, outside, binary) only the new content is known, and the reason why. The
//! chat shows it as a diff in its approval question; an editor gets it as a `diff` block.

use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::confine::FsPolicy;
use crate::confine::real_path::real_path;

/// Largest current file read for a diff.
const MAX_READ: u64 = 1 << 20;

/// Reads workspace files for an approval's diff.
pub struct Files {
    root: PathBuf,
    policy: FsPolicy,
}

impl Files {
    /// The reader for workspace `root` under the deny globs `deny`; `None` when the root
    /// cannot be resolved (then approvals show only the new content).
    pub fn new(root: &Path, deny: &[String]) -> Option<Self> {
        let root = root.canonicalize().ok()?;
        let policy = FsPolicy::new(std::slice::from_ref(&root), deny).ok()?;
        Some(Self { root, policy })
    }

    /// The current text of `path` (relative to the root), or why it cannot be shown.
    pub fn read(&self, path: &str) -> Result<String, String> {
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

/// A proposed change to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProposedEdit {
    /// The path as the call names it (relative to the workspace root).
    pub path: String,
    /// The file's text now; `None` when it could not be read (see `note`).
    pub old: Option<String>,
    /// The text it would hold (for an edit whose file could not be read: the new string).
    pub new: String,
    /// Why the current file is not shown, when it is not.
    pub note: Option<String>,
}

/// What `arguments` would change, or `None` when the call is not an edit.
pub fn proposed(files: Option<&Files>, arguments: &Value) -> Option<ProposedEdit> {
    let text = |key: &str| arguments.get(key).and_then(Value::as_str);
    let path = text("path")?;
    let current = files.map_or_else(|| Err("cannot be read".to_owned()), |f| f.read(path));
    let (old, new, note) = match (text("content"), text("old_string"), text("new_string")) {
        (Some(content), _, _) => match current {
            Ok(old) => (Some(old), content.to_owned(), None),
            Err(why) => (None, content.to_owned(), Some(why)),
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
                    (Some(old), new, None)
                }
                Ok(_) => (
                    Some(from.to_owned()),
                    to.to_owned(),
                    Some("old_string is not in the file".to_owned()),
                ),
                Err(why) => (Some(from.to_owned()), to.to_owned(), Some(why)),
            }
        }
        _ => return None,
    };
    Some(ProposedEdit {
        path: path.to_owned(),
        old,
        new,
        note,
    })
}
