//! The notification inbox of a session (`sessions/<id>/inbox/`), filled by
//! `warden notify --session ID TEXT` from any process and drained by the session's writer.
//!
//! Each notification is one file `<uuid-v7>.json`, written to a temp file in the same directory,
//! fsynced and renamed into place, so a reader sees a whole notification or none and nothing is
//! lost whether the session is busy, idle or not running. Names sort by arrival time (UUID v7:
//! to the millisecond between processes, strictly within one). The
//! writer commits a notification with its id as the record's `origin` and deletes the file
//! afterwards; a file whose id is already in history (a crash between the two steps) is skipped
//! and removed, so each notification is committed exactly once.

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use crate::domain::block;
use crate::domain::defaults::truncation_marker;
use crate::domain::escape::escape;
use crate::domain::{Entry, Item, Source};

use super::fsio::{self, rfc3339};
use super::{Home, LoadWarning, StoreError, validate_id};

/// One queued notification.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// Unique id, sortable by arrival (also the file name without `.json`).
    pub id: String,
    /// The text as sent.
    pub text: String,
    /// When it was queued.
    #[serde(with = "rfc3339")]
    pub created: SystemTime,
    /// Set when a child session's turn end sent it: the report's attributes; `text` is then
    /// the child's answer (or the reason its turn ended otherwise).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<ChildReport>,
}

/// What a child session reports about itself besides its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildReport {
    /// The child session's id.
    pub session: String,
    /// How its turn ended: `answered`, `cancelled`, `stopped`, `interrupted`, `failed`.
    pub outcome: String,
    /// The answer's length in bytes when `text` holds only its first part.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut_from: Option<u64>,
}

impl Notification {
    /// The history item this notification becomes. The text goes through
    /// [`block::body`], like every text the host places in its own frame: it cannot start a
    /// line that passes for another notification, nor close or open a block. A child's report
    /// is one `<child-report>` block whose attributes are the host's.
    pub fn item(&self) -> Item {
        let text = block::body(&self.text);
        let Some(report) = &self.report else {
            return Item::system(format!("[Notification] {text} (not a blocking request)"));
        };
        let marker = report
            .cut_from
            .map(|total| format!("\n{}", truncation_marker(total)))
            .unwrap_or_default();
        Item::system(format!(
            "[Notification] Ambient report from child session {}, not a request: its turn ended ({}).\n\
             <child-report session=\"{}\" outcome=\"{}\">\n{text}{marker}\n</child-report> (not a blocking request)",
            escape(&report.session),
            escape(&report.outcome),
            block::attribute(&report.session),
            block::attribute(&report.outcome),
        ))
    }

    /// The entry to commit: a `notify` item whose origin is this notification's id.
    pub fn entry(&self) -> Entry {
        Entry {
            origin: Some(self.id.clone()),
            ..Entry::new(Source::Notify, self.item())
        }
    }
}

/// The inbox directory of one session.
#[derive(Debug, Clone)]
pub struct Inbox {
    dir: PathBuf,
}

impl Inbox {
    /// Queues `text` for session `id`, from any process. Fails if the session does not exist.
    pub fn push(home: &Home, id: &str, text: &str) -> Result<Notification, StoreError> {
        Self::push_note(home, id, text, None)
    }

    /// Queues a child session's report (its answer `text` and `report`) for its parent `id`.
    pub fn push_report(
        home: &Home,
        id: &str,
        text: &str,
        report: ChildReport,
    ) -> Result<Notification, StoreError> {
        Self::push_note(home, id, text, Some(report))
    }

    fn push_note(
        home: &Home,
        id: &str,
        text: &str,
        report: Option<ChildReport>,
    ) -> Result<Notification, StoreError> {
        home.existing_history(id)?;
        let inbox = Self::of(home, id)?;
        fs::create_dir_all(&inbox.dir).map_err(StoreError::io("create", &inbox.dir))?;
        let note = Notification {
            id: uuid::Uuid::now_v7().to_string(),
            text: text.to_owned(),
            created: fsio::now(),
            report,
        };
        let bytes = serde_json::to_vec(&note).map_err(|source| StoreError::Encode {
            path: inbox.dir.clone(),
            source,
        })?;
        fsio::write_atomic(&inbox.dir, &format!("{}.json", note.id), &bytes)?;
        Ok(note)
    }

    /// The inbox of session `id` (which need not exist).
    pub fn of(home: &Home, id: &str) -> Result<Self, StoreError> {
        Ok(Self {
            dir: home.inbox_dir(id)?,
        })
    }

    /// The inbox directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Queued notifications in arrival order, leaving out ids in `committed`. Files that are
    /// not notifications are left in place and reported in `warnings`.
    pub fn pending(
        &self,
        committed: &HashSet<String>,
        warnings: &mut Vec<LoadWarning>,
    ) -> Result<Vec<Notification>, StoreError> {
        let mut names = self.names()?;
        names.sort();
        let mut out = Vec::new();
        for name in names {
            let Some(id) = name
                .strip_suffix(".json")
                .filter(|_| !name.starts_with('.'))
            else {
                continue;
            };
            if committed.contains(id) {
                continue;
            }
            let path = self.dir.join(&name);
            let bytes = match fs::read(&path) {
                Ok(b) => b,
                // Removed meanwhile (an earlier drain): not pending any more.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => return Err(StoreError::io("read", &path)(e)),
            };
            let bad = |reason: String| LoadWarning::BadInboxFile {
                path: path.clone(),
                reason,
            };
            match serde_json::from_slice::<Notification>(&bytes) {
                Ok(n) if n.id == id => out.push(n),
                Ok(n) => warnings.push(bad(format!("holds id {:?}, not its name", n.id))),
                Err(e) => warnings.push(bad(format!("not a notification ({e})"))),
            }
        }
        Ok(out)
    }

    /// Deletes the file of notification `id` if it is there.
    pub fn remove(&self, id: &str) -> Result<(), StoreError> {
        validate_id(id)?;
        let path = self.dir.join(format!("{id}.json"));
        match fs::remove_file(&path) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => {
                Err(StoreError::io("remove", &path)(e))
            }
            _ => Ok(()),
        }
    }

    /// Removes files of notifications already in history (left by a crash between commit and
    /// delete) and temp files of pushes that died more than an hour ago.
    pub fn cleanup(&self, committed: &HashSet<String>) -> Result<(), StoreError> {
        for name in self.names()? {
            if let Some(id) = name.strip_suffix(".json")
                && committed.contains(id)
            {
                self.remove(id)?;
            } else if name.starts_with(".tmp-") {
                let path = self.dir.join(&name);
                let stale = fs::metadata(&path)
                    .and_then(|m| m.modified())
                    .ok()
                    .and_then(|t| t.elapsed().ok())
                    .is_some_and(|age| age > fsio::STALE_TMP_AGE);
                if stale {
                    let _ = fs::remove_file(&path);
                }
            }
        }
        Ok(())
    }

    /// File names in the inbox (none if it does not exist).
    fn names(&self) -> Result<Vec<String>, StoreError> {
        let entries = match fs::read_dir(&self.dir) {
            Ok(e) => e,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(StoreError::io("read directory", &self.dir)(e)),
        };
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(StoreError::io("read directory", &self.dir))?;
            if let Ok(name) = entry.file_name().into_string() {
                names.push(name);
            }
        }
        Ok(names)
    }
}
