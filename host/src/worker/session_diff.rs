//! What a session changed, from its checkpoints ([`crate::store::Checkpoints`]): each file
//! any turn changed, its content before the first change against what is there now.

use std::ffi::OsString;
use std::path::Path;

use crate::config::FileRefConfig;
use crate::domain::FileChange;
use crate::domain::file_name;
use crate::store::{Checkpoints, MAX_FILE_BYTES};
use crate::tools::{Workspace, snapshot_name};

use super::turn::file_change::{Side, net_change};

/// Each file the turns of the session in `session_dir` changed (and `warden undo` has not
/// put back), in the order first changed, against its content now. A file as it was before
/// is left out.
pub fn session_diff(
    session_dir: &Path,
    workspace: &Path,
    config: &FileRefConfig,
) -> Result<Vec<FileChange>, String> {
    let ws = Workspace::open(&[workspace.to_path_buf()], config).map_err(|e| e.to_string())?;
    let store = Checkpoints::new(session_dir);
    // Name (bytes) → its first recorded previous content (sha, kept), in first-changed order.
    let mut first: Vec<(OsString, Option<String>, bool)> = Vec::new();
    for turn in store.turns().map_err(|e| e.to_string())? {
        for change in store.changes(turn).map_err(|e| e.to_string())? {
            // A directory has no content to compare.
            if change.partial || change.dir {
                continue;
            }
            let name = change.name()?;
            if first.iter().any(|(path, _, _)| *path == name) {
                continue;
            }
            first.push((name, change.before, change.saved));
        }
    }
    let mut out = Vec::new();
    for (path, before, saved) in first {
        let now = snapshot_name(&ws, &path, MAX_FILE_BYTES)
            .map_err(|e| format!("{}: {e}", file_name::shown(&path)))?;
        if now.content.sha() == before {
            continue;
        }
        let was = match &before {
            None => Side::Missing,
            Some(sha) if saved => store.blob(sha).map_or(Side::Unknown, Side::Bytes),
            Some(_) => Side::Unknown,
        };
        out.push(net_change(&path, &was, &Side::of(&now.content)));
    }
    Ok(out)
}
