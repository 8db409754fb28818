//! What history holds: an [`Item`] with its host-assigned [`Source`].

use std::fmt;

use serde::{Deserialize, Serialize};

/// A tool invocation requested by the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    /// Provider-assigned id that the result refers back to.
    pub id: String,
    /// Tool name.
    pub name: String,
    /// Arguments (a JSON object).
    pub arguments: serde_json::Value,
}

/// One history entry. Serialized with a `role` tag: `user`, `system`, `assistant`, `tool`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Item {
    /// What the person typed.
    User {
        /// The prompt text.
        text: String,
    },
    /// Context injected by the host: file content, notifications, plugin additions.
    System {
        /// The text.
        text: String,
    },
    /// An answer of the model.
    Assistant {
        /// Answer text.
        text: String,
        /// Tool calls requested with the answer.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    /// The result of one tool call.
    #[serde(rename = "tool")]
    ToolResult {
        /// The id of the call this answers.
        call_id: String,
        /// Tool output.
        #[serde(rename = "text")]
        content: String,
        /// True when the tool failed; `content` says why.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        is_error: bool,
    },
}

impl Item {
    /// A user item.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User { text: text.into() }
    }

    /// A system item.
    pub fn system(text: impl Into<String>) -> Self {
        Self::System { text: text.into() }
    }

    /// An assistant item without tool calls.
    pub fn assistant(text: impl Into<String>) -> Self {
        Self::Assistant {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }

    /// The item's role name as serialized.
    pub fn role(&self) -> &'static str {
        match self {
            Self::User { .. } => "user",
            Self::System { .. } => "system",
            Self::Assistant { .. } => "assistant",
            Self::ToolResult { .. } => "tool",
        }
    }

    /// The item's main text (the tool output for a tool result).
    pub fn text(&self) -> &str {
        match self {
            Self::User { text } | Self::System { text } | Self::Assistant { text, .. } => text,
            Self::ToolResult { content, .. } => content,
        }
    }

    /// Approximate size in bytes of what this item contributes to a request.
    pub fn byte_len(&self) -> usize {
        match self {
            Self::Assistant { text, tool_calls } => {
                text.len()
                    + tool_calls
                        .iter()
                        .map(|c| c.id.len() + c.name.len() + json_len(&c.arguments))
                        .sum::<usize>()
            }
            Self::ToolResult {
                call_id, content, ..
            } => call_id.len() + content.len(),
            Self::User { text } | Self::System { text } => text.len(),
        }
    }
}

/// The length of `value` written as compact JSON, counted as it is written instead of built:
/// every model request sums this over the whole history.
fn json_len(value: &serde_json::Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    // Neither a `Value` nor this writer can fail.
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// Who produced a committed item. Assigned by the host; a plugin cannot choose or spoof it.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Source {
    /// Typed by the person.
    User,
    /// Content of a referenced file.
    FileRef,
    /// Added by the named plugin.
    Plugin(String),
    /// A queued notification.
    Notify,
    /// Produced by the model provider.
    Provider,
    /// Output of a tool the host ran.
    Tool,
    /// Written by the host itself (e.g. the record of a failed model request).
    Host,
    /// The project's instructions file (`AGENTS.md`).
    Project,
    /// Written by compaction: its marker, the summary and the files re-read.
    Compaction,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::User => f.write_str("user"),
            Self::FileRef => f.write_str("fileref"),
            // A command hook's chain name already says what it is (`hook:NAME`).
            Self::Plugin(name) if name.starts_with("hook:") => f.write_str(name),
            Self::Plugin(name) => write!(f, "plugin:{name}"),
            Self::Notify => f.write_str("notify"),
            Self::Provider => f.write_str("provider"),
            Self::Tool => f.write_str("tool"),
            Self::Host => f.write_str("host"),
            Self::Project => f.write_str("project"),
            Self::Compaction => f.write_str("compaction"),
        }
    }
}

/// A source string that is not one the host assigns.
#[derive(Debug, thiserror::Error)]
#[error("unknown item source {0:?}")]
pub struct UnknownSource(pub String);

impl std::str::FromStr for Source {
    type Err = UnknownSource;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "user" => Ok(Self::User),
            "fileref" => Ok(Self::FileRef),
            "notify" => Ok(Self::Notify),
            "provider" => Ok(Self::Provider),
            "tool" => Ok(Self::Tool),
            "host" => Ok(Self::Host),
            "project" => Ok(Self::Project),
            "compaction" => Ok(Self::Compaction),
            other if other.len() > 5 && other.starts_with("hook:") => {
                Ok(Self::Plugin(other.to_owned()))
            }
            other => match other.strip_prefix("plugin:") {
                Some(name) if !name.is_empty() => Ok(Self::Plugin(name.to_owned())),
                _ => Err(UnknownSource(other.to_owned())),
            },
        }
    }
}

impl Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    proptest! {
        /// A call's arguments count as many bytes as their compact JSON text has.
        #[test]
        fn an_answers_size_counts_its_arguments_as_their_json_text(
            arguments in crate::domain::json_strategy::json(),
            text in ".{0,40}",
        ) {
            let item = Item::Assistant {
                text: text.clone(),
                tool_calls: vec![ToolCall {
                    id: "c1".into(),
                    name: "read_file".into(),
                    arguments: arguments.clone(),
                }],
            };
            prop_assert_eq!(
                item.byte_len(),
                text.len() + 2 + 9 + arguments.to_string().len()
            );
        }
    }

    #[test]
    fn tool_result_serializes_with_tool_role_and_text() {
        let item = Item::ToolResult {
            call_id: "c1".into(),
            content: "body".into(),
            is_error: false,
        };
        let json = serde_json::to_value(&item).unwrap_or_default();
        assert_eq!(
            json,
            serde_json::json!({"role": "tool", "call_id": "c1", "text": "body"})
        );
    }

    #[test]
    fn source_round_trips_and_rejects_unknown() {
        for s in [
            Source::User,
            Source::Plugin("a-b".into()),
            Source::Notify,
            Source::Project,
        ] {
            assert_eq!(s.to_string().parse::<Source>().ok(), Some(s));
        }
        assert!("plugin:".parse::<Source>().is_err());
        assert!("root".parse::<Source>().is_err());
    }
}
