//! Which model provider a session talks to.

use serde::{Deserialize, Serialize};

/// Model providers warden speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ProviderKind {
    /// Offline provider that summarises what it received.
    Echo,
    /// Anthropic Messages API.
    Anthropic,
    /// OpenAI-compatible Chat Completions.
    Openai,
}
