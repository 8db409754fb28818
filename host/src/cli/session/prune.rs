//! `warden session delete ID` and `warden session prune --empty | --older-than DAYS [--dry-run |
//! --yes]`: sessions are removed only when asked, each removal is printed, and a session held
//! by a running process is skipped and named.

use std::io::IsTerminal;
use std::time::{Duration, SystemTime};

use super::resolve;
use crate::cli::common::{confirm, home};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store::{self, Home, SessionSummary, StoreError};

/// Delete session `id` (or the one session it is a prefix of).
pub(crate) fn delete(id: &str) -> Result<u8, CliError> {
    let home = home()?;
    let id = resolve(&home, id)?;
    let items = store::load(&home, &id).map(|l| l.records.len()).ok();
    remove(&home, &id).map_err(|err| err.into_cli(&id))?;
    match items {
        Some(n) => outln!("deleted session {id} ({n} items)"),
        None => outln!("deleted session {id}"),
    }
    Ok(EXIT_OK)
}

/// What `session prune` was asked.
#[derive(Debug, Clone, Copy)]
pub(crate) struct PruneArgs {
    /// Sessions with no committed group.
    pub(crate) empty: bool,
    /// Sessions whose last activity is older than this many days.
    pub(crate) older_than_days: Option<u64>,
    /// Only list what would be deleted.
    pub(crate) dry_run: bool,
    /// Delete without asking.
    pub(crate) yes: bool,
}

/// Delete every session matching the criteria given (at least one is required), after a list
/// and a confirmation (or `--yes`); sessions in use are skipped and named.
pub(crate) fn prune(args: PruneArgs) -> Result<u8, CliError> {
    if !args.empty && args.older_than_days.is_none() {
        return Err(CliError::usage(
            "say which sessions to prune: --empty, --older-than DAYS, or both",
        ));
    }
    let ask = !args.yes && !args.dry_run;
    if ask && !std::io::stdin().is_terminal() {
        return Err(CliError::usage(
            "session prune deletes sessions and there is no terminal to confirm on: pass --yes \
             to delete them, or --dry-run to only list them",
        ));
    }
    let home = home()?;
    let matched = matching(&home, args)?;
    if matched.is_empty() {
        outln!("no sessions match; nothing deleted");
        return Ok(EXIT_OK);
    }
    for s in &matched {
        outln!("  {}  ({} items)", s.id, s.items);
    }
    let n = matched.len();
    if args.dry_run {
        outln!("would delete {n} sessions (dry run: nothing deleted)");
        return Ok(EXIT_OK);
    }
    if ask && !confirm(&format!("delete these {n} sessions? [y/N] ")) {
        outln!("nothing deleted");
        return Ok(EXIT_OK);
    }
    let (mut removed, mut skipped, mut failed) = (0usize, 0usize, Vec::new());
    for s in matched {
        match remove(&home, &s.id) {
            Ok(()) => {
                outln!("deleted session {} ({} items)", s.id, s.items);
                removed += 1;
            }
            Err(Removal::InUse) => {
                eprintln!(
                    "warden: skipped session {}: in use by another warden process",
                    s.id
                );
                skipped += 1;
            }
            Err(other) => failed.push(other.into_cli(&s.id).message),
        }
    }
    let skipped_note = if skipped > 0 {
        format!(", {skipped} skipped (in use)")
    } else {
        String::new()
    };
    outln!("{removed} sessions deleted{skipped_note}");
    if failed.is_empty() {
        Ok(EXIT_OK)
    } else {
        Err(CliError::failure(failed.join("\n")))
    }
}

/// The readable sessions the criteria name, oldest first.
fn matching(home: &Home, args: PruneArgs) -> Result<Vec<SessionSummary>, CliError> {
    let cutoff = args.older_than_days.map(|days| {
        SystemTime::now()
            .checked_sub(Duration::from_secs(days.saturating_mul(86_400)))
            .unwrap_or(SystemTime::UNIX_EPOCH)
    });
    let sessions = store::list(home).map_err(|err| CliError::failure(err.to_string()))?;
    Ok(sessions
        .into_iter()
        .filter(|s| s.problem.is_none())
        .filter(|s| {
            let activity = last_activity(home, &s.id).unwrap_or(s.created);
            (!args.empty || s.items == 0) && cutoff.is_none_or(|c| activity < c)
        })
        .collect())
}

pub(crate) use crate::front::sessions::last_activity;

/// Why a session was not removed.
enum Removal {
    /// Another process holds its writer lock.
    InUse,
    /// It cannot be opened (corrupt, unreadable) or its directory not removed.
    Failed(String),
}

impl Removal {
    fn into_cli(self, id: &str) -> CliError {
        match self {
            Self::InUse => CliError::failure(format!(
                "session {id} is in use by another warden process; nothing was deleted"
            )),
            Self::Failed(message) => CliError::failure(message),
        }
    }
}

/// Remove the session directory, refusing while a writer holds the session.
fn remove(home: &Home, id: &str) -> Result<(), Removal> {
    // Taking the writer lock proves no other process is writing; it is held while removing.
    let writer = store::SessionWriter::open(home, id).map_err(|err| match err {
        StoreError::Locked { .. } => Removal::InUse,
        other => Removal::Failed(format!("cannot delete session {id}: {other}")),
    })?;
    let dir = home
        .session_dir(id)
        .map_err(|err| Removal::Failed(err.to_string()))?;
    let result = std::fs::remove_dir_all(&dir);
    drop(writer);
    result.map_err(|err| Removal::Failed(format!("cannot delete {}: {err}", dir.display())))
}
