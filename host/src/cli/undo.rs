//! `warden undo [-C DIR] [--session ID] [--turns N] [--force]`: put back the files the last
//! turns' `write_file` / `edit_file` calls changed (default: the last session of this
//! workspace, one turn), and tell the model in the session's history.

use std::path::Path;

use super::common::home;
use super::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use super::out::outln;
use super::trust::{WhenWaiting, load_config_trusted};
use crate::domain::{Item, Source};
use crate::store;
use crate::worker::undo::{self, UndoReport};

/// Undo the last `turns` turns of `session` (default: the workspace's latest).
pub(crate) fn undo(
    dir: Option<&Path>,
    session: Option<&str>,
    turns: usize,
    force: bool,
) -> Result<u8, CliError> {
    if turns == 0 {
        return Err(CliError::usage("--turns must be at least 1"));
    }
    let home = home()?;
    let workspace = crate::front::workspace::Workspace::find(dir)?.root;
    let session = match session {
        Some(id) => super::session::resolve(&home, id)?,
        None => store::latest_for_workspace(&home, &workspace)
            .map_err(|e| CliError::failure(e.to_string()))?
            .ok_or_else(|| CliError::failure("no session of this workspace to undo"))?,
    };
    let loaded = load_config_trusted(&workspace, &home, WhenWaiting::Refuse)?;
    // The session's writer lock is taken: no turn of it runs meanwhile. No model is needed.
    let mut writer = store::SessionWriter::open(&home, &session)
        .map_err(|err| CliError::failure(err.to_string()))?;
    let dir = home
        .session_dir(&session)
        .map_err(|err| CliError::failure(err.to_string()))?;
    let root = writer.header().workspace.clone();
    let report = undo::undo(&dir, &root, &loaded.config.fileref, turns, force)
        .map_err(|e| CliError::failure(format!("undo: {e} (session {session})")))?;
    if !report.lines.is_empty() {
        let note = Item::System {
            text: report.note(),
        };
        writer
            .commit(&[(Source::Host, note)])
            .map_err(|err| CliError::failure(format!("{err} (session {session})")))?;
    }
    print_report(&report, &session);
    Ok(if report.complete() {
        EXIT_OK
    } else {
        EXIT_FAILURE
    })
}

/// One line per file, then a summary; shared with `/undo` in chat.
pub(crate) fn print_report(report: &UndoReport, session: &str) {
    for line in crate::front::reports::undone(report, session) {
        outln!("{line}");
    }
}
