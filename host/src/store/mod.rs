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
//! ```
//!
//! - [`SessionWriter`]: create or open a session (taking its lock) and commit groups of items,
//!   each with one write and one fsync.
//! - [`load`] and [`list`]: read-only access, no lock taken, nothing changed.
//! - [`AuditLog`]: append [`AuditEvent`]s; [`read_audit`] reads them back.
//! - [`Inbox`]: queue a [`Notification`] from any process; the writer commits it exactly once.
//!
//! A crash mid-commit leaves a torn tail that is dropped with a [`LoadWarning`] (and cut off
//! when a writer next opens the session); corruption anywhere else is a [`StoreError`] naming
//! file and line, and nothing is changed. `docs/sessions.md` describes the formats.

mod audit;
mod error;
mod fsio;
mod history;
mod home;
mod inbox;
mod load;
mod lock;
mod record;
mod scan;

pub use audit::{AuditEvent, AuditLog, AuditRecord, read_audit};
pub use error::{LoadWarning, StoreError};
pub use history::{CommitReceipt, SessionWriter};
pub use home::{Home, MAX_ID_LEN, new_session_id, validate_id};
pub use inbox::{Inbox, Notification};
pub use load::{Loaded, SessionSummary, list, load};
pub use record::{HISTORY_FORMAT, HISTORY_VERSION, Header, Record, as_sent};

#[cfg(test)]
mod tests;
