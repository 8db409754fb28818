//! Durable sessions: the history of every item the model saw, the audit log of what left the
//! machine, and the inbox of notifications from other processes.
//!
//! Layout under the state root ([`Home`], `$WARDEN_HOME` or `~/.local/state/warden`):
//!
//! ```text
//! sessions/<id>/history.jsonl   header line, then one record per committed item
//! sessions/<id>/audit.jsonl     one audit record per line
//! sessions/<id>/inbox/*.json    queued notifications, one per file
//! sessions/<id>/lock            held by the session's only writer
//! sessions/<id>/checkpoints/    what write_file/edit_file changed, for `warden undo`
//! trust.json                    the workspaces trusted to run their project's plugins
//! ```
//!
//! - [`SessionWriter`]: create or open a session (taking its lock) and commit groups of items,
//!   each with one write and one fsync.
//! - [`load`] and [`list`]: read-only access, no lock taken, nothing changed;
//!   [`latest_for_workspace`] finds the session `--continue` resumes.
//! - [`verify`] and [`salvage`]: check a session; copy the valid prefix of a damaged one into
//!   a new session.
//! - [`AuditLog`]: append [`AuditEvent`]s; [`walk_audit`] checks the log's chain against the
//!   history line by line, and [`read_audit`] reads the records back through the same walk.
//! - [`Trusted`]: the trust file (`warden trust`).
//! - [`Inbox`]: queue a [`Notification`] from any process; the writer commits it exactly once.
//!
//! Every history line carries a checksum (the first 64 bits of its SHA-256), checked on load.
//! A crash mid-commit leaves a torn tail that is dropped with a [`LoadWarning`] (and cut off
//! when a writer next opens the session); corruption anywhere else is a [`StoreError`] naming
//! file and line, and nothing is changed. `docs/sessions.md` describes the formats.

mod audit;
mod audit_chain;
mod audit_file;
mod audit_head_file;
mod audit_read;
mod audit_walk;
mod checkpoint;
mod checksum;
mod error;
mod fsio;
mod history;
mod home;
mod inbox;
mod load;
mod lock;
mod recent;
mod record;
mod salvage;
mod scan;
mod trust;

pub use audit::{
    AuditEvent, AuditLog, AuditRecord, AuditTap, PluginSeen, PointEndRecord, PointInputRecord,
    PointRecord, ToolGrantRecord, ToolHttpRecord, session_anchor, set_audit_tap,
};
pub use audit_chain::{ChainBreak, ChainHead, ChainReport, head_message, verify_chain};
pub use audit_file::MAX_LINE as MAX_AUDIT_LINE;
pub use audit_head_file::record_audit_head;
pub use audit_read::{
    HistoryHeads, LinkedRecord, history_heads, read_audit, read_audit_linked, walk_audit,
};
pub use checkpoint::{
    CHECKPOINT_DIR, Change, Checkpoints, MAX_FILE_BYTES, MAX_SESSION_BYTES, sha256_hex,
};
pub use error::{LoadWarning, StoreError};
pub use history::{CommitReceipt, SessionWriter};
pub use home::{Home, MAX_ID_LEN, new_session_id, validate_id};
pub use inbox::{ChildReport, Inbox, Notification};
pub use load::{Loaded, SessionSummary, list, load, scan_history_bytes};
pub use recent::latest_for_workspace;
pub use record::{HISTORY_FORMAT, HISTORY_MINOR, HISTORY_VERSION, Header, Record, as_sent};
pub use salvage::{Salvaged, Verified, salvage, verify};
pub use trust::{TRUST_FILE, TrustRecord, Trusted};

#[cfg(test)]
mod tests;
