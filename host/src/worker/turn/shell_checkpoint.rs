//! Checkpoints around the built-in `shell`: the workspace is scanned (bounded, by the listing
//! rules: [`crate::tools::scan`]) before the command runs, every file's bytes kept in the
//! content-addressed store (not yet durable: a first scan copies the whole workspace), and
//! scanned again after; the copies of files the command changed are made durable, then each
//! file created, changed or deleted becomes one line of the turn's manifest. A scan stopped at a bound adds a line saying so.
//! Plugin tools and the other built-ins never pay for a scan.

use super::Worker;
use super::file_change::{Changed, Side, changed};
use crate::domain::builtin::SHELL;
use crate::domain::file_name;
use crate::domain::{Alert, ToolCall, TurnSink};
use crate::store::{Change, MAX_FILE_BYTES};
use crate::tools::{
    Bounds, SCAN_MAX_BYTES, SCAN_MAX_FILES, Scan, diff, dir_diff, scan, snapshot_name,
};

/// Most files of one command whose diffs are shown (the rest are named without one).
const MAX_SHOWN_DIFFS: usize = 100;

/// The bounds of the scans around one command.
pub(crate) const SHELL_SCAN: Bounds = Bounds {
    files: SCAN_MAX_FILES,
    bytes: SCAN_MAX_BYTES,
    file_bytes: MAX_FILE_BYTES,
};

/// The workspace as it was before a command ran.
pub(super) struct ShellBefore {
    command: String,
    scan: Scan,
}

impl Worker {
    /// Before a built-in `shell` call: the workspace scanned and its files kept; `None` for
    /// any other call.
    pub(super) fn shell_checkpoint_before(&mut self, call: &ToolCall) -> Option<ShellBefore> {
        if self.tools.owner(&call.name).is_some() || call.name != SHELL {
            return None;
        }
        let command = call
            .arguments
            .get("command")
            .and_then(|c| c.as_str())
            .unwrap_or_default()
            .to_owned();
        let state = self.checkpoint_state()?;
        let store = &mut state.store;
        let scan = scan(&state.ws, SHELL_SCAN, &mut |bytes| {
            store
                .save_unsynced(bytes)
                .map(|(_, kept)| kept)
                .unwrap_or(false)
        });
        Some(ShellBefore { command, scan })
    }

    /// After the command: record what it created, changed or deleted; the changes, for the
    /// front end. A failure to record is a warning; the tool's result stands.
    pub(super) fn shell_checkpoint_after(
        &mut self,
        sink: &mut dyn TurnSink,
        before: ShellBefore,
        call: &ToolCall,
    ) -> Vec<Changed> {
        let mut shown = Vec::new();
        if let Err(message) = self.record_shell_changes(before, call, &mut shown) {
            self.raise(
                sink,
                Alert::warn(
                    "checkpoint",
                    format!("{message}; `warden undo` cannot restore what the command changed"),
                ),
            );
        }
        shown
    }

    fn record_shell_changes(
        &mut self,
        before: ShellBefore,
        call: &ToolCall,
        shown: &mut Vec<Changed>,
    ) -> Result<(), String> {
        let Some(state) = self.checkpoints.as_mut() else {
            return Ok(());
        };
        let after = scan(&state.ws, SHELL_SCAN, &mut |_| true);
        let changes = diff(&before.scan, &after);
        let dirs: Vec<_> = dir_diff(&before.scan, &after)
            .into_iter()
            .filter(|d| !d.created)
            .collect();
        let partial = before.scan.partial || after.partial;
        if changes.is_empty() && dirs.is_empty() && !partial {
            return Ok(());
        }
        // The previous contents the manifest will name are made durable first; the rest of the
        // scan's copies stay as written (one unneeded is never named).
        let needed: Vec<&str> = changes
            .iter()
            .filter_map(|f| {
                f.before
                    .as_ref()
                    .filter(|s| s.saved)
                    .map(|s| s.sha.as_str())
            })
            .collect();
        state
            .store
            .make_durable(needed)
            .map_err(|e| e.to_string())?;
        let turn = state.turn()?;
        // Directories the command removed (an empty one has no file to bring it back): undo
        // makes them again. One it created stays, as the files put back leave it.
        for dir in dirs {
            let (path, path_hex) = file_name::encode(&dir.path);
            let change = Change {
                turn,
                path,
                path_hex,
                before: None,
                after: None,
                saved: true,
                command: Some(before.command.clone()),
                partial: false,
                mode: dir.before,
                mode_after: None,
                dir: true,
            };
            state.store.record(&change).map_err(|e| e.to_string())?;
        }
        for file in changes {
            // Past the first files, only whether each side exists (no reads).
            let read = shown.len() < MAX_SHOWN_DIFFS;
            let was = match &file.before {
                Some(seen) if seen.saved && read => state
                    .store
                    .blob(&seen.sha)
                    .map_or(Side::Unknown, Side::Bytes),
                Some(_) => Side::Unknown,
                None => Side::Missing,
            };
            let now = match &file.after {
                Some(_) if read => snapshot_name(&state.ws, &file.path, MAX_FILE_BYTES)
                    .map_or(Side::Unknown, |s| Side::of(&s.content)),
                Some(_) => Side::Unknown,
                None => Side::Missing,
            };
            shown.push(changed(call, &file.path, was, now));
            let (previous, saved, mode) = match file.before {
                Some(seen) => (Some(seen.sha), seen.saved, Some(seen.mode)),
                None => (None, true, None),
            };
            let (path, path_hex) = file_name::encode(&file.path);
            let change = Change {
                turn,
                path,
                path_hex,
                before: previous,
                after: file.after,
                saved,
                command: Some(before.command.clone()),
                partial: false,
                mode,
                mode_after: file.after_mode,
                dir: false,
            };
            state.store.record(&change).map_err(|e| e.to_string())?;
        }
        if partial {
            let change = Change {
                turn,
                path: String::new(),
                path_hex: None,
                before: None,
                after: None,
                saved: false,
                command: Some(before.command),
                partial: true,
                mode: None,
                mode_after: None,
                dir: false,
            };
            state.store.record(&change).map_err(|e| e.to_string())?;
        }
        Ok(())
    }
}
