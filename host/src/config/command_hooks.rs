//! `[[hooks]]`: command hooks in the shape Claude Code and Codex write them (an event, a
//! `matcher`, `type = "command"`, a `command`, a `timeout` in seconds), run in warden's
//! sandbox with the grants the entry names (`fs`, `allowed_hosts`, `env`), under a failure
//! policy (`on_error`) and, with `mode = "shadow"`, recorded and never applied.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::grants::FsGrant;
use super::schema::PluginMode;
use crate::domain::hook_event::HookEvent;

/// Default deadline of one hook run, in seconds (Claude Code's).
pub const HOOK_TIMEOUT_S: u64 = 60;
/// Ceiling on a hook's deadline, in seconds: a larger `timeout` is clamped.
pub const MAX_HOOK_TIMEOUT_S: u64 = 600;

/// What a hook's failure (a crash, a deadline, output warden cannot read, an exit code other
/// than 0 and 2) means for the call it was asked about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HookOnError {
    /// The call goes on, with one alert (what Claude Code and Codex do).
    Allow,
    /// The call is denied, the prompt cancelled, the turn ended.
    Deny,
}

impl HookOnError {
    /// The name as configuration writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Deny => "deny",
        }
    }
}

/// One `[[hooks]]` entry with every default applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CommandHookEntry {
    /// Name in alerts, audit records (`hook:<name>`) and item sources.
    pub name: String,
    /// The event it runs at.
    pub event: HookEvent,
    /// Claude Code's `matcher` (tool names, a regular expression; `None`: every tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// The command line, run by `/bin/sh -c` in the workspace root.
    pub command: String,
    /// Deadline of one run, in seconds.
    pub timeout_s: u64,
    /// The workspace roots: `read` (the default), `read-write` or `none`.
    pub fs: FsGrant,
    /// Host patterns reachable through warden's filtering proxy; no network without them.
    pub allowed_hosts: Vec<String>,
    /// Names of environment variables passed through besides the sandbox's harmless ones.
    pub env: Vec<String>,
    /// What its failure means.
    pub on_error: HookOnError,
    /// `enforce` or `shadow`.
    pub mode: PluginMode,
    /// `user`, `project` or `managed`.
    pub origin: String,
    /// The config file that declared it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<PathBuf>,
}

impl CommandHookEntry {
    /// Where the entry comes from, for a message: the file that declared it, else its layer.
    pub fn declared_where(&self) -> String {
        self.declared_in
            .as_ref()
            .map_or_else(|| self.origin.clone(), |path| path.display().to_string())
    }

    /// The sha256 (lowercase hex) of what it runs as configured: its event, matcher and
    /// command. What audit records name it by, with the name.
    pub fn digest(&self) -> String {
        use sha2::Digest;
        let mut hasher = sha2::Sha256::new();
        for part in [
            self.event.name(),
            self.matcher.as_deref().unwrap_or(""),
            self.command.as_str(),
        ] {
            hasher.update((part.len() as u64).to_le_bytes());
            hasher.update(part.as_bytes());
        }
        hex::encode(hasher.finalize())
    }
}
