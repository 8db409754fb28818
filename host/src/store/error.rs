//! The store's error type and the warnings a load can return.
//!
//! Every error names the file or directory it is about, and the line where one applies, so an
//! operator can go straight to it.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// Everything that can go wrong in the session store.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum StoreError {
    /// Neither `$WARDEN_HOME` nor `$HOME` is set.
    #[error("no state directory: set WARDEN_HOME (or HOME, for the default ~/.local/state/warden)")]
    NoHome,

    /// A session id that cannot be used as a directory name.
    #[error("invalid session id {id:?}: {reason}")]
    InvalidId {
        /// The id as given.
        id: String,
        /// What rule it breaks.
        reason: &'static str,
    },

    /// No session with this id.
    #[error("no session {id:?} (looked for {path})")]
    NotFound {
        /// The id asked for.
        id: String,
        /// Where its history would be.
        path: PathBuf,
    },

    /// A session with this id exists already.
    #[error("session {id:?} already exists at {path}")]
    Exists {
        /// The id asked for.
        id: String,
        /// The existing session directory.
        path: PathBuf,
    },

    /// Another process holds the session's writer lock.
    #[error(
        "session {id:?} is locked: another warden process is writing it (lock file {path}); \
         wait for it to finish or use another session"
    )]
    Locked {
        /// The session id.
        id: String,
        /// The lock file.
        path: PathBuf,
    },

    /// A history or inbox file holds something that is not what warden writes.
    #[error("{path}:{line}: corrupt session file: {reason}; nothing was changed")]
    Corrupt {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What is wrong with it.
        reason: String,
    },

    /// The history header names a format or version this build does not read.
    #[error(
        "{path}:{line}: unsupported history format {format:?} version {version} \
         (this warden reads \"warden-history\" version {supported}); nothing was changed"
    )]
    UnsupportedFormat {
        /// The file.
        path: PathBuf,
        /// 1-based line number of the header.
        line: u64,
        /// The format name found.
        format: String,
        /// The version found.
        version: u64,
        /// The version this build reads and writes.
        supported: u32,
    },

    /// An I/O operation failed.
    #[error("cannot {op} {path}: {source}")]
    Io {
        /// What was being done (`open`, `read`, `write`, `fsync`, …).
        op: &'static str,
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// The file system refused a commit for lack of space (or the file-size limit); the commit
    /// was rolled back.
    #[error(
        "cannot write {path}: {source}; the commit was rolled back, the history holds every \
         earlier group — free some space and run again"
    )]
    NoSpace {
        /// The history file.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: io::Error,
    },

    /// A value could not be encoded as JSON.
    #[error("cannot encode a record for {path}: {source}")]
    Encode {
        /// The file it was meant for.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: serde_json::Error,
    },

    /// The trust file holds something that is not what warden writes: no workspace counts as
    /// trusted until it is fixed or removed.
    #[error(
        "{path}: the trust file cannot be read: {reason}; no workspace is trusted while it is \
         unreadable (fix or remove the file, then run `warden trust` again); nothing was changed"
    )]
    TrustFile {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },

    /// An audit log path names something other than a regular file (a symbolic link, a FIFO,
    /// a device): it is neither read nor appended to.
    #[error("{path}: the audit log is {what}, not a regular file; refused")]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is.
        what: &'static str,
    },

    /// The audit log does not verify: readers refuse to show records of a log that was
    /// changed (`warden audit verify` says the same).
    #[error("{path}: the audit log is broken: {problem}")]
    AuditBroken {
        /// The audit log.
        path: PathBuf,
        /// The first break, as `warden audit verify` names it.
        problem: Box<super::ChainBreak>,
    },

    /// An earlier write failed and could not be rolled back; the writer refuses further commits.
    #[error(
        "the writer of {path} stopped after a failed write that could not be rolled back; \
         reopen the session (the incomplete group is dropped on open)"
    )]
    Poisoned {
        /// The history file.
        path: PathBuf,
    },
}

impl StoreError {
    /// An I/O error on `path` while doing `op`.
    pub(crate) fn io(op: &'static str, path: impl Into<PathBuf>) -> impl FnOnce(io::Error) -> Self {
        let path = path.into();
        move |source| Self::Io { op, path, source }
    }

    /// A corruption error at `path:line`.
    pub(crate) fn corrupt(path: &Path, line: u64, reason: impl Into<String>) -> Self {
        Self::Corrupt {
            path: path.to_owned(),
            line,
            reason: reason.into(),
        }
    }
}

/// Something a load noticed and dealt with, for the caller to show.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LoadWarning {
    /// The history ended in an incomplete commit group (a crash mid-write); it was dropped.
    TornTail {
        /// The history file.
        path: PathBuf,
        /// 1-based line where the dropped tail starts.
        line: u64,
        /// Complete records of the unfinished group that were dropped.
        records: usize,
        /// Bytes dropped.
        bytes: u64,
    },
    /// A line of a log that is not a record (an audit log's torn tail); it was skipped.
    SkippedLine {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// Why it was skipped.
        reason: String,
    },
    /// An inbox file that is not a notification; it was left in place.
    BadInboxFile {
        /// The file.
        path: PathBuf,
        /// Why it was skipped.
        reason: String,
    },
}

impl fmt::Display for LoadWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::TornTail {
                path,
                line,
                records,
                bytes,
            } => write!(
                f,
                "{}:{line}: dropped an incomplete commit group at the end \
                 ({records} records, {bytes} bytes; an interrupted write)",
                path.display()
            ),
            Self::SkippedLine { path, line, reason } => {
                write!(f, "{}:{line}: skipped line: {reason}", path.display())
            }
            Self::BadInboxFile { path, reason } => {
                write!(f, "{}: skipped inbox file: {reason}", path.display())
            }
        }
    }
}
