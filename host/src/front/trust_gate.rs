//! The configuration a front end that runs plugins uses: the project's plugins, MCP servers,
//! resolver, raised mode and held-back settings only when the workspace is trusted. While code
//! waits for trust a front end refuses (`warden run`), asks (the chat on its terminal, an
//! editor through `session/request_permission`) or runs without it (`warden mcp serve`); where
//! managed policy forbids trusting, every front end runs without the project's code. What is
//! left out is said in one alert.

use std::path::Path;

use crate::config::{self, Loaded};
use crate::domain::Alert;
use crate::domain::escape::escape;
use crate::setup::trust::{self, Change, Pending, TrustState};
use crate::store::Home;

use super::error::FrontError;
use super::sources::sources;

/// What a front end does while trust is waiting.
pub enum WhenWaiting<'a> {
    /// Refuse, naming what waits and `warden trust -C ROOT`.
    Refuse,
    /// Ask the person (`true`: trust it now); the question shows [`change_lines`].
    Ask(&'a mut dyn FnMut(&Pending) -> bool),
    /// Run without the project's code, with one warning (nobody can be asked).
    LeaveOut,
}

/// The configuration to run with, what to say about it, and the configuration warnings.
pub struct Gated {
    /// The configuration.
    pub loaded: Loaded,
    /// What was left out and why, when something was.
    pub alert: Option<Alert>,
    /// The configuration's own warnings (of the configuration used).
    pub warnings: Vec<String>,
}

/// Trust was waiting and the front end refuses: the message, and the warnings of the
/// configuration that was read.
pub struct Refused {
    /// Why nothing runs.
    pub error: FrontError,
    /// The configuration's warnings.
    pub warnings: Vec<String>,
}

impl From<FrontError> for Refused {
    fn from(error: FrontError) -> Self {
        Self {
            error,
            warnings: Vec::new(),
        }
    }
}

/// The layered configuration for `workspace`, with the project's code only if it is trusted.
pub fn load_trusted(
    workspace: &Path,
    home: &Home,
    when: WhenWaiting<'_>,
) -> Result<Gated, Refused> {
    let sources = sources(workspace);
    let mut loaded = config::load(&sources).map_err(|err| FrontError::usage(err.to_string()))?;
    let state =
        trust::check(&loaded, workspace, home).map_err(|err| FrontError::usage(err.to_string()))?;
    let as_is = |loaded: Loaded| Gated {
        warnings: loaded.warnings.clone(),
        loaded,
        alert: None,
    };
    let untrusted = match state {
        TrustState::NotNeeded | TrustState::TrustedByPolicy { .. } => return Ok(as_is(loaded)),
        // Each component is pinned to the bytes that were trusted: a file swapped after this
        // check is refused when it is loaded.
        TrustState::Trusted(declared) => {
            trust::pin_trusted(&mut loaded, &declared);
            return Ok(as_is(loaded));
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
                return Err(Refused {
                    error: FrontError::usage(refusal(&pending)),
                    warnings: loaded.warnings,
                });
            }
            WhenWaiting::LeaveOut => format!(
                "{} not loaded: {}",
                what_is_left_out(&loaded),
                refusal(&pending)
            ),
            WhenWaiting::Ask(ask) => {
                if ask(&pending) {
                    trust::record(home, &pending)
                        .map_err(|err| FrontError::failure(err.to_string()))?;
                    trust::pin_trusted(&mut loaded, &pending.declared);
                    return Ok(as_is(loaded));
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
        .map_err(|err| FrontError::usage(err.to_string()))?;
    Ok(Gated {
        warnings: without.warnings.clone(),
        loaded: without,
        alert: Some(Alert::warn("trust", untrusted)),
    })
}

/// The question's header: what the project's configuration does that waits for trust.
pub fn question_header(pending: &Pending) -> String {
    let header = if pending.previous.is_some() {
        "has changed what it runs since you trusted it"
    } else {
        "declares code that runs in this workspace"
    };
    format!("{} {header}:", pending.file.display())
}

/// `the project's plugins a (tool), b (interceptor) and its resolver settings and its mode`.
pub fn what_is_left_out(loaded: &Loaded) -> String {
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
pub fn refusal(pending: &Pending) -> String {
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
pub fn change_lines(pending: &Pending, trusted: bool) -> Vec<String> {
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
