//! `[telemetry]`: OpenTelemetry export of the audit events, the turn's spans and counters.
//!
//! ```toml
//! [telemetry]
//! endpoint = "http://127.0.0.1:4318"   # OTLP/HTTP base; /v1/logs, /v1/traces, /v1/metrics
//! protocol = "http/protobuf"           # or "http/json"
//! headers_env = { authorization = "OTEL_TOKEN" }   # header = variable holding its value
//! include_prompts = false              # prompt text leaves only when true
//! enabled = true                       # false turns export off (unless managed policy locks it)
//! ```
//!
//! Header values are read from the environment only, never from a file. A project's
//! `[telemetry]` keys are held back until the workspace is trusted (a cloned repository must
//! not send the audit trail to a host it names): they are held settings. Managed policy sets
//! and locks `telemetry.endpoint`, and locks `telemetry.enabled` to forbid turning export off.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use super::error::ConfigError;

/// How the export is encoded.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum TelemetryProtocol {
    /// OTLP/HTTP with protobuf bodies.
    #[default]
    #[serde(rename = "http/protobuf")]
    HttpProtobuf,
    /// OTLP/HTTP with JSON bodies.
    #[serde(rename = "http/json")]
    HttpJson,
}

/// `[telemetry]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TelemetryConfig {
    /// Export when an endpoint is set (false turns it off).
    pub enabled: bool,
    /// The OTLP/HTTP base URL (`http://HOST:4318`); nothing is exported without one.
    pub endpoint: Option<String>,
    /// The encoding.
    pub protocol: TelemetryProtocol,
    /// Request headers: header name → the environment variable holding its value.
    pub headers_env: BTreeMap<String, String>,
    /// Send the prompt's text with the turn's span and record (never by default).
    pub include_prompts: bool,
}

impl Default for TelemetryConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            endpoint: None,
            protocol: TelemetryProtocol::default(),
            headers_env: BTreeMap::new(),
            include_prompts: false,
        }
    }
}

impl TelemetryConfig {
    /// The endpoint export goes to, when it is on.
    pub fn active_endpoint(&self) -> Option<&str> {
        self.endpoint.as_deref().filter(|_| self.enabled)
    }
}

/// Check `[telemetry]` in a layer's `table`: an `http://` or `https://` endpoint, variable
/// names. A project's keys are held back until the workspace is trusted, as the other
/// [`HELD_SETTINGS`](super::HELD_SETTINGS) are.
pub(crate) fn check(table: &Table, path: &Path) -> Result<(), ConfigError> {
    let Some(Value::Table(telemetry)) = table.get("telemetry") else {
        return Ok(());
    };
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: format!("telemetry.{key}"),
        message,
    };
    if let Some(endpoint) = telemetry.get("endpoint").and_then(Value::as_str)
        && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
    {
        return Err(invalid(
            "endpoint",
            format!("`{endpoint}` is not an http:// or https:// URL"),
        ));
    }
    if let Some(Value::Table(headers)) = telemetry.get("headers_env") {
        for (name, var) in headers {
            let Some(var) = var.as_str() else {
                return Err(invalid(
                    &format!("headers_env.{name}"),
                    "must name an environment variable".into(),
                ));
            };
            super::check_env_name(var)
                .map_err(|why| invalid(&format!("headers_env.{name}"), why))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    fn table(text: &str) -> Table {
        text.parse().unwrap()
    }

    #[test]
    fn a_bad_endpoint_or_header_variable_names_its_key() {
        let path = Path::new("u.toml");
        for (text, key) in [
            (
                "[telemetry]\nendpoint = \"collector:4318\"\n",
                "telemetry.endpoint",
            ),
            (
                "[telemetry]\nheaders_env = { authorization = \"NOT A NAME\" }\n",
                "telemetry.headers_env.authorization",
            ),
        ] {
            let err = check(&table(text), path).unwrap_err().to_string();
            assert!(err.contains(key), "{err}");
        }
    }

    #[test]
    fn export_is_on_only_with_an_endpoint_and_not_turned_off() {
        let mut config = TelemetryConfig::default();
        assert_eq!(config.active_endpoint(), None);
        config.endpoint = Some("http://127.0.0.1:4318".into());
        assert_eq!(config.active_endpoint(), Some("http://127.0.0.1:4318"));
        config.enabled = false;
        assert_eq!(config.active_endpoint(), None);
    }
}
