//! The permission modes (`[tools] mode`, `--mode`, `/mode`): how much a turn's tool calls may
//! do without asking the person, judged by each tool's [`ToolEffect`].
//!
//! | mode        | Read | Write  | Shell  |
//! |-------------|------|--------|--------|
//! | `read-only` | runs | denied | denied |
//! | `ask`       | runs | asks   | asks   |
//! | `auto-edit` | runs | runs   | asks   |
//! | `full-auto` | runs | runs   | runs   |
//!
//! A tool plugin's own `approve = "ask"` still asks in every mode (unless the mode denied the
//! call first); an interceptor's deny comes before the mode.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::builtin::ToolEffect;

/// A permission mode, from least to most permissive.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, Default,
)]
#[serde(rename_all = "kebab-case")]
pub enum Mode {
    /// Writes and commands are denied.
    ReadOnly,
    /// Writes and commands ask the person (the default).
    #[default]
    Ask,
    /// Writes run; commands ask.
    AutoEdit,
    /// Writes and commands run.
    FullAuto,
}

/// What a mode does with one call of a given effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModeVerdict {
    /// Run it (unless something else objects).
    Run,
    /// Ask the person.
    Ask,
    /// Deny it.
    Deny,
}

/// A mode name that is not one of the four.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown mode {0:?}: use read-only, ask, auto-edit or full-auto")]
pub struct UnknownMode(pub String);

impl Mode {
    /// Every mode, least permissive first.
    pub const ALL: [Mode; 4] = [Mode::ReadOnly, Mode::Ask, Mode::AutoEdit, Mode::FullAuto];

    /// The name as configuration writes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Ask => "ask",
            Self::AutoEdit => "auto-edit",
            Self::FullAuto => "full-auto",
        }
    }

    /// What this mode does with a call of `effect`.
    pub fn judge(self, effect: ToolEffect) -> ModeVerdict {
        match (self, effect) {
            (_, ToolEffect::Read) => ModeVerdict::Run,
            (Self::ReadOnly, _) => ModeVerdict::Deny,
            (Self::Ask, _) | (Self::AutoEdit, ToolEffect::Shell) => ModeVerdict::Ask,
            (Self::AutoEdit, ToolEffect::Write) | (Self::FullAuto, _) => ModeVerdict::Run,
        }
    }

    /// The reason a call of `tool` (of `effect`) denied by this mode gives the model and the
    /// person: the mode, and how to change it.
    pub fn denial(self, tool: &str, effect: ToolEffect) -> String {
        format!(
            "{}: `{tool}` {} and this mode allows neither writes nor commands (change it with `/mode ask` in chat, `--mode`, or `[tools] mode` in configuration)",
            self.name(),
            effect_phrase(effect)
        )
    }
}

/// `writes files` / `runs commands` / `reads only`.
pub fn effect_phrase(effect: ToolEffect) -> &'static str {
    match effect {
        ToolEffect::Read => "reads only",
        ToolEffect::Write => "writes files",
        ToolEffect::Shell => "runs commands",
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Mode {
    type Err = UnknownMode;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|m| m.name() == s)
            .ok_or_else(|| UnknownMode(s.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_modes_and_effects() {
        use ModeVerdict::{Ask, Deny, Run};
        let table = [
            (Mode::ReadOnly, [Run, Deny, Deny]),
            (Mode::Ask, [Run, Ask, Ask]),
            (Mode::AutoEdit, [Run, Run, Ask]),
            (Mode::FullAuto, [Run, Run, Run]),
        ];
        for (mode, verdicts) in table {
            let effects = [ToolEffect::Read, ToolEffect::Write, ToolEffect::Shell];
            for (effect, verdict) in effects.into_iter().zip(verdicts) {
                assert_eq!(mode.judge(effect), verdict, "{mode} {effect:?}");
            }
            assert_eq!(mode.name().parse::<Mode>(), Ok(mode));
        }
        assert!(Mode::ReadOnly < Mode::Ask && Mode::AutoEdit < Mode::FullAuto);
        assert_eq!(Mode::default(), Mode::Ask);
        assert!("auto".parse::<Mode>().is_err());
    }
}
