//! What a write would replace, and putting it back: the two halves of checkpoints and undo,
//! through the same real-path rules as `write_file` (never `.warden/`, `.git/`, a deny glob,
//! a symlink in the final name, or anything outside the workspace).

use std::ffi::OsStr;
use std::io::{ErrorKind, Read};
use std::path::Path;

use cap_std::fs::{OpenOptions, OpenOptionsExt};
use sha2::{Digest, Sha256};

use super::atomic::replace_file;
use super::error::ToolError;
use super::path::{locate_path_in, open_parent};
use super::workspace::Workspace;
use super::write::writable;
use crate::domain::builtin::WRITE_FILE;
use crate::domain::file_name;

/// A file as a write would find it: its path relative to the workspace root (as the kernel
/// names it) and its content.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Snapshot {
    /// Relative to the workspace root.
    pub path: String,
    /// What is there.
    pub content: Content,
}

/// A file's content as a snapshot holds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// No file.
    Missing,
    /// The bytes (at most the snapshot's limit).
    Bytes(Vec<u8>),
    /// Over the limit: only its SHA-256 (read in chunks, never held whole).
    Large {
        /// Hex SHA-256.
        sha: String,
    },
}

impl Content {
    /// Hex SHA-256 of the content; `None` when there is no file.
    pub fn sha(&self) -> Option<String> {
        match self {
            Content::Missing => None,
            Content::Bytes(bytes) => Some(hex(&Sha256::digest(bytes))),
            Content::Large { sha } => Some(sha.clone()),
        }
    }
}

fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The file `path` (a tool's path argument) names, read under the write rules: its bytes when
/// at most `limit`, else its SHA-256 only. An error when the rules refuse the path (the tool
/// would refuse it too).
pub fn snapshot(ws: &Workspace, path: &str, limit: u64) -> Result<Snapshot, ToolError> {
    snapshot_at(ws, Path::new(path), path, limit)
}

/// [`snapshot`] of the root-relative file `name`, whatever its bytes (a name a command
/// created); messages name it escaped.
pub fn snapshot_name(ws: &Workspace, name: &OsStr, limit: u64) -> Result<Snapshot, ToolError> {
    snapshot_at(ws, Path::new(name), &file_name::shown(name), limit)
}

fn snapshot_at(
    ws: &Workspace,
    requested: &Path,
    path: &str,
    limit: u64,
) -> Result<Snapshot, ToolError> {
    let at = locate_path_in(ws, requested, path)?;
    let parent = match open_parent(ws, &at, path, false) {
        Ok(parent) => parent,
        // A missing directory: the file does not exist yet (its name is the path as located).
        Err(ToolError::Other(msg)) if msg.contains("does not exist") => {
            return Ok(Snapshot {
                path: at
                    .parts
                    .iter()
                    .map(|p| p.to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/"),
                content: Content::Missing,
            });
        }
        Err(e) => return Err(e),
    };
    let exists = writable(ws, &parent, path, WRITE_FILE)?.is_some();
    let shown = ws.shown(&parent.target());
    if !exists {
        return Ok(Snapshot {
            path: shown,
            content: Content::Missing,
        });
    }
    // Checked again on the open file: what a command swapped in since (a FIFO, a device) is
    // never read, and opening never blocks.
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let mut file = parent
        .dir
        .open_with(&parent.name, &options)
        .map_err(|e| ToolError::io(path, e))?;
    if !file
        .metadata()
        .map_err(|e| ToolError::io(path, e))?
        .is_file()
    {
        return Err(ToolError::Other(format!("`{path}` is not a regular file")));
    }
    let mut bytes = Vec::new();
    (&mut file)
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io(path, e))?;
    if bytes.len() as u64 <= limit {
        return Ok(Snapshot {
            path: shown,
            content: Content::Bytes(bytes),
        });
    }
    let mut hasher = Sha256::new();
    hasher.update(&bytes);
    drop(bytes);
    let mut chunk = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut chunk).map_err(|e| ToolError::io(path, e))?;
        if n == 0 {
            break;
        }
        hasher.update(&chunk[..n]);
    }
    Ok(Snapshot {
        path: shown,
        content: Content::Large {
            sha: hex(&hasher.finalize()),
        },
    })
}

/// Put `path` back to `bytes` (created or replaced, keeping its permission bits), or remove it
/// when `bytes` is `None`.
pub fn restore(ws: &Workspace, path: &str, bytes: Option<&[u8]>) -> Result<(), ToolError> {
    restore_at(ws, Path::new(path), path, bytes, None)
}

/// [`restore`] of the root-relative file `name`, whatever its bytes; messages name it
/// escaped.
pub fn restore_name(ws: &Workspace, name: &OsStr, bytes: Option<&[u8]>) -> Result<(), ToolError> {
    restore_at(ws, Path::new(name), &file_name::shown(name), bytes, None)
}

/// [`restore_name`] with the permission bits `mode` (rather than those of the file there).
pub fn restore_name_with_mode(
    ws: &Workspace,
    name: &OsStr,
    bytes: &[u8],
    mode: u32,
) -> Result<(), ToolError> {
    restore_at(
        ws,
        Path::new(name),
        &file_name::shown(name),
        Some(bytes),
        Some(mode),
    )
}

fn restore_at(
    ws: &Workspace,
    requested: &Path,
    path: &str,
    bytes: Option<&[u8]>,
    mode: Option<u32>,
) -> Result<(), ToolError> {
    let at = locate_path_in(ws, requested, path)?;
    let parent = match (open_parent(ws, &at, path, bytes.is_some()), bytes) {
        (Ok(parent), _) => parent,
        (Err(ToolError::Other(msg)), None) if msg.contains("does not exist") => return Ok(()),
        (Err(e), _) => return Err(e),
    };
    let mode = mode.or(writable(ws, &parent, path, WRITE_FILE)?);
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
