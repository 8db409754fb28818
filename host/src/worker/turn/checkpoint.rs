//! Checkpoints around the built-in `write_file` / `edit_file`: the file the call names is read
//! (under the write rules) before the tool runs and again after; when it changed, its previous
//! bytes are kept and one line is added to the turn's manifest ([`crate::store::Checkpoints`]).
//! Files a `shell` command changes are found by scanning the workspace around it
//! (`shell_checkpoint.rs`).

use super::Worker;
use super::file_change::{Changed, Side, changed};
use crate::domain::builtin::{EDIT_FILE, WRITE_FILE};
use crate::domain::{Alert, ToolCall, TurnSink};
use crate::store::{Change, Checkpoints, MAX_FILE_BYTES};
use crate::tools::{Content, Snapshot, Workspace, snapshot};

/// The checkpoints of the worker's session, opened on the first write.
pub(crate) struct CheckpointState {
    pub(super) ws: Workspace,
    pub(super) store: Checkpoints,
    /// The manifest number of the running turn, once it changed a file.
    pub(super) turn: Option<u64>,
}

impl CheckpointState {
    /// The running turn's manifest number (taken on its first change).
    pub(super) fn turn(&mut self) -> Result<u64, String> {
        if let Some(turn) = self.turn {
            return Ok(turn);
        }
        let turn = self.store.next_turn().map_err(|e| e.to_string())?;
        self.turn = Some(turn);
        Ok(turn)
    }
}

/// What a call will change, read before it runs.
pub(super) struct Before(Snapshot);

impl Worker {
    /// The file a built-in write call names, before the call runs; `None` for other calls
    /// (a tool plugin's, a path the rules refuse, an unreadable file).
    pub(super) fn checkpoint_before(&mut self, call: &ToolCall) -> Option<Before> {
        if self.tools.owner(&call.name).is_some()
            || (call.name != WRITE_FILE && call.name != EDIT_FILE)
        {
            return None;
        }
        let path = call.arguments.get("path")?.as_str()?;
        let state = self.checkpoint_state()?;
        snapshot(&state.ws, path, MAX_FILE_BYTES).ok().map(Before)
    }

    /// The session's checkpoints, opened on first use.
    pub(super) fn checkpoint_state(&mut self) -> Option<&mut CheckpointState> {
        if self.checkpoints.is_none() {
            let workspace = self.writer.header().workspace.clone();
            let dir = self.writer.path().parent()?.to_path_buf();
            let ws = Workspace::open(&[workspace], &self.config.fileref).ok()?;
            self.checkpoints = Some(CheckpointState {
                ws,
                store: Checkpoints::new(&dir),
                turn: None,
            });
        }
        self.checkpoints.as_mut()
    }

    /// After the call: when the file changed, keep its previous bytes and record the change;
    /// the change, for the front end. A failure to record is a warning; the tool's result
    /// stands.
    pub(super) fn checkpoint_after(
        &mut self,
        sink: &mut dyn TurnSink,
        before: Before,
        call: &ToolCall,
    ) -> Option<Changed> {
        let mut shown = None;
        if let Err(message) = self.record_change(before, call, &mut shown) {
            self.raise(
                sink,
                Alert::warn(
                    "checkpoint",
                    format!("{message}; `warden undo` cannot restore this change"),
                ),
            );
        }
        shown
    }

    fn record_change(
        &mut self,
        before: Before,
        call: &ToolCall,
        shown: &mut Option<Changed>,
    ) -> Result<(), String> {
        let Some(state) = self.checkpoints.as_mut() else {
            return Ok(());
        };
        let Before(before) = before;
        let after = snapshot(&state.ws, &before.path, MAX_FILE_BYTES).map_err(|e| e.to_string())?;
        if after.content == before.content {
            return Ok(());
        }
        *shown = Some(changed(
            call,
            std::ffi::OsStr::new(&before.path),
            Side::of(&before.content),
            Side::of(&after.content),
        ));
        let (previous, saved) = match &before.content {
            Content::Bytes(bytes) => {
                let (sha, kept) = state.store.save(bytes).map_err(|e| e.to_string())?;
                (Some(sha), kept)
            }
            Content::Large { sha } => (Some(sha.clone()), false),
            Content::Missing => (None, true),
        };
        let turn = state.turn()?;
        let change = Change {
            turn,
            path: before.path,
            path_hex: None,
            before: previous,
            after: after.content.sha(),
            saved,
            command: None,
            partial: false,
            mode: None,
            mode_after: None,
            dir: false,
        };
        state.store.record(&change).map_err(|e| e.to_string())
    }

    /// A new turn starts a new manifest (on its first change).
    pub(super) fn checkpoint_new_turn(&mut self) {
        if let Some(state) = self.checkpoints.as_mut() {
            state.turn = None;
        }
    }
}
