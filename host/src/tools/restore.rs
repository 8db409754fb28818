//! What a write would replace, and putting it back: the two halves of checkpoints and undo,
//! through the same real-path rules as `write_file` (never `.warden/`, `.git/`, a deny glob,
//! a symlink in the final name, or anything outside the workspace).

use std::io::ErrorKind;

use super::atomic::replace_file;
use super::error::ToolError;
use super::path::{locate_in, open_parent};
use super::workspace::Workspace;
use super::write::writable;
use crate::domain::builtin::WRITE_FILE;

/// A file as a write would find it: its path relative to the workspace root (as the kernel
/// names it) and its bytes, `None` when it does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Relative to the workspace root.
    pub path: String,
    /// The content, or `None` when there is no file.
    pub bytes: Option<Vec<u8>>,
}

/// The file `path` (a tool's path argument) names, read under the write rules. An error when
/// the rules refuse the path (the tool would refuse it too).
pub fn snapshot(ws: &Workspace, path: &str) -> Result<Snapshot, ToolError> {
    let at = locate_in(ws, path)?;
    let parent = match open_parent(ws, &at, path, false) {
        Ok(parent) => parent,
        // A missing directory: the file does not exist yet (its name is the path as located).
        Err(ToolError::Other(msg)) if msg.contains("does not exist") => {
            return Ok(Snapshot {
                path: at.parts.join("/"),
                bytes: None,
            });
        }
        Err(e) => return Err(e),
    };
    let exists = writable(ws, &parent, path, WRITE_FILE)?.is_some();
    let shown = ws.shown(&parent.target());
    let bytes = if exists {
        Some(
            parent
                .dir
                .read(&parent.name)
                .map_err(|e| ToolError::io(path, e))?,
        )
    } else {
        None
    };
    Ok(Snapshot { path: shown, bytes })
}

/// Put `path` back to `bytes` (created or replaced, keeping its permission bits), or remove it
/// when `bytes` is `None`.
pub fn restore(ws: &Workspace, path: &str, bytes: Option<&[u8]>) -> Result<(), ToolError> {
    let at = locate_in(ws, path)?;
    let parent = match (open_parent(ws, &at, path, bytes.is_some()), bytes) {
        (Ok(parent), _) => parent,
        (Err(ToolError::Other(msg)), None) if msg.contains("does not exist") => return Ok(()),
        (Err(e), _) => return Err(e),
    };
    let mode = writable(ws, &parent, path, WRITE_FILE)?;
    match bytes {
        Some(bytes) => {
            replace_file(&parent.dir, &parent.name, bytes, mode).map_err(|e| ToolError::io(path, e))
        }
        None => match parent.dir.remove_file(&parent.name) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(ToolError::io(path, e)),
        },
    }
}
