//! Asking the person about a tool call.
//!
//! A call needs approval when its tool plugin is marked `approve = "ask"` or when the
//! permission mode asks for its effect ([`AskWhy`]). The front end is asked through
//! [`TurnSink::approve_tool`](super::TurnSink::approve_tool) and told how each call ended
//! through [`TurnEvent`](super::TurnEvent)s.

use super::builtin::ToolEffect;
use super::escalation::Escalation;
use super::mode::{Mode, effect_phrase};

/// What the person answered for one tool call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Run this call.
    Yes,
    /// Run this call, and every later call of the same tool for as long as this worker runs
    /// (a `warden chat` session) without asking again.
    Always,
    /// Do not run it; the reason is committed as the call's `is_error` result.
    No(String),
}

/// Why a call waits for the person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AskWhy {
    /// Its tool plugin (this name) is marked `approve = "ask"`.
    Plugin(String),
    /// A `[[rules]]` entry says `ask` (or a command cannot be judged for certain while deny
    /// rules are in force).
    Rule {
        /// The rule's id (empty when no single rule decided).
        id: String,
        /// Why, as the rule says.
        why: String,
    },
    /// Its tool plugin (`plugin`) is marked `approve = "per-host"` and the call is the
    /// session's first to `host`.
    Host {
        /// The plugin's name.
        plugin: String,
        /// The host the call names (`name:port`), or why none could be read.
        host: String,
    },
    /// An interceptor (a command hook's `permissionDecision: "ask"`) asks, in every mode
    /// that lets the call through; an earlier `always` never answers it.
    Interceptor {
        /// Its chain name (`hook:NAME`, or a plugin's name).
        plugin: String,
        /// Its reason.
        why: String,
    },
    /// The permission mode asks before a call of this effect.
    Mode {
        /// The mode in force.
        mode: Mode,
        /// The call's effect.
        effect: ToolEffect,
    },
    /// A `shell` call asks for more than the default sandbox: asked in every mode.
    Escalation(Escalation),
}

impl AskWhy {
    /// The call's effect when the mode asks.
    pub fn effect(&self) -> Option<ToolEffect> {
        match self {
            Self::Plugin(_)
            | Self::Host { .. }
            | Self::Rule { .. }
            | Self::Interceptor { .. }
            | Self::Escalation(_) => None,
            Self::Mode { effect, .. } => Some(*effect),
        }
    }

    /// What requires the approval, as a clause: `tool plugin `x` requires approval (approve =
    /// "ask")`, or `mode `ask` asks before a tool that writes files`.
    pub fn requirement(&self) -> String {
        match self {
            Self::Plugin(plugin) => {
                format!("tool plugin `{plugin}` requires approval (approve = \"ask\")")
            }
            Self::Host { plugin, host } => format!(
                "tool plugin `{plugin}` asks before its first call to each host (approve = \"per-host\"), and this call is the first to {host}"
            ),
            Self::Rule { why, .. } => why.clone(),
            Self::Interceptor { plugin, why } => format!("{plugin} asks: {why}"),
            Self::Escalation(e) => format!(
                "the command asks to leave the sandbox's default ({}; {}), which always asks",
                e.grants(),
                e.reason
            ),
            Self::Mode { mode, effect } => format!(
                "mode `{mode}` asks before a tool that {}",
                effect_phrase(*effect)
            ),
        }
    }
}
