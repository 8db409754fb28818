//! Undo: put back the files the last turns' `write_file` / `edit_file` / `shell` calls changed, newest
//! first, from the session's checkpoints ([`crate::store::Checkpoints`]), through the tools'
//! write rules ([`crate::tools::restore`]). A file changed since the turn is refused unless
//! forced; one whose previous content was over a cap cannot be restored. Turns undone are
//! forgotten (unless a file that can still be restored was refused), so the next undo goes
//! further back.

use std::path::Path;

use crate::config::FileRefConfig;
use crate::domain::block;
use crate::store::{Checkpoints, MAX_FILE_BYTES, StoreError};
use crate::tools::{
    Workspace, file_mode, make_dir, restore_name, restore_name_with_mode, set_file_mode,
    snapshot_name,
};

/// What became of one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UndoLine {
    /// The turn's manifest number.
    pub turn: u64,
    /// The file, relative to the workspace root, escaped for display (bytes that are not
    /// UTF-8 as `\xNN`, control characters as `\n`, `\u{1b}`).
    pub path: String,
    /// `removed`, `restored`, or why it was not.
    pub done: String,
    /// True when it was put back.
    pub ok: bool,
}

/// What an undo did.
#[derive(Debug, Clone, Default)]
pub struct UndoReport {
    /// One line per change, newest first.
    pub lines: Vec<UndoLine>,
    /// The turns undone (their manifests are forgotten).
    pub turns: Vec<u64>,
}

impl UndoReport {
    /// True when every change was put back.
    pub fn complete(&self) -> bool {
        self.lines.iter().all(|l| l.ok)
    }

    /// The host item telling the model what was undone.
    pub fn note(&self) -> String {
        let mut text = format!(
            "[The person undid the file changes of the last {} turn{} with tools:",
            self.turns.len(),
            if self.turns.len() == 1 { "" } else { "s" }
        );
        for line in &self.lines {
            text.push_str(&format!(
                "\n- {}: {}",
                block::body(&line.path),
                block::body(&line.done)
            ));
        }
        text.push_str(
            "\nThose files are now as they were before; re-read them before relying on them.]",
        );
        text
    }
}

/// Undo the last `turns` turns of the session in `session_dir` over `workspace`.
pub fn undo(
    session_dir: &Path,
    workspace: &Path,
    config: &FileRefConfig,
    turns: usize,
    force: bool,
) -> Result<UndoReport, String> {
    let ws = Workspace::open(&[workspace.to_path_buf()], config).map_err(|e| e.to_string())?;
    let store = Checkpoints::new(session_dir);
    let all = store.turns().map_err(|e: StoreError| e.to_string())?;
    let mut report = UndoReport::default();
    let mut finished = Vec::new();
    for &turn in all.iter().rev().take(turns) {
        let changes = store.changes(turn).map_err(|e| e.to_string())?;
        let mut retry = false;
        for change in changes.iter().rev() {
            let (done, ok) = undo_one(&ws, &store, change, force);
            // A change whose content was not saved can never be restored: it does not keep
            // the turn; any other failure does, so that undo can be run again.
            retry |= !ok && change.saved;
            report.lines.push(UndoLine {
                turn,
                path: if change.partial {
                    "(workspace)".to_owned()
                } else {
                    change.shown()
                },
                done,
                ok,
            });
        }
        report.turns.push(turn);
        if !retry {
            finished.push(turn);
        }
    }
    // A turn is forgotten once every file it changed was handled; one refused (changed since,
    // rules) stays, to be run again (`--force`).
    if finished.len() == report.turns.len() {
        for &turn in &finished {
            store.forget(turn).map_err(|e| e.to_string())?;
        }
    }
    Ok(report)
}

fn undo_one(
    ws: &Workspace,
    store: &Checkpoints,
    change: &crate::store::Change,
    force: bool,
) -> (String, bool) {
    if change.partial {
        return (
            format!(
                "the workspace was too large to scan: changes by the command at `{}` may not be undone",
                change.command.as_deref().unwrap_or_default()
            ),
            false,
        );
    }
    if !change.saved {
        if let Some(command) = &change.command {
            return (
                format!(
                    "not restored: changed by a command; not saved: its previous content was over a checkpoint cap (command `{command}`)"
                ),
                false,
            );
        }
        return (
            "not restored: its previous content was over the checkpoint cap and was not saved"
                .to_owned(),
            false,
        );
    }
    let name = match change.name() {
        Ok(name) => name,
        Err(e) => return (format!("not restored: {e}"), false),
    };
    if change.dir {
        return undo_dir(ws, &name, change.mode);
    }
    let now = match snapshot_name(ws, &name, MAX_FILE_BYTES) {
        Ok(now) => now,
        Err(e) => return (format!("not restored: {e}"), false),
    };
    let current = now.content.sha();
    if current == change.before {
        return undo_mode(ws, &name, change, force);
    }
    if current != change.after && !force {
        return (
            "not restored: changed since the turn (use --force to overwrite)".to_owned(),
            false,
        );
    }
    let previous = match &change.before {
        Some(sha) => match store.blob(sha) {
            Ok(bytes) => Some(bytes),
            Err(e) => return (format!("not restored: {e}"), false),
        },
        None => None,
    };
    let restored = match (previous.as_deref(), change.mode) {
        (Some(bytes), Some(mode)) => restore_name_with_mode(ws, &name, bytes, mode),
        (previous, _) => restore_name(ws, &name, previous),
    };
    match restored {
        Ok(()) if previous.is_none() => ("removed (the turn created it)".to_owned(), true),
        Ok(()) => ("restored".to_owned(), true),
        Err(e) => (format!("not restored: {e}"), false),
    }
}

/// A file whose bytes are as they were: its permission bits put back when the turn changed
/// them (refused, unless forced, when they changed again since).
fn undo_mode(
    ws: &Workspace,
    name: &std::ffi::OsStr,
    change: &crate::store::Change,
    force: bool,
) -> (String, bool) {
    let Some(mode) = change.mode else {
        return ("already as it was".to_owned(), true);
    };
    let now = match file_mode(ws, name) {
        Ok(now) => now,
        Err(e) => return (format!("not restored: {e}"), false),
    };
    match now {
        None => ("already as it was".to_owned(), true),
        Some(now) if now == mode => ("already as it was".to_owned(), true),
        Some(now) if Some(now) != change.mode_after && !force => (
            "not restored: its mode changed since the turn (use --force to overwrite)".to_owned(),
            false,
        ),
        Some(_) => match set_file_mode(ws, name, mode) {
            Ok(()) => (format!("mode restored ({mode:o})"), true),
            Err(e) => (format!("not restored: {e}"), false),
        },
    }
}

/// A directory a command removed (`mode` its bits then) is made again, empty or not.
fn undo_dir(ws: &Workspace, name: &std::ffi::OsStr, mode: Option<u32>) -> (String, bool) {
    let Some(mode) = mode else {
        return ("already as it was".to_owned(), true);
    };
    match make_dir(ws, name, mode) {
        Ok(true) => ("directory made again".to_owned(), true),
        Ok(false) => ("directory there again, its mode put back".to_owned(), true),
        Err(e) => (format!("not restored: {e}"), false),
    }
}

#[cfg(test)]
#[path = "undo_tests.rs"]
mod tests;
