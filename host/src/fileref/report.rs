//! What the stage reports about each reference: [`RefReport`], the `refs` entries of
//! `warden preview --json`, and [`FileAudit`], what the audit log records for each file whose
//! content was placed.

use serde::Serialize;

use crate::domain::LineRange;

/// One reference as resolved; serializes exactly as a `refs` entry of `preview --json`:
/// `{"raw":"@a.txt","path":"a.txt","range":null,"status":"resolved","bytes":123,"truncated":false}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RefReport {
    /// The mention as typed.
    pub raw: String,
    /// The normalised path when resolved, else the path as parsed.
    pub path: String,
    /// The line range, if any (`{"start":10,"end":20}`).
    pub range: Option<LineRange>,
    /// `resolved`, `not-found`, `out-of-scope`, `denied`, `binary`, `special`, `too-large` or
    /// `error`.
    pub status: &'static str,
    /// Bytes of file content placed into history (0 when it failed or was deduplicated).
    pub bytes: u64,
    /// The content was cut (per-file cap, prompt budget, or an incomplete listing).
    pub truncated: bool,
}

/// Status of a resolved reference.
pub const RESOLVED: &str = "resolved";

/// Audit data of one file whose content was placed into history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileAudit {
    /// Normalised path (with the line range, if any).
    pub path: String,
    /// Bytes of content placed.
    pub bytes: u64,
    /// sha256 of the content placed, hex.
    pub sha256: String,
    /// The content was cut.
    pub truncated: bool,
}
