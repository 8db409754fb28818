//! The events of command hooks, in the names Claude Code and Codex give them
//! (`PreToolUse`, …), and the call point of warden's turn each one is asked at.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One event a command hook is configured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A prompt is about to be committed (`on-prompt-submit`).
    UserPromptSubmit,
    /// A tool call is about to be judged and run (`pre-tool-call`).
    PreToolUse,
    /// A tool call ran or was denied (`post-tool-call`).
    PostToolUse,
    /// The model answered without tool calls (`on-turn-end`).
    Stop,
    /// A child session ended and its report is about to be committed.
    SubagentStop,
    /// A session's first prompt, or its first after a resume.
    SessionStart,
    /// The session is left (the run ended, the chat left it).
    SessionEnd,
    /// History is about to be compacted (`compaction`).
    PreCompact,
    /// warden is asking the person (an approval question).
    Notification,
}

impl HookEvent {
    /// Every event, in the order a session meets them.
    pub const ALL: [HookEvent; 9] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::Notification,
        Self::PostToolUse,
        Self::SubagentStop,
        Self::Stop,
        Self::PreCompact,
        Self::SessionEnd,
    ];

    /// The name hook files spell it with.
    pub const fn name(self) -> &'static str {
        match self {
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::PreCompact => "PreCompact",
            Self::Notification => "Notification",
        }
    }

    /// Whether a `matcher` filters it: the tool events by tool name. (Claude Code matches
    /// other events on other fields, `SessionStart` on its source; warden asks those hooks
    /// at every such event, and `warden hooks import` says so.)
    pub const fn matches_tools(self) -> bool {
        matches!(self, Self::PreToolUse | Self::PostToolUse)
    }
}

impl fmt::Display for HookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no event warden runs hooks at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownHookEvent(pub String);

impl fmt::Display for UnknownHookEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
        write!(
            f,
            "unknown hook event `{}`: warden runs hooks at {}",
            self.0,
            known.join(", ")
        )
    }
}

impl std::error::Error for UnknownHookEvent {}

impl FromStr for HookEvent {
    type Err = UnknownHookEvent;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|e| e.name() == s)
            .ok_or_else(|| UnknownHookEvent(s.to_owned()))
    }
}

impl Serialize for HookEvent {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for HookEvent {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_reads_back_its_own_name_and_nothing_else_is_an_event() {
        for event in HookEvent::ALL {
            assert_eq!(event.name().parse::<HookEvent>(), Ok(event));
        }
        let err = "pretooluse".parse::<HookEvent>().err();
        assert!(err.is_some_and(|e| e.to_string().contains("PreToolUse")));
    }
}
