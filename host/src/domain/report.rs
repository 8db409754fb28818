//! What a front end is told about each `@` reference of a prompt: [`RefReport`], also the
//! `refs` entries of `warden preview --json`.

use serde::Serialize;

use super::segment::LineRange;

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
