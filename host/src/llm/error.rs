//! [`LlmError`]: every way a model request can fail, and which of them are worth retrying.

use std::time::Duration;

/// A failed model request.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum LlmError {
    /// The provider needs an API key and the variable holding it is unset or empty.
    #[error("{var} is not set: export {var}=<your key> to use the {provider} provider")]
    MissingKey {
        /// Provider name.
        provider: &'static str,
        /// The environment variable to set.
        var: &'static str,
    },

    /// The configuration or environment cannot produce a working provider.
    #[error("invalid model configuration: {reason}")]
    InvalidConfig {
        /// What is wrong.
        reason: String,
    },

    /// The provider answered with an HTTP error status.
    #[error("{provider}: HTTP {status}: {message}")]
    Status {
        /// Provider name.
        provider: &'static str,
        /// HTTP status code.
        status: u16,
        /// The provider's own error message (or the start of the body when it has none).
        message: String,
        /// How long the provider asked to wait before retrying.
        retry_after: Option<Duration>,
        /// The provider's `x-should-retry` header, when present.
        should_retry: Option<bool>,
    },

    /// The provider reported an error inside a successful response (an SSE `error` event).
    #[error("{provider}: {kind}: {message}")]
    Provider {
        /// Provider name.
        provider: &'static str,
        /// Error type (`overloaded_error`).
        kind: String,
        /// The provider's message.
        message: String,
    },

    /// The connection failed, was refused or reset, or the body could not be read.
    #[error("{provider}: connection failed: {detail}")]
    Connection {
        /// Provider name.
        provider: &'static str,
        /// The transport's description.
        detail: String,
    },

    /// The connection could not be made: refused, no such host, no route. Retried at most once.
    #[error("{provider}: cannot connect to {target}: {detail}")]
    Unreachable {
        /// Provider name.
        provider: &'static str,
        /// `host:port` of the base URL.
        target: String,
        /// The innermost cause (`Connection refused (os error 111)`, a DNS failure).
        detail: String,
    },

    /// The request's wait budget (`model.max_wait_s`) ran out before an answer began.
    #[error(
        "{provider}: no answer within the wait budget of {} s (`model.max_wait_s`), {attempts} attempt{}{}",
        budget.as_secs(),
        if *attempts == 1 { "" } else { "s" },
        last.as_ref().map(|e| format!("; last failure: {e}")).unwrap_or_default()
    )]
    WaitBudget {
        /// Provider name.
        provider: &'static str,
        /// The budget that was spent.
        budget: Duration,
        /// Requests sent.
        attempts: u32,
        /// The last failure, when an attempt failed before the budget ran out.
        last: Option<Box<LlmError>>,
    },

    /// No response, or no streamed data, within the configured timeout.
    #[error("{provider}: no response within {}s", after.as_secs_f64())]
    Timeout {
        /// Provider name.
        provider: &'static str,
        /// The timeout that elapsed.
        after: Duration,
    },

    /// The stream ended before its terminal event.
    #[error("{provider}: stream ended early: {detail}")]
    TruncatedStream {
        /// Provider name.
        provider: &'static str,
        /// What was missing.
        detail: String,
    },

    /// A streamed event could not be understood.
    #[error("{provider}: malformed stream: {detail}")]
    MalformedStream {
        /// Provider name.
        provider: &'static str,
        /// What was wrong, and where.
        detail: String,
    },

    /// A non-streamed response body could not be understood.
    #[error("{provider}: malformed response: {detail}")]
    MalformedResponse {
        /// Provider name.
        provider: &'static str,
        /// What was wrong.
        detail: String,
    },

    /// Retryable failures kept happening until the retry budget was spent.
    #[error("gave up after {attempts} attempts: {last}")]
    RetriesExhausted {
        /// Requests sent.
        attempts: u32,
        /// The last failure.
        last: Box<LlmError>,
    },

    /// The request was cancelled. Whatever text had arrived is kept here, never as a response.
    #[error("request cancelled")]
    Cancelled {
        /// Text received before the cancellation.
        partial_text: String,
    },
}

impl LlmError {
    /// Whether sending the same request again may succeed.
    ///
    /// Retryable: HTTP 408, 409, 429 and 5xx (unless the provider says `x-should-retry:
    /// false`), connection failures, timeouts, truncated or malformed streams and bodies (the
    /// whole request is sent again), and the provider's overload/rate-limit/server errors
    /// reported inside a stream, and an unreachable server (retried once at most by the
    /// transport). Not retryable: other 4xx (400, 401, 403, 404, 413, 422 …), configuration
    /// errors, cancellation, an exhausted retry budget and a spent wait budget.
    pub fn is_retryable(&self) -> bool {
        match self {
            Self::MissingKey { .. } | Self::InvalidConfig { .. } => false,
            Self::Status {
                status,
                should_retry,
                ..
            } => should_retry.unwrap_or(matches!(status, 408 | 409 | 429 | 500..=599)),
            Self::Provider { kind, .. } => matches!(
                kind.as_str(),
                "overloaded_error"
                    | "api_error"
                    | "rate_limit_error"
                    | "timeout_error"
                    | "server_error"
            ),
            Self::Connection { .. }
            | Self::Unreachable { .. }
            | Self::Timeout { .. }
            | Self::TruncatedStream { .. }
            | Self::MalformedStream { .. }
            | Self::MalformedResponse { .. } => true,
            Self::RetriesExhausted { .. } | Self::WaitBudget { .. } | Self::Cancelled { .. } => {
                false
            }
        }
    }

    /// True for a configuration problem the person must fix (the CLI exits with 2).
    pub fn is_config_error(&self) -> bool {
        matches!(self, Self::MissingKey { .. } | Self::InvalidConfig { .. })
    }

    /// What a retry notice says: the error, shortened for an unreachable server (its cause
    /// is said once, by the final error).
    pub fn brief(&self) -> String {
        match self {
            Self::Unreachable {
                provider, target, ..
            } => format!("{provider}: cannot connect to {target}"),
            other => other.to_string(),
        }
    }

    /// The provider's requested wait, if it gave one.
    pub fn retry_after(&self) -> Option<Duration> {
        match self {
            Self::Status { retry_after, .. } => *retry_after,
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn status(code: u16) -> LlmError {
        LlmError::Status {
            provider: "anthropic",
            status: code,
            message: "m".into(),
            retry_after: None,
            should_retry: None,
        }
    }

    #[test]
    fn retryable_statuses() {
        for code in [408, 409, 429, 500, 502, 503, 529] {
            assert!(status(code).is_retryable(), "{code}");
        }
        for code in [400, 401, 403, 404, 413, 422] {
            assert!(!status(code).is_retryable(), "{code}");
        }
    }

    #[test]
    fn should_retry_header_wins() {
        let e = LlmError::Status {
            provider: "openai",
            status: 500,
            message: "m".into(),
            retry_after: None,
            should_retry: Some(false),
        };
        assert!(!e.is_retryable());
    }

    #[test]
    fn missing_key_names_the_variable() {
        let e = LlmError::MissingKey {
            provider: "anthropic",
            var: "ANTHROPIC_API_KEY",
        };
        assert!(e.to_string().contains("export ANTHROPIC_API_KEY="));
        assert!(e.is_config_error());
        assert!(!e.is_retryable());
    }

    #[test]
    fn an_unreachable_server_is_said_briefly_in_a_retry_and_fully_once() {
        let e = LlmError::Unreachable {
            provider: "openai",
            target: "127.0.0.1:9".into(),
            detail: "Connection refused (os error 111)".into(),
        };
        assert!(e.is_retryable());
        assert_eq!(e.brief(), "openai: cannot connect to 127.0.0.1:9");
        assert_eq!(
            e.to_string(),
            "openai: cannot connect to 127.0.0.1:9: Connection refused (os error 111)"
        );
        assert_eq!(status(503).brief(), status(503).to_string());
    }

    #[test]
    fn a_spent_budget_names_the_key_and_is_final() {
        let e = LlmError::WaitBudget {
            provider: "openai",
            budget: Duration::from_secs(60),
            attempts: 2,
            last: Some(Box::new(LlmError::Timeout {
                provider: "openai",
                after: Duration::from_secs(30),
            })),
        };
        assert_eq!(
            e.to_string(),
            "openai: no answer within the wait budget of 60 s (`model.max_wait_s`), 2 attempts; last failure: openai: no response within 30s"
        );
        assert!(!e.is_retryable());
    }
}
