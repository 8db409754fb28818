//! Checkpoints: what a turn's `write_file` / `edit_file` / `shell` calls changed, so that `warden undo`
//! can put it back. Lives in the session directory (`sessions/<id>/checkpoints/`), so deleting
//! or pruning the session removes it:
//!
//! ```text
//! checkpoints/blobs/<sha256>        a file's previous bytes, content-addressed
//! checkpoints/turn-<N>.jsonl        one line per change of turn N, in the order made
//! ```
//!
//! Bounded: a file over [`MAX_FILE_BYTES`], or one that would take the session's blobs over
//! [`MAX_SESSION_BYTES`], is recorded as not saved (undo names it). Blobs are written with
//! [`write_atomic`](super::fsio::write_atomic); each manifest line is appended and fsynced (the
//! directory too when the file is new).

use std::ffi::OsString;
use std::fs::{self, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::StoreError;
use super::fsio::{fsync_dir, sync_file, write_atomic, write_unsynced};
use crate::domain::file_name;

/// The checkpoint directory's name inside a session directory.
pub const CHECKPOINT_DIR: &str = "checkpoints";
/// Largest previous content saved for one file.
pub const MAX_FILE_BYTES: u64 = 16 * 1024 * 1024;
/// Largest total of saved blobs in one session.
pub const MAX_SESSION_BYTES: u64 = 256 * 1024 * 1024;

/// One change of one file by one tool call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// The turn it belongs to.
    pub turn: u64,
    /// The file, relative to the workspace root (its name with U+FFFD for bytes that are not
    /// UTF-8; see [`file_name`](crate::domain::file_name)).
    pub path: String,
    /// The name's exact bytes in hex, present only when it is not UTF-8.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub path_hex: Option<String>,
    /// SHA-256 of the previous bytes; absent when the file did not exist.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<String>,
    /// SHA-256 of the bytes the tool left; absent when it left no file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// False when the previous bytes were over a cap and not kept.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub saved: bool,
    /// The `shell` command that made the change (found by scanning the workspace around it);
    /// absent for `write_file` / `edit_file`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// True on a line saying the scan around `command` stopped at a bound: changes it made
    /// past the bound were not recorded (`path` is empty).
    #[serde(default, skip_serializing_if = "is_false")]
    pub partial: bool,
    /// Permission bits before the change (absent: not recorded, or nothing was there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// Permission bits after the change (absent: not recorded, or nothing is there).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode_after: Option<u32>,
    /// True when the line is a directory a command removed (`mode` is its mode before);
    /// `before` and `after` are then absent.
    #[serde(default, skip_serializing_if = "is_false")]
    pub dir: bool,
}

impl Change {
    /// The file's exact name, relative to the workspace root.
    pub fn name(&self) -> Result<OsString, String> {
        file_name::decode(&self.path, self.path_hex.as_deref())
    }

    /// The file's name for a person or the model, escaped.
    pub fn shown(&self) -> String {
        file_name::shown_fields(&self.path, self.path_hex.as_deref())
    }
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn yes() -> bool {
    true
}

fn is_true(b: &bool) -> bool {
    *b
}

/// Hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The checkpoints of one session.
#[derive(Debug, Clone)]
pub struct Checkpoints {
    dir: PathBuf,
    file_cap: u64,
    session_cap: u64,
    /// Bytes of blobs, counted on first use.
    used: Option<u64>,
}

impl Checkpoints {
    /// The checkpoints kept in session directory `session_dir` (created on first save).
    pub fn new(session_dir: &Path) -> Self {
        Self::with_caps(session_dir, MAX_FILE_BYTES, MAX_SESSION_BYTES)
    }

    /// [`Checkpoints::new`] with other caps (tests).
    pub fn with_caps(session_dir: &Path, file_cap: u64, session_cap: u64) -> Self {
        Self {
            dir: session_dir.join(CHECKPOINT_DIR),
            file_cap,
            session_cap,
            used: None,
        }
    }

    fn blobs(&self) -> PathBuf {
        self.dir.join("blobs")
    }

    fn ensure_dirs(&self) -> Result<(), StoreError> {
        let blobs = self.blobs();
        if !blobs.is_dir() {
            fs::create_dir_all(&blobs).map_err(StoreError::io("create directory", &blobs))?;
            fsync_dir(&self.dir)?;
            if let Some(parent) = self.dir.parent() {
                fsync_dir(parent)?;
            }
        }
        Ok(())
    }

    fn used(&mut self) -> Result<u64, StoreError> {
        if let Some(used) = self.used {
            return Ok(used);
        }
        let mut total = 0;
        match fs::read_dir(self.blobs()) {
            Ok(entries) => {
                for entry in entries.flatten() {
                    total += entry.metadata().map(|m| m.len()).unwrap_or(0);
                }
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {}
            Err(e) => return Err(StoreError::io("read directory", &self.blobs())(e)),
        }
        self.used = Some(total);
        Ok(total)
    }

    /// Keep `bytes` (a file's previous content): its sha, and whether it was kept (false when
    /// over a cap).
    pub fn save(&mut self, bytes: &[u8]) -> Result<(String, bool), StoreError> {
        self.keep(bytes, true)
    }

    /// Like [`Checkpoints::save`], without making the blob durable: for content kept on the
    /// chance it is needed (a workspace scanned before a command). [`Checkpoints::make_durable`]
    /// makes the blobs a manifest line will name durable before the line is written; one lost
    /// in a crash before that was never named.
    pub fn save_unsynced(&mut self, bytes: &[u8]) -> Result<(String, bool), StoreError> {
        self.keep(bytes, false)
    }

    /// `fsync` of the blobs `shas` and of their directory.
    pub fn make_durable<'a>(
        &self,
        shas: impl IntoIterator<Item = &'a str>,
    ) -> Result<(), StoreError> {
        let mut any = false;
        for sha in shas {
            sync_file(&self.blobs().join(sha))?;
            any = true;
        }
        if any {
            fsync_dir(&self.blobs())?;
        }
        Ok(())
    }

    fn keep(&mut self, bytes: &[u8], sync: bool) -> Result<(String, bool), StoreError> {
        let sha = sha256_hex(bytes);
        let len = bytes.len() as u64;
        if len > self.file_cap {
            return Ok((sha, false));
        }
        self.ensure_dirs()?;
        if self.blobs().join(&sha).is_file() {
            return Ok((sha, true));
        }
        let used = self.used()?;
        if used + len > self.session_cap {
            return Ok((sha, false));
        }
        if sync {
            write_atomic(&self.blobs(), &sha, bytes)?;
        } else {
            write_unsynced(&self.blobs(), &sha, bytes)?;
        }
        self.used = Some(used + len);
        Ok((sha, true))
    }

    /// The bytes kept under `sha`, checked against it.
    pub fn blob(&self, sha: &str) -> Result<Vec<u8>, StoreError> {
        if sha.len() != 64 || !sha.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Err(StoreError::Corrupt {
                path: self.blobs(),
                line: 0,
                reason: format!("`{sha}` is not a sha256"),
            });
        }
        let path = self.blobs().join(sha);
        let bytes = fs::read(&path).map_err(StoreError::io("read", &path))?;
        if sha256_hex(&bytes) != sha {
            return Err(StoreError::Corrupt {
                path,
                line: 0,
                reason: "the saved content does not match its sha256".to_owned(),
            });
        }
        Ok(bytes)
    }

    fn manifest(&self, turn: u64) -> PathBuf {
        self.dir.join(format!("turn-{turn:08}.jsonl"))
    }

    /// Append `change` to its turn's manifest, durably.
    pub fn record(&self, change: &Change) -> Result<(), StoreError> {
        self.ensure_dirs()?;
        let path = self.manifest(change.turn);
        let new = !path.exists();
        let mut line = serde_json::to_string(change).map_err(|e| StoreError::Corrupt {
            path: path.clone(),
            line: 0,
            reason: e.to_string(),
        })?;
        line.push('\n');
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(StoreError::io("open", &path))?;
        f.write_all(line.as_bytes())
            .map_err(StoreError::io("append", &path))?;
        f.sync_all().map_err(StoreError::io("fsync", &path))?;
        if new {
            fsync_dir(&self.dir)?;
        }
        Ok(())
    }

    /// The turns with a manifest, oldest first.
    pub fn turns(&self) -> Result<Vec<u64>, StoreError> {
        let mut out = Vec::new();
        let entries = match fs::read_dir(&self.dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(out),
            Err(e) => return Err(StoreError::io("read directory", &self.dir)(e)),
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let Some(n) = name
                .to_str()
                .and_then(|n| n.strip_prefix("turn-"))
                .and_then(|n| n.strip_suffix(".jsonl"))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                continue;
            };
            out.push(n);
        }
        out.sort_unstable();
        Ok(out)
    }

    /// The number the next turn's manifest takes.
    pub fn next_turn(&self) -> Result<u64, StoreError> {
        Ok(self.turns()?.last().map_or(1, |n| n + 1))
    }

    /// The changes of `turn`, in the order made. A torn last line (a crash mid-append) is
    /// dropped; a bad line elsewhere is an error naming it.
    pub fn changes(&self, turn: u64) -> Result<Vec<Change>, StoreError> {
        let path = self.manifest(turn);
        let text = fs::read_to_string(&path).map_err(StoreError::io("read", &path))?;
        let lines: Vec<&str> = text.split_terminator('\n').collect();
        let complete = text.ends_with('\n');
        let mut out = Vec::new();
        for (i, line) in lines.iter().enumerate() {
            match serde_json::from_str::<Change>(line) {
                Ok(change) => out.push(change),
                Err(_) if i + 1 == lines.len() && !complete => {}
                Err(e) => {
                    return Err(StoreError::Corrupt {
                        path: path.clone(),
                        line: i as u64 + 1,
                        reason: e.to_string(),
                    });
                }
            }
        }
        Ok(out)
    }

    /// Forget `turn` (once undone).
    pub fn forget(&self, turn: u64) -> Result<(), StoreError> {
        let path = self.manifest(turn);
        fs::remove_file(&path).map_err(StoreError::io("remove", &path))?;
        fsync_dir(&self.dir)
    }
}

#[cfg(test)]
#[path = "checkpoint_tests.rs"]
mod tests;
