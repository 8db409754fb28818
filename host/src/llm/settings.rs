//! [`ProviderSettings`] → a boxed [`Provider`]. The assembly layer (`setup::provider`)
//! resolves the settings from configuration and the environment.

use std::time::Duration;

use super::echo::EchoProvider;
use super::{LlmError, Provider, RetryPolicy, anthropic, openai};
use crate::domain::ProviderKind;

/// Everything a provider needs, resolved from config and environment. Fields are public so a
/// caller (or a test) may adjust them before [`build`](Self::build).
#[derive(Debug, Clone, PartialEq)]
pub struct ProviderSettings {
    /// Which provider.
    pub kind: ProviderKind,
    /// Model name.
    pub model: String,
    /// Base URL (Anthropic: without `/v1`; OpenAI: with `/v1`); empty for echo.
    pub base_url: String,
    /// API key; empty for echo.
    pub api_key: String,
    /// Bound on the wait for response headers and for each piece of the body.
    pub timeout: Duration,
    /// Retry policy.
    pub retry: RetryPolicy,
    /// Budget for one request, across its attempts and the waits between them, until the
    /// answer begins (`model.max_wait_s`).
    pub max_wait: Duration,
}

/// The model a provider uses when the config names none: `echo`, `claude-sonnet-4-5`,
/// `gpt-4.1`.
pub fn default_model(kind: ProviderKind) -> &'static str {
    match kind {
        ProviderKind::Echo => "echo",
        ProviderKind::Anthropic => anthropic::DEFAULT_MODEL,
        ProviderKind::Openai => openai::DEFAULT_MODEL,
    }
}

impl ProviderSettings {
    /// The provider these settings describe.
    pub fn build(&self) -> Result<Box<dyn Provider>, LlmError> {
        Ok(match self.kind {
            ProviderKind::Echo => Box::new(EchoProvider::new()),
            ProviderKind::Anthropic => Box::new(anthropic::AnthropicProvider::new(self)?),
            ProviderKind::Openai => Box::new(openai::OpenAiProvider::new(self)?),
        })
    }
}
