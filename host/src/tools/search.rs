//! The walk `grep` and `glob` share: the start located and checked on its real path, then the
//! resolver's own listing rules (`warden_rules::listing`: gitignore, deny globs, `.git`
//! skipped, symlinks listed but never followed), and each file opened without following a
//! symlink and checked on its real path before a byte is read.

use std::io::Read;
use std::path::PathBuf;

use cap_std::fs::{OpenOptions, OpenOptionsExt};

use super::error::ToolError;
use super::path::{escape_or_io, locate_in};
use super::workspace::{Root, Workspace};
use crate::confine::real_path::real_path;

/// Files one search walks at most.
pub(crate) const WALK_CAP: usize = 20_000;
/// Largest file `grep` reads.
pub(crate) const MAX_FILE_BYTES: u64 = 1 << 20;

/// Where a search starts: a directory or one file, inside a root.
pub(crate) struct Start<'a> {
    pub(crate) root: &'a Root,
    /// Its real path.
    pub(crate) real: PathBuf,
    /// Its real path relative to the root (components joined by `/`; empty for the root).
    pub(crate) relative: String,
    pub(crate) is_dir: bool,
}

/// The start of a search at `path` (default the root), checked for reading on its real path.
pub(crate) fn start<'a>(ws: &'a Workspace, path: &str) -> Result<Start<'a>, ToolError> {
    let at = locate_in(ws, path)?;
    let root = ws.roots.get(at.root).ok_or_else(|| ToolError::Outside {
        path: path.to_owned(),
    })?;
    let rel = at
        .parts
        .iter()
        .map(|p| p.to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    let (file, is_dir) = if rel.is_empty() {
        (
            root.dir
                .try_clone()
                .map_err(|e| ToolError::io(path, e))?
                .into_std_file(),
            true,
        )
    } else {
        let meta = root
            .dir
            .metadata(&rel)
            .map_err(|e| escape_or_io(e, path, path))?;
        if meta.is_dir() {
            let dir = root
                .dir
                .open_dir(&rel)
                .map_err(|e| escape_or_io(e, path, path))?;
            (dir.into_std_file(), true)
        } else {
            // Without blocking: the path may name a FIFO.
            let mut options = OpenOptions::new();
            options.read(true).custom_flags(libc::O_NONBLOCK);
            let file = root
                .dir
                .open_with(&rel, &options)
                .map_err(|e| escape_or_io(e, path, path))?;
            (file.into_std(), false)
        }
    };
    let real = real_path(&file).map_err(|e| ToolError::io(path, e))?;
    let refused = |why| ToolError::refused(path, why, &real);
    ws.policy.check_read(&real).map_err(refused)?;
    let relative = real
        .strip_prefix(&root.real)
        .map_err(|_| refused(crate::confine::Refusal::Outside))?
        .to_string_lossy()
        .into_owned();
    Ok(Start {
        root,
        real,
        relative,
        is_dir,
    })
}

/// Files found under a start.
pub(crate) struct Walked {
    /// Root-relative paths, in listing order.
    pub(crate) files: Vec<String>,
    /// The walk stopped at [`WALK_CAP`].
    pub(crate) truncated: bool,
}

/// The files under `start` (itself when it is a file), by the resolver's listing rules.
pub(crate) fn files(ws: &Workspace, start: &Start<'_>) -> Result<Walked, ToolError> {
    if !start.is_dir {
        return Ok(Walked {
            files: vec![start.relative.clone()],
            truncated: false,
        });
    }
    let mut listed = warden_rules::listing::list(
        &start.root.real,
        &start.relative,
        &start.real,
        &ws.deny,
        WALK_CAP,
    )
    .map_err(|e| ToolError::io(&start.relative, e))?;
    listed.sort();
    let files = listed
        .entries
        .into_iter()
        .filter(|e| !e.ends_with('/'))
        .map(|e| join(&start.relative, &e))
        .collect();
    Ok(Walked {
        files,
        truncated: listed.omitted > 0,
    })
}

/// Why [`read_text_or_skip`] did not read a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Skip {
    /// Over [`MAX_FILE_BYTES`].
    TooLarge,
    /// A NUL byte in its first 8 KiB.
    Binary,
    /// Not a regular file, a symlink, refused on its real path, or unreadable.
    Other,
}

/// The text of the root-relative file `relative`, or why it is skipped: a symlink (never
/// followed), refused on its real path, over [`MAX_FILE_BYTES`], or binary.
pub(crate) fn read_text_or_skip(
    ws: &Workspace,
    root: &Root,
    relative: &str,
) -> Result<String, Skip> {
    let mut options = OpenOptions::new();
    // Never blocks on a FIFO; anything but a regular file is skipped before it is read.
    options
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    let file = root
        .dir
        .open_with(relative, &options)
        .map_err(|_| Skip::Other)?
        .into_std();
    let meta = file.metadata().map_err(|_| Skip::Other)?;
    if !meta.is_file() {
        return Err(Skip::Other);
    }
    let real = real_path(&file).map_err(|_| Skip::Other)?;
    if let Err(why) = ws.policy.check_read(&real) {
        tracing::debug!(path = relative, "search skipped: {}", why.reason());
        return Err(Skip::Other);
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(Skip::TooLarge);
    }
    let mut bytes = Vec::new();
    file.take(MAX_FILE_BYTES)
        .read_to_end(&mut bytes)
        .map_err(|_| Skip::Other)?;
    if bytes.iter().take(8192).any(|&b| b == 0) {
        return Err(Skip::Binary);
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// `base/name`, or `name` when `base` is empty.
pub(crate) fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}/{name}")
    }
}
