//! What the stage reports about each reference: [`RefReport`] (a domain value, the `refs`
//! entries of `warden preview --json`), and [`FileAudit`], what the audit log records for each
//! file whose content was placed.

use serde::Serialize;

pub use crate::domain::RefReport;

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
