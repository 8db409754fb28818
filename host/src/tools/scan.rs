//! A bounded scan of the workspace around a `shell` command: every regular file the listing
//! rules show ([`super::walk`]: gitignored and denied entries skipped, `.git` skipped, symlinks
//! never followed, names of any bytes, UTF-8 or not), opened without following a symlink and without
//! blocking (a FIFO a command left never stalls the scan), skipped unless it is a regular file,
//! checked on its real path under the write rules, hashed, and its bytes handed to a keeper (the checkpoint
//! store). [`diff`] turns a before and an after scan into the files created, changed, deleted.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io::Read;
use std::os::unix::fs::MetadataExt;

use cap_std::fs::{OpenOptions, OpenOptionsExt};
use sha2::{Digest, Sha256};

use super::walk;
use super::workspace::Workspace;
use crate::confine::real_path::real_path;

/// Files one scan looks at most.
pub const SCAN_MAX_FILES: usize = 20_000;
/// Bytes of content one scan reads at most.
pub const SCAN_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// The permission bits of a mode.
const MODE_BITS: u32 = 0o7777;

/// One file as a scan found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seen {
    /// Hex SHA-256 of its bytes, or, for a file over the per-file limit, `size:mtime`.
    pub sha: String,
    /// Whether its bytes were kept (false: over a cap, or the keeper failed).
    pub saved: bool,
    /// Its permission bits (`0o7777`).
    pub mode: u32,
}

/// What a scan found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Scan {
    /// Root-relative name (bytes, as the kernel has it) → what it held.
    pub files: BTreeMap<OsString, Seen>,
    /// Root-relative name of each directory → its permission bits.
    pub dirs: BTreeMap<OsString, u32>,
    /// A bound was hit: files past it were not looked at.
    pub partial: bool,
}

/// Bounds of one scan.
#[derive(Debug, Clone, Copy)]
pub struct Bounds {
    /// Files looked at most.
    pub files: usize,
    /// Bytes read most.
    pub bytes: u64,
    /// Largest file whose bytes are read (larger: size and mtime only, not saved).
    pub file_bytes: u64,
}

/// Scan the first root of `ws` under `bounds`; `keep` is given each file's bytes and answers
/// whether they were saved.
pub fn scan(ws: &Workspace, bounds: Bounds, keep: &mut dyn FnMut(&[u8]) -> bool) -> Scan {
    let mut out = Scan::default();
    let Some(root) = ws.roots.first() else {
        return out;
    };
    let walked = match walk::files(&root.real, &ws.deny, bounds.files) {
        Ok(walked) => walked,
        Err(e) => {
            tracing::debug!("workspace scan failed: {e}");
            out.partial = true;
            return out;
        }
    };
    out.partial = walked.omitted;
    for rel in walked.dirs {
        if let Ok(meta) = root.dir.symlink_metadata(&rel)
            && meta.is_dir()
        {
            out.dirs
                .insert(rel, cap_std::fs::MetadataExt::mode(&meta) & MODE_BITS);
        }
    }
    let mut entries = walked.files;
    entries.sort();
    let mut read = 0u64;
    let mut options = OpenOptions::new();
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    for rel in &entries {
        let Ok(file) = root.dir.open_with(rel, &options) else {
            continue;
        };
        let file = file.into_std();
        let Ok(meta) = file.metadata() else {
            continue;
        };
        if !meta.is_file() {
            continue;
        }
        let mode = meta.mode() & MODE_BITS;
        let Ok(real) = real_path(&file) else {
            continue;
        };
        if ws.policy.check_write(&real).is_err() {
            continue;
        }
        if meta.len() > bounds.file_bytes {
            let mtime = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
            let sha = format!("size:{}:mtime:{mtime}", meta.len());
            let seen = Seen {
                sha,
                saved: false,
                mode,
            };
            out.files.insert(rel.clone(), seen);
            continue;
        }
        if read + meta.len() > bounds.bytes {
            out.partial = true;
            break;
        }
        let mut bytes = Vec::new();
        if (&file)
            .take(bounds.file_bytes)
            .read_to_end(&mut bytes)
            .is_err()
        {
            continue;
        }
        read += bytes.len() as u64;
        let sha = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let saved = keep(&bytes);
        out.files.insert(rel.clone(), Seen { sha, saved, mode });
    }
    out
}

/// One file a command changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// Root-relative name.
    pub path: OsString,
    /// What it held before; `None` when created.
    pub before: Option<Seen>,
    /// Its sha after; `None` when deleted.
    pub after: Option<String>,
    /// Its permission bits after; `None` when deleted.
    pub after_mode: Option<u32>,
}

/// One directory a command created or removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirDiff {
    /// Root-relative name.
    pub path: OsString,
    /// Its permission bits before; `None` when created.
    pub before: Option<u32>,
    /// True when it exists after (it was created), false when removed.
    pub created: bool,
}

/// The files created, changed or deleted between two scans, by path. A file only one scan saw
/// counts as created (deleted) only when the other scan was complete.
pub fn diff(before: &Scan, after: &Scan) -> Vec<FileDiff> {
    let mut out = Vec::new();
    for (path, was) in &before.files {
        match after.files.get(path) {
            Some(now) if now.sha == was.sha && now.mode == was.mode => {}
            Some(now) => out.push(FileDiff {
                path: path.clone(),
                before: Some(was.clone()),
                after: Some(now.sha.clone()),
                after_mode: Some(now.mode),
            }),
            None if !after.partial => out.push(FileDiff {
                path: path.clone(),
                before: Some(was.clone()),
                after: None,
                after_mode: None,
            }),
            None => {}
        }
    }
    if !before.partial {
        for (path, now) in &after.files {
            if !before.files.contains_key(path) {
                out.push(FileDiff {
                    path: path.clone(),
                    before: None,
                    after: Some(now.sha.clone()),
                    after_mode: Some(now.mode),
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

/// The directories created or removed between two scans, parents before their children (a
/// side only one scan saw counts only when the other scan was complete).
pub fn dir_diff(before: &Scan, after: &Scan) -> Vec<DirDiff> {
    let mut out = Vec::new();
    if !after.partial {
        for (path, mode) in &before.dirs {
            if !after.dirs.contains_key(path) {
                out.push(DirDiff {
                    path: path.clone(),
                    before: Some(*mode),
                    created: false,
                });
            }
        }
    }
    if !before.partial {
        for path in after.dirs.keys() {
            if !before.dirs.contains_key(path) {
                out.push(DirDiff {
                    path: path.clone(),
                    before: None,
                    created: true,
                });
            }
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    out
}

#[cfg(test)]
#[path = "scan_tests.rs"]
mod tests;
