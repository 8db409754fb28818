//! [`CallPoint`]: the points of a turn where the worker asks plugins, named once. Every other
//! place — spans, audit records, failures, replay — uses this type; its [`Display`] and its
//! serialized form are the WIT export names (`on-prompt-submit`, …).

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A point of the turn where plugins are asked (interceptors) or told (hooks).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CallPoint {
    /// A prompt is about to be committed.
    OnPromptSubmit,
    /// A model request is about to be built.
    PreLlmRequest,
    /// The model answered without tool calls.
    OnTurnEnd,
    /// A tool call is about to be approved and run (WIT 0.2.0).
    PreToolCall,
    /// A tool call ran (WIT 0.2.0).
    PostToolCall,
    /// History is being compacted.
    Compaction,
    /// An event is delivered to a hook.
    OnEvent,
}

impl CallPoint {
    /// Every point, in the order a turn meets them.
    pub const ALL: [CallPoint; 7] = [
        Self::OnPromptSubmit,
        Self::PreLlmRequest,
        Self::PreToolCall,
        Self::PostToolCall,
        Self::OnTurnEnd,
        Self::Compaction,
        Self::OnEvent,
    ];

    /// The WIT export name.
    pub const fn name(self) -> &'static str {
        match self {
            Self::OnPromptSubmit => "on-prompt-submit",
            Self::PreLlmRequest => "pre-llm-request",
            Self::OnTurnEnd => "on-turn-end",
            Self::PreToolCall => "pre-tool-call",
            Self::PostToolCall => "post-tool-call",
            Self::Compaction => "compaction",
            Self::OnEvent => "on-event",
        }
    }
}

impl fmt::Display for CallPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is no call point.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPoint(pub String);

impl fmt::Display for UnknownPoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown call point `{}`", self.0)
    }
}

impl std::error::Error for UnknownPoint {}

impl FromStr for CallPoint {
    type Err = UnknownPoint;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPoint(s.to_owned()))
    }
}

impl Serialize for CallPoint {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for CallPoint {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

/// Who settled a tool call.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum DecidedBy {
    /// An interceptor at `pre-tool-call` (its configured name).
    Plugin(String),
    /// The person, asked because the tool's entry says `approve = "ask"` or the permission
    /// mode asks for the call's effect.
    Approval,
    /// The permission mode: it denied the call (`read-only`), or let a write or a command run
    /// without asking (`auto-edit`, `full-auto`).
    Mode,
    /// The host's policy: an interceptor failed under `failure = "closed"`, or an earlier
    /// closed failure ended the turn.
    Policy,
    /// A `[[rules]]` entry (its id; several, comma-separated, when each simple command of a
    /// `shell` call was allowed by its own rule).
    Rule(String),
    /// Nobody objected and nobody was asked.
    Default,
}

impl fmt::Display for DecidedBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A command hook's chain name already says what it is (`hook:NAME`).
            Self::Plugin(name) if name.starts_with("hook:") => f.write_str(name),
            Self::Plugin(name) => write!(f, "plugin:{name}"),
            Self::Approval => f.write_str("approval"),
            Self::Mode => f.write_str("mode"),
            Self::Policy => f.write_str("policy"),
            Self::Rule(id) => write!(f, "rule:{id}"),
            Self::Default => f.write_str("default"),
        }
    }
}

impl FromStr for DecidedBy {
    type Err = std::convert::Infallible;

    /// `plugin:<name>`, `approval`, `mode`, `policy`; anything else reads as `default`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Ok(match s {
            "approval" => Self::Approval,
            "mode" => Self::Mode,
            "policy" => Self::Policy,
            _ if s.starts_with("hook:") => Self::Plugin(s.to_owned()),
            _ => match (s.strip_prefix("plugin:"), s.strip_prefix("rule:")) {
                (Some(name), _) => Self::Plugin(name.to_owned()),
                (None, Some(id)) => Self::Rule(id.to_owned()),
                (None, None) => Self::Default,
            },
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for point in CallPoint::ALL {
            assert_eq!(point.to_string().parse::<CallPoint>(), Ok(point));
            let json = serde_json::to_string(&point).unwrap_or_default();
            assert_eq!(json, format!("\"{point}\""));
            assert_eq!(serde_json::from_str::<CallPoint>(&json).ok(), Some(point));
        }
        assert_eq!(
            "on-prompt".parse::<CallPoint>(),
            Err(UnknownPoint("on-prompt".into()))
        );
        assert!(serde_json::from_str::<CallPoint>("\"resolve\"").is_err());
    }

    #[test]
    fn deciders_read_back_as_written() {
        for by in [
            DecidedBy::Plugin("guard".into()),
            DecidedBy::Approval,
            DecidedBy::Mode,
            DecidedBy::Policy,
            DecidedBy::Rule("cargo-test".into()),
            DecidedBy::Default,
        ] {
            assert_eq!(by.to_string().parse::<DecidedBy>(), Ok(by));
        }
    }
}
