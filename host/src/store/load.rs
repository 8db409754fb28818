//! Read-only access to sessions, without the writer lock: [`load`] one session (for show,
//! export and resume checks) and [`list`] them all.
//!
//! A reader may run while a writer appends; it then sees the writer's group in progress as a
//! torn tail and drops it with a warning, exactly as after a crash. It never changes a file.

use std::fs;
use std::io;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::domain::Item;

use super::record::{Header, Record, RecordIn, RecordSkim};
use super::scan::{peek_header, scan};
use super::{Home, LoadWarning, StoreError, validate_id};

/// A session as read from disk.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The session id.
    pub id: String,
    /// The history header.
    pub header: Header,
    /// Records of all complete commit groups, in order.
    pub records: Vec<Record>,
    /// What was dropped while reading (a torn tail), for the caller to show.
    pub warnings: Vec<LoadWarning>,
    /// Records without a checksum (written before checksums existed).
    pub unsealed: usize,
}

impl Loaded {
    /// The committed items, in order.
    pub fn items(&self) -> impl ExactSizeIterator<Item = &Item> + '_ {
        self.records.iter().map(|r| &r.item)
    }
}

/// Reads session `id` without taking its lock and without changing anything.
pub fn load(home: &Home, id: &str) -> Result<Loaded, StoreError> {
    let path = home.existing_history(id)?;
    let bytes = fs::read(&path).map_err(StoreError::io("read", &path))?;
    let scanned = scan::<RecordIn>(&path, &bytes)?;
    let warnings: Vec<LoadWarning> = scanned.torn.into_iter().collect();
    for w in &warnings {
        tracing::warn!(session = id, "{w}");
    }
    Ok(Loaded {
        id: id.to_owned(),
        header: scanned.header,
        records: scanned.records.into_iter().map(Record::from).collect(),
        warnings,
        unsealed: scanned.unsealed,
    })
}

/// Reads `bytes` as the content of a history file named `path`, as [`load`] does; returns
/// the records kept and how many carry no checksum. For the history fuzz target.
#[doc(hidden)]
pub fn scan_history_bytes(
    path: &std::path::Path,
    bytes: &[u8],
) -> Result<(usize, usize), StoreError> {
    let scanned = scan::<RecordIn>(path, bytes)?;
    Ok((scanned.records.len(), scanned.unsealed))
}

/// One line of a session listing.
#[derive(Debug, Clone)]
pub struct SessionSummary {
    /// The session id.
    pub id: String,
    /// The workspace it was started in (empty if the header cannot be read).
    pub workspace: PathBuf,
    /// When it was created (the history file's modification time if the header cannot be read).
    pub created: SystemTime,
    /// Committed items (0 if the history cannot be read).
    pub items: usize,
    /// The session it reports to, if it is a child session.
    pub parent: Option<String>,
    /// What was dropped while reading (a torn tail).
    pub warnings: Vec<LoadWarning>,
    /// Why the session cannot be read, if it cannot.
    pub problem: Option<String>,
}

/// All sessions under `home`, oldest first (newest last). A session that cannot be read is
/// listed with its [`SessionSummary::problem`]; only an unreadable sessions directory fails.
pub fn list(home: &Home) -> Result<Vec<SessionSummary>, StoreError> {
    let dir = home.sessions_dir();
    let entries = match fs::read_dir(&dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(StoreError::io("read directory", &dir)(e)),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.map_err(StoreError::io("read directory", &dir))?;
        let Ok(id) = entry.file_name().into_string() else {
            continue;
        };
        // Temp directories of creations in progress, and anything not named like a session.
        if validate_id(&id).is_err() || !entry.path().is_dir() {
            continue;
        }
        out.push(summarize(home, &id));
    }
    out.sort_by(|a, b| a.created.cmp(&b.created).then_with(|| a.id.cmp(&b.id)));
    Ok(out)
}

/// Reads what a listing shows of session `id`; failures become [`SessionSummary::problem`].
fn summarize(home: &Home, id: &str) -> SessionSummary {
    let mut summary = SessionSummary {
        id: id.to_owned(),
        workspace: PathBuf::new(),
        created: SystemTime::UNIX_EPOCH,
        items: 0,
        parent: None,
        warnings: Vec::new(),
        problem: None,
    };
    let path = match home.existing_history(id) {
        Ok(p) => p,
        Err(e) => {
            summary.problem = Some(e.to_string());
            return summary;
        }
    };
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            summary.problem = Some(StoreError::io("read", &path)(e).to_string());
            return summary;
        }
    };
    match scan::<RecordSkim>(&path, &bytes) {
        Ok(s) => {
            summary.workspace = s.header.workspace;
            summary.created = s.header.created;
            summary.parent = s.header.parent;
            summary.items = s.records.len();
            summary.warnings = s.torn.into_iter().collect();
        }
        Err(e) => {
            if let Some(h) = peek_header(&path, &bytes) {
                summary.workspace = h.workspace;
                summary.created = h.created;
                summary.parent = h.parent;
            } else if let Ok(t) = fs::metadata(&path).and_then(|m| m.modified()) {
                summary.created = t;
            }
            summary.problem = Some(e.to_string());
        }
    }
    summary
}
