//! The resolver contract in domain terms: the [`Resolve`] trait the submit stage and the file
//! tools reach a resolver through, and the values that cross it. The host's sandboxed resolver
//! component implements it (in `plugin/`); so can anything else that honours the contract
//! (`docs/resolver.md`). A failure of the resolver itself (a trap, a deadline) is reported as
//! [`ResolveError::Io`] by the implementation, so that one broken call fails one reference.

use serde::{Deserialize, Serialize};

use super::segment::LineRange;

/// What one reference asks the resolver for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolveRequest {
    /// The path as written after `@`.
    pub path: String,
    /// Optional line range.
    pub range: Option<LineRange>,
    /// Cap on the bytes of the content before the truncation marker.
    pub max_bytes: u64,
}

/// File or directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EntryKind {
    /// A regular file.
    File,
    /// A directory (content is a listing).
    Directory,
}

/// A resolved reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// Normalised path relative to the workspace root.
    pub path: String,
    /// File or directory.
    pub kind: EntryKind,
    /// The text (or selected lines), or the listing.
    pub content: String,
    /// Size of the whole file in bytes (for a directory: entries listed).
    pub total_bytes: u64,
    /// True when `content` was cut and ends with the truncation marker.
    pub truncated: bool,
}

/// Why a reference or a file tool call could not be served.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ResolveError {
    /// Outside the workspace roots (`..`, absolute path, symlink leading out).
    #[error("out of scope: {0}")]
    OutOfScope(String),
    /// No such file or directory.
    #[error("not found: {0}")]
    NotFound(String),
    /// Matches a deny glob.
    #[error("denied: {0}")]
    Denied(String),
    /// Not UTF-8 text, or contains NUL bytes.
    #[error("binary: {0}")]
    Binary(String),
    /// A FIFO, socket or device.
    #[error("special file: {0}")]
    Special(String),
    /// Over a hard size limit or the prompt's budget.
    #[error("too large: {0}")]
    TooLarge(String),
    /// Any other I/O failure.
    #[error("i/o error: {0}")]
    Io(String),
    /// The reference itself is wrong (`#L0`, a reversed range, a range past the end of the
    /// file). Raised by the host; not part of the WIT contract.
    #[error("{0}")]
    Invalid(String),
}

impl ResolveError {
    /// The status name used in `preview --json` (`not-found`, `out-of-scope`, …).
    pub fn status(&self) -> &'static str {
        match self {
            Self::OutOfScope(_) => "out-of-scope",
            Self::NotFound(_) => "not-found",
            Self::Denied(_) => "denied",
            Self::Binary(_) => "binary",
            Self::Special(_) => "special",
            Self::TooLarge(_) => "too-large",
            Self::Io(_) | Self::Invalid(_) => "error",
        }
    }
}

/// A slice of a file served to the model's `read_file` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChunk {
    /// Normalised path.
    pub path: String,
    /// Text of the lines served.
    pub content: String,
    /// 1-based first line served.
    pub first_line: u32,
    /// Lines served.
    pub lines: u32,
    /// Lines in the file.
    pub total_lines: u32,
    /// More lines follow.
    pub more: bool,
}

/// A directory listing served to the model's `list_files` tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    /// Normalised path.
    pub path: String,
    /// Entries; directories end with `/`.
    pub entries: Vec<String>,
    /// The listing stopped at its cap.
    pub truncated: bool,
}

/// A resolver of `@path` references and server of the model's file tools.
///
/// A failure of the resolver itself (a trap, a deadline) is reported as
/// [`ResolveError::Io`] by the implementation, so that one broken call fails one reference.
pub trait Resolve {
    /// Resolve one reference.
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError>;

    /// `limit` lines (0: as many as fit) from 1-based line `offset` (0: from the start), at
    /// most `max_bytes` bytes.
    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError>;

    /// List a directory, at most `max_entries` entries.
    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError>;

    /// A turn starts. A resolver that failed twice in a turn is not called again in it.
    fn new_turn(&mut self) {}
}
