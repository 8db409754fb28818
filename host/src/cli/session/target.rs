//! Which session a command continues or creates, and the workspace it runs in: a session
//! always runs in the workspace it records (see [`super::resolve`] for how an id is read).

use std::path::Path;

use super::resolve::resolve;
use crate::cli::exit::CliError;
use crate::front::workspace::Workspace;
use crate::store::{self, Home, StoreError};

/// What `--session` / `--new-session` asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SessionChoice<'a> {
    /// A fresh session with a generated id.
    Fresh,
    /// Continue this existing session.
    Existing(&'a str),
    /// Create a session with this name.
    Named(&'a str),
}

/// The workspace and session id (if any) a turn runs with.
pub(crate) fn target(
    home: &Home,
    dir: Option<&Path>,
    choice: SessionChoice<'_>,
) -> Result<(Workspace, Option<String>), CliError> {
    match choice {
        SessionChoice::Fresh => Ok((Workspace::find(dir)?, None)),
        SessionChoice::Named(name) => {
            store::validate_id(name).map_err(usage)?;
            if home.session_exists(name).map_err(usage)? {
                return Err(CliError::usage(format!(
                    "session {name:?} already exists; continue it with --session {name}"
                )));
            }
            Ok((Workspace::find(dir)?, Some(name.to_owned())))
        }
        SessionChoice::Existing(asked) => {
            let id = resolve(home, asked)?;
            let recorded = recorded_workspace(home, &id)?;
            let workspace = Workspace::recorded(&recorded)?;
            if let Some(dir) = dir {
                let asked = Workspace::find(Some(dir))?.root;
                if asked != workspace.root {
                    return Err(CliError::usage(format!(
                        "session {id} belongs to the workspace {}, but -C names {}; \
                         a session always runs in its own workspace",
                        workspace.root.display(),
                        asked.display()
                    )));
                }
            }
            Ok((workspace, Some(id)))
        }
    }
}

/// The workspace session `id` (an existing id, already resolved) records.
pub(crate) fn recorded_workspace(home: &Home, id: &str) -> Result<std::path::PathBuf, CliError> {
    let loaded = store::load(home, id).map_err(|err| CliError::failure(err.to_string()))?;
    Ok(loaded.header.workspace)
}

fn usage(err: StoreError) -> CliError {
    CliError::usage(err.to_string())
}
