//! What several commands share: environment, configuration, workspace, alert printing.

use std::path::{Path, PathBuf};

use super::exit::CliError;
use crate::config::{self, Loaded, Sources};
use crate::store::{self, Home};
use crate::worker::{Alert, AlertLevel, setup};

/// Reads the process environment.
pub(crate) fn env(var: &str) -> Option<String> {
    std::env::var(var).ok()
}

/// The canonical workspace: `-C DIR` or the current directory.
pub(crate) fn workspace(dir: Option<&Path>) -> Result<PathBuf, CliError> {
    let dir = match dir {
        Some(dir) => dir.to_owned(),
        None => std::env::current_dir().map_err(|err| {
            CliError::failure(format!("cannot read the current directory: {err}"))
        })?,
    };
    setup::workspace_root(&dir).map_err(|err| CliError::usage(err.to_string()))
}

/// The layered configuration for `workspace`; its warnings are printed as alerts.
pub(crate) fn load_config(workspace: &Path) -> Result<Loaded, CliError> {
    let loaded = config::load(&Sources::standard(workspace, &env))
        .map_err(|err| CliError::usage(err.to_string()))?;
    for warning in &loaded.warnings {
        print_alert(&Alert::warn("config", warning.clone()));
    }
    Ok(loaded)
}

/// `$WARDEN_HOME` or the default state directory.
pub(crate) fn home() -> Result<Home, CliError> {
    Home::from_env().map_err(|err| CliError::usage(err.to_string()))
}

/// Print an alert to stderr.
pub(crate) fn print_alert(alert: &Alert) {
    let level = match alert.level {
        AlertLevel::Info => "info",
        AlertLevel::Warn => "warning",
        AlertLevel::Error => "error",
    };
    eprintln!("{level} [{}]: {}", alert.source, alert.message);
}

/// Map a setup failure to an exit code.
pub(crate) fn setup_error(err: setup::SetupError) -> CliError {
    if err.is_usage() {
        CliError::usage(err.to_string())
    } else {
        CliError::failure(err.to_string())
    }
}

/// The session `warden run` continues: `--session ID`, or with `--continue` the most recent
/// session of the workspace.
pub(crate) fn continue_target(
    dir: Option<&Path>,
    session: Option<String>,
    continue_last: bool,
) -> Result<Option<String>, CliError> {
    if !continue_last {
        return Ok(session);
    }
    let workspace = workspace(dir)?;
    let found = latest_session(&home()?, &workspace)?;
    match found {
        Some(id) => Ok(Some(id)),
        None => Err(CliError::usage(format!(
            "no session of {} to continue",
            workspace.display()
        ))),
    }
}

/// The session of `workspace` whose history was written last.
pub(crate) fn latest_session(home: &Home, workspace: &Path) -> Result<Option<String>, CliError> {
    store::latest_for_workspace(home, workspace).map_err(|e| CliError::failure(e.to_string()))
}
