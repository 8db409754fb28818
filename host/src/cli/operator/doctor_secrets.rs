//! `warden doctor`: the secret values warden masks (by the variable each comes from, never the
//! value), and those too short to mask.

use super::doctor::Report;
use crate::config::Config;
use crate::domain::redact::{MIN_BYTES, Redactor};

/// Say which known secrets are masked and where each comes from.
pub(super) fn check_secrets(report: &mut Report, config: &Config) {
    let vars = std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)));
    let redactor = Redactor::new(crate::config::known_secrets(config, vars));
    if redactor.names().is_empty() {
        report.info("secrets: no known secret in the environment to mask");
    } else {
        report.ok(&format!(
            "secrets: masked in tool results, files read and MCP answers: {} (values from the environment)",
            redactor.names().join(", ")
        ));
    }
    if !redactor.too_short().is_empty() {
        report.info(&format!(
            "secrets: not masked, shorter than {MIN_BYTES} bytes: {}",
            redactor.too_short().join(", ")
        ));
    }
}
