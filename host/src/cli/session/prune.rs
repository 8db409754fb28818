//! `warden session delete ID` and `warden session prune --empty | --older-than DAYS`: sessions
//! are removed only when asked, and each removal is printed.

use std::time::{Duration, SystemTime};

use super::target::existing;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store::{self, Home};

/// Delete session `id`.
pub(crate) fn delete(id: &str) -> Result<u8, CliError> {
    let home = home()?;
    existing(&home, id)?;
    let items = store::load(&home, id).map(|l| l.records.len()).ok();
    remove(&home, id)?;
    match items {
        Some(n) => outln!("deleted session {id} ({n} items)"),
        None => outln!("deleted session {id}"),
    }
    Ok(EXIT_OK)
}

/// Delete every session matching the criteria given (at least one is required).
pub(crate) fn prune(empty: bool, older_than_days: Option<u64>) -> Result<u8, CliError> {
    if !empty && older_than_days.is_none() {
        return Err(CliError::usage(
            "say which sessions to prune: --empty, --older-than DAYS, or both",
        ));
    }
    let home = home()?;
    let cutoff = older_than_days.map(|days| {
        SystemTime::now()
            .checked_sub(Duration::from_secs(days.saturating_mul(86_400)))
            .unwrap_or(SystemTime::UNIX_EPOCH)
    });
    let sessions = store::list(&home).map_err(|err| CliError::failure(err.to_string()))?;
    let mut removed = 0usize;
    for s in sessions {
        if s.problem.is_some() {
            continue;
        }
        let activity = last_activity(&home, &s.id).unwrap_or(s.created);
        let matches = (!empty || s.items == 0) && cutoff.is_none_or(|c| activity < c);
        if matches {
            remove(&home, &s.id)?;
            outln!("deleted session {} ({} items)", s.id, s.items);
            removed += 1;
        }
    }
    outln!("{removed} sessions deleted");
    Ok(EXIT_OK)
}

/// When session `id` last changed: its history file's modification time.
pub(crate) fn last_activity(home: &Home, id: &str) -> Option<SystemTime> {
    let path = home.history_path(id).ok()?;
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Remove the session directory, refusing while a writer holds the session.
fn remove(home: &Home, id: &str) -> Result<(), CliError> {
    // Taking the writer lock proves no other process is writing; it is held while removing.
    let writer = store::SessionWriter::open(home, id).map_err(|err| match err {
        store::StoreError::Locked { .. } => CliError::failure(err.to_string()),
        other => CliError::failure(format!("cannot delete session {id}: {other}")),
    })?;
    let dir = home
        .session_dir(id)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let result = std::fs::remove_dir_all(&dir);
    drop(writer);
    result.map_err(|err| CliError::failure(format!("cannot delete {}: {err}", dir.display())))
}
