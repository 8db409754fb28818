//! What several commands share: environment, configuration, workspace, alert printing.

use std::io::{BufRead, Write};
use std::path::Path;

use super::exit::CliError;
use crate::config::{self, Loaded};
use crate::domain::escape::escape;
use crate::domain::{Alert, AlertLevel};
use crate::setup;
use crate::store::{self, Home};

pub(crate) use crate::front::sources::{env, set_system_managed, sources};

/// The layered configuration for `workspace`, for commands that run no plugin (see
/// [`super::trust::load_config_trusted`] for those that do); its warnings are printed as
/// alerts.
pub(crate) fn load_config(workspace: &Path) -> Result<Loaded, CliError> {
    let loaded =
        config::load(&sources(workspace)).map_err(|err| CliError::usage(err.to_string()))?;
    print_config_warnings(&loaded.warnings);
    Ok(loaded)
}

/// Print configuration warnings, each once per process (a command that loads the
/// configuration twice says nothing twice).
pub(crate) fn print_config_warnings(warnings: &[String]) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for warning in warnings {
        if !said.contains(warning) {
            print_alert(&Alert::warn("config", warning.clone()));
            said.push(warning.clone());
        }
    }
}

/// `$WARDEN_HOME` or the default state directory.
pub(crate) fn home() -> Result<Home, CliError> {
    Home::from_env().map_err(|err| CliError::usage(err.to_string()))
}

/// Print an alert to stderr, as one line whatever it holds.
pub(crate) fn print_alert(alert: &Alert) {
    let (level, colour) = match alert.level {
        AlertLevel::Info => ("info", 36),
        AlertLevel::Warn => ("warning", 33),
        AlertLevel::Error => ("error", 31),
    };
    let level = super::colour::paint(level, colour, super::colour::stderr_colour());
    eprintln!(
        "{level} [{}]: {}",
        escape(&alert.source),
        escape(&alert.message)
    );
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
    let workspace = crate::front::workspace::Workspace::find(dir)?.root;
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

/// OpenTelemetry export while it lives: when dropped, flushed for a short while, and what could
/// not be sent said in one line on stderr.
pub(crate) struct TelemetryGuard(Option<crate::telemetry::Telemetry>);

impl Drop for TelemetryGuard {
    fn drop(&mut self) {
        if let Some(telemetry) = self.0.take() {
            let endpoint = telemetry.endpoint().to_owned();
            let report = telemetry.finish();
            if let Some(line) = crate::telemetry::loss_line(&endpoint, &report) {
                eprintln!("{line}");
            }
        }
    }
}

/// Starts OpenTelemetry export as `[telemetry]` says; a setup failure is said and export stays
/// off (a turn never waits on it).
pub(crate) fn start_telemetry(config: &config::TelemetryConfig, home: &Home) -> TelemetryGuard {
    match crate::telemetry::start(config, home) {
        Ok(telemetry) => TelemetryGuard(telemetry),
        Err(err) => {
            print_alert(&Alert::warn("telemetry", err));
            TelemetryGuard(None)
        }
    }
}

/// Ask `question` on the terminal; only `y` or `yes` agrees.
pub(crate) fn confirm(question: &str) -> bool {
    eprint!("{question}");
    let _ = std::io::stderr().flush();
    let mut answer = String::new();
    match std::io::stdin().lock().read_line(&mut answer) {
        Ok(0) | Err(_) => false,
        Ok(_) => matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
    }
}
