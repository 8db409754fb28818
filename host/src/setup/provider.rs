//! Configuration and environment → [`ProviderSettings`] → a boxed [`Provider`].
//!
//! Environment, per the providers' own conventions: `ANTHROPIC_API_KEY`, `ANTHROPIC_BASE_URL`
//! (without `/v1`; requests go to `{base}/v1/messages`), `OPENAI_API_KEY`, `OPENAI_BASE_URL`
//! (with `/v1`; requests go to `{base}/chat/completions`). An unset or empty key is
//! [`LlmError::MissingKey`] naming the variable.

use std::time::Duration;

use crate::config::ModelConfig;
use crate::domain::ProviderKind;
use crate::llm::{
    LlmError, Provider, ProviderSettings, RetryPolicy, anthropic, default_model, openai,
};

/// Settings for the provider `cfg` names, with environment lookups through `env`.
pub fn settings(
    cfg: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ProviderSettings, LlmError> {
    let (key_var, url_var, default_url, provider) = match cfg.provider {
        ProviderKind::Echo => ("", "", "", "echo"),
        ProviderKind::Anthropic => (
            "ANTHROPIC_API_KEY",
            "ANTHROPIC_BASE_URL",
            anthropic::DEFAULT_BASE_URL,
            "anthropic",
        ),
        ProviderKind::Openai => (
            "OPENAI_API_KEY",
            "OPENAI_BASE_URL",
            openai::DEFAULT_BASE_URL,
            "openai",
        ),
    };
    let non_empty = |var: &str| env(var).filter(|v| !v.trim().is_empty());
    let (api_key, base_url) = if cfg.provider == ProviderKind::Echo {
        (String::new(), String::new())
    } else {
        let key = non_empty(key_var).ok_or(LlmError::MissingKey {
            provider,
            var: key_var,
        })?;
        let url = non_empty(url_var).unwrap_or_else(|| default_url.to_owned());
        let url = url.trim().trim_end_matches('/').to_owned();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(LlmError::InvalidConfig {
                reason: format!("{url_var} must start with http:// or https://, got {url:?}"),
            });
        }
        (key.trim().to_owned(), url)
    };
    let model = cfg
        .name
        .clone()
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| default_model(cfg.provider).to_owned());
    Ok(ProviderSettings {
        kind: cfg.provider,
        model,
        base_url,
        api_key,
        timeout: Duration::from_secs(cfg.timeout_s.max(1)),
        retry: RetryPolicy {
            max_retries: cfg.max_retries,
            base: Duration::from_millis(cfg.retry_base_ms),
            max: Duration::from_millis(cfg.retry_max_ms.max(cfg.retry_base_ms)),
        },
        max_wait: Duration::from_secs(cfg.max_wait_s.max(1)),
    })
}

/// The provider `cfg` names, with keys and base URLs looked up through `env`
/// (`&|k| std::env::var(k).ok()` in the binary).
pub fn from_config(
    cfg: &ModelConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Box<dyn Provider>, LlmError> {
    settings(cfg, env)?.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(provider: ProviderKind) -> ModelConfig {
        ModelConfig {
            provider,
            ..ModelConfig::default()
        }
    }

    #[test]
    fn missing_or_empty_key_names_the_variable() {
        for env_value in [None, Some(String::new())] {
            let env = |_: &str| env_value.clone();
            let err = settings(&cfg(ProviderKind::Openai), &env)
                .err()
                .map(|e| e.to_string());
            assert_eq!(
                err.as_deref(),
                Some(
                    "OPENAI_API_KEY is not set: export OPENAI_API_KEY=<your key> to use the openai provider"
                )
            );
        }
    }

    #[test]
    fn defaults_and_base_urls() {
        let env = |k: &str| match k {
            "ANTHROPIC_API_KEY" => Some("sk-a".to_owned()),
            "ANTHROPIC_BASE_URL" => Some("http://127.0.0.1:9/".to_owned()),
            _ => None,
        };
        let s = settings(&cfg(ProviderKind::Anthropic), &env).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(s.model, "claude-sonnet-4-5");
        assert_eq!(s.base_url, "http://127.0.0.1:9");
        assert_eq!(s.api_key, "sk-a");
        assert_eq!(s.retry.base, Duration::from_millis(500));

        let echo = settings(&cfg(ProviderKind::Echo), &|_| None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(echo.model, "echo");
    }

    #[test]
    fn bad_base_url_is_a_config_error() {
        let env = |k: &str| match k {
            "OPENAI_API_KEY" => Some("k".to_owned()),
            "OPENAI_BASE_URL" => Some("localhost:8080/v1".to_owned()),
            _ => None,
        };
        let err = settings(&cfg(ProviderKind::Openai), &env).err();
        assert!(
            err.is_some_and(|e| e.is_config_error() && e.to_string().contains("OPENAI_BASE_URL"))
        );
    }
}
