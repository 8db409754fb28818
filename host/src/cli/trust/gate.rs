//! The configuration a command that runs plugins uses: the project's plugins, MCP servers,
//! resolver, raised mode and held-back settings only when the workspace is trusted. `warden
//! run`, `preview` and `compact` refuse (exit 2) while code waits for trust, and run without
//! the project's code and settings, with one warning naming them, when only settings wait;
//! `warden chat` asks on the terminal; `warden mcp serve` runs without the project's code,
//! with one warning. Where managed policy forbids trusting, every command runs without the
//! project's code, with one warning.

use std::io::{BufRead, IsTerminal};
use std::path::Path;

use crate::cli::common::{print_alert, sources};
use crate::cli::exit::CliError;
use crate::config::{self, Loaded};
use crate::domain::Alert;
use crate::domain::escape::escape;
use crate::setup::trust::{self, Change, Pending, TrustState};
use crate::store::Home;

/// What a command does while trust is waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenWaiting {
    /// Exit 2 naming what waits and `warden trust -C ROOT`.
    Refuse,
    /// Show what is new or changed and ask y/N on the terminal.
    Ask,
    /// Run without the project's code, with one warning (`warden mcp serve`: its stdin is the
    /// protocol, nobody can be asked).
    LeaveOut,
}

/// The layered configuration for `workspace`, with the project's code only if it is trusted;
/// its warnings are printed as alerts.
pub(crate) fn load_config_trusted(
    workspace: &Path,
    home: &Home,
    when: WhenWaiting,
) -> Result<Loaded, CliError> {
    let sources = sources(workspace);
    let mut loaded = config::load(&sources).map_err(|err| CliError::usage(err.to_string()))?;
    let state =
        trust::check(&loaded, workspace, home).map_err(|err| CliError::usage(err.to_string()))?;
    let untrusted = match state {
        TrustState::NotNeeded | TrustState::TrustedByPolicy { .. } => {
            return Ok(print_warnings(loaded));
        }
        // Each component is pinned to the bytes that were trusted: a file swapped after this
        // check is refused when it is loaded.
        TrustState::Trusted(declared) => {
            trust::pin_trusted(&mut loaded, &declared);
            return Ok(print_warnings(loaded));
        }
        TrustState::Forbidden { file } => format!(
            "managed policy forbids trusting projects (`policy.allow_trust = false` in {}): {} not loaded",
            file.display(),
            what_is_left_out(&loaded)
        ),
        TrustState::Waiting(pending) => match when {
            // A project without code waits only for settings, which change what the model is
            // told or a command gets: held back, the turn goes on. One that declares code is
            // refused below, whatever changed: the turn would lose its trusted code too.
            WhenWaiting::Refuse if !pending.declares_code() => format!(
                "{} {}: held back until trusted: {}; review it, then run `warden trust -C {}`",
                pending.file.display(),
                if pending.previous.is_some() {
                    "has changed since it was trusted"
                } else {
                    "is not trusted"
                },
                what_is_left_out(&loaded),
                pending.root.display()
            ),
            WhenWaiting::Refuse => {
                print_warnings(loaded);
                return Err(CliError::usage(refusal(&pending)));
            }
            WhenWaiting::LeaveOut => format!(
                "{} not loaded: {}",
                what_is_left_out(&loaded),
                refusal(&pending)
            ),
            WhenWaiting::Ask => {
                if ask(&pending) {
                    trust::record(home, &pending)
                        .map_err(|err| CliError::failure(err.to_string()))?;
                    trust::pin_trusted(&mut loaded, &pending.declared);
                    return Ok(print_warnings(loaded));
                }
                format!(
                    "this session runs without the project's code ({} not loaded); trust it with `warden trust -C {}`",
                    what_is_left_out(&loaded),
                    pending.root.display()
                )
            }
        },
    };
    let without = config::load_without_project_code(&sources)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let without = print_warnings(without);
    print_alert(&Alert::warn("trust", untrusted));
    Ok(without)
}

fn print_warnings(loaded: Loaded) -> Loaded {
    crate::cli::common::print_config_warnings(&loaded.warnings);
    loaded
}

/// `the project's plugins a (tool), b (interceptor) and its resolver settings and its mode`.
fn what_is_left_out(loaded: &Loaded) -> String {
    let Some(code) = &loaded.project_code else {
        return "nothing".into();
    };
    let names: Vec<String> = code
        .entries
        .iter()
        .map(|e| format!("{} ({})", e.name, format!("{:?}", e.kind).to_lowercase()))
        .collect();
    let mut out = String::new();
    if !names.is_empty() {
        out = format!("the project's plugins {}", names.join(", "));
    }
    if !code.mcp.is_empty() {
        let servers: Vec<&str> = code.mcp.iter().map(|e| e.name.as_str()).collect();
        let what = format!("MCP servers {}", servers.join(", "));
        if out.is_empty() {
            out = format!("the project's {what}");
        } else {
            out.push_str(&format!(" and its {what}"));
        }
    }
    if code.resolver.is_some() {
        if out.is_empty() {
            out = "the project's resolver settings".into();
        } else {
            out.push_str(" and its resolver settings");
        }
    }
    if let Some(mode) = code.mode {
        if out.is_empty() {
            out = format!("the project's mode `{mode}`");
        } else {
            out.push_str(&format!(" and its mode `{mode}`"));
        }
    }
    if !code.settings.is_empty() {
        let keys: Vec<&str> = code.settings.keys().map(String::as_str).collect();
        let what = format!("settings {}", keys.join(", "));
        if out.is_empty() {
            out = format!("the project's {what}");
        } else {
            out.push_str(&format!(" and its {what}"));
        }
    }
    out
}

/// The message of `run` (and the commands like it) while trust is waiting.
pub(crate) fn refusal(pending: &Pending) -> String {
    let again = if pending.previous.is_some() {
        "changed since it was trusted"
    } else {
        "not trusted"
    };
    let files = pending.changed_files();
    let files = if files.is_empty() {
        String::new()
    } else {
        format!(" (changed workspace files: {})", files.join(", "))
    };
    format!(
        "{} declares code or grants that are {again}: {}{files}; none of it was used. Review it, then run `warden trust -C {}`",
        pending.file.display(),
        pending.waiting_ids().join(", "),
        pending.root.display()
    )
}

/// The lines showing what is new or changed since it was trusted (`trusted`: as just trusted).
pub(crate) fn change_lines(pending: &Pending, trusted: bool) -> Vec<String> {
    let describe = |d| {
        if trusted {
            trust::describe_trusted(d)
        } else {
            trust::describe(d)
        }
    };
    pending
        .changes()
        .iter()
        .map(|change| match change {
            Change::New(d) => format!("  + new      {}", escape(&describe(d))),
            Change::Changed(d, keys) => format!(
                "  ~ changed  {}\n{}",
                escape(&describe(d)),
                keys.iter()
                    .map(|k| format!("               {}", escape(k)))
                    .collect::<Vec<_>>()
                    .join("\n")
            ),
            Change::Removed(d) => format!("  - removed  {}", escape(&describe(d))),
        })
        .collect()
}

/// Show what waits for trust and read y/N from the terminal (anything else, end of input or
/// no terminal: no).
fn ask(pending: &Pending) -> bool {
    let header = if pending.previous.is_some() {
        "has changed what it runs since you trusted it"
    } else {
        "declares code that runs in this workspace"
    };
    eprintln!("{} {header}:", pending.file.display());
    for line in change_lines(pending, false) {
        eprintln!("{line}");
    }
    if !std::io::stdin().is_terminal() {
        eprintln!("not asked: standard input is not a terminal");
        return false;
    }
    eprint!("trust it and load it? [y/N] ");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => false,
        Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
    }
}
