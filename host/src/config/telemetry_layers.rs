//! How the layers' `[telemetry]` tables combine. Export is a grant, not a setting a project
//! chooses freely:
//!
//! - the endpoint and its encoding come from the highest layer that sets an endpoint (managed
//!   over project over user);
//! - the headers come from that same layer only: a header one layer defines is never sent to
//!   an endpoint another layer chose (the user's `authorization` token does not follow a
//!   project's endpoint, nor a project's header a managed one);
//! - a project's header variables are held to `policy.project_tool_grants.env` (the user's or
//!   the operator's), as every variable a project grants is: one it does not list is refused,
//!   naming the key, never dropped silently;
//! - `include_prompts`, which sends content, may only be lowered by a project: a project's
//!   `true` is ignored with a warning unless a user or managed layer says `true` too;
//! - `enabled`: the highest layer that sets it.
//!
//! Managed policy locks one key (`telemetry.endpoint`) or the whole table (`telemetry`) with
//! `policy.locked`; a locked key never reaches this module from another layer.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::error::ConfigError;
use super::load::LayerKind;
use super::{ProjectToolGrants, TelemetryConfig};

/// Each layer's `[telemetry]` table, lowest precedence first.
#[derive(Debug, Default)]
pub(crate) struct TelemetryLayers {
    layers: Vec<(LayerKind, PathBuf, Table)>,
}

impl TelemetryLayers {
    /// Take the layer's `[telemetry]` out of `table` (already checked).
    pub(crate) fn take(&mut self, table: &mut Table, kind: LayerKind, path: &Path) {
        if let Some(Value::Table(telemetry)) = table.remove("telemetry") {
            self.layers.push((kind, path.to_owned(), telemetry));
        }
    }

    /// The telemetry in force; `grants`: `policy.project_tool_grants` as merged, `user_file`
    /// where the person would allow a variable.
    pub(crate) fn finish(
        self,
        grants: Option<&ProjectToolGrants>,
        user_file: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<TelemetryConfig, ConfigError> {
        let mut config = TelemetryConfig::default();
        let invalid = |path: &Path, key: &str, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            key: format!("telemetry.{key}"),
            message,
        };
        let chooser = self
            .layers
            .iter()
            .rposition(|(_, _, t)| t.contains_key("endpoint"));
        for (index, (kind, path, table)) in self.layers.iter().enumerate() {
            if let Some(enabled) = table.get("enabled").and_then(Value::as_bool) {
                config.enabled = enabled;
            }
            if let Some(prompts) = table.get("include_prompts").and_then(Value::as_bool) {
                if *kind == LayerKind::Project && prompts && !config.include_prompts {
                    warnings.push(format!(
                        "{}: `telemetry.include_prompts = true` from the project layer was not used: a project may only turn sending prompt text off",
                        path.display()
                    ));
                } else {
                    config.include_prompts = prompts;
                }
            }
            let endpoint_layer = Some(index) == chooser;
            if !endpoint_layer {
                if table.contains_key("headers_env") && chooser.is_some() {
                    warnings.push(format!(
                        "{}: `telemetry.headers_env` from the {} layer was not used: headers are sent only to an endpoint their own layer sets",
                        path.display(),
                        kind.as_str()
                    ));
                }
                continue;
            }
            let one: TelemetryConfig = Value::Table(table.clone())
                .try_into()
                .map_err(|err: toml::de::Error| invalid(path, "", err.message().to_owned()))?;
            config.endpoint = one.endpoint;
            config.protocol = one.protocol;
            config.headers_env = one.headers_env;
            if *kind == LayerKind::Project {
                let allowed = grants.map(|g| g.env.as_slice()).unwrap_or_default();
                if let Some((header, var)) = config
                    .headers_env
                    .iter()
                    .find(|(_, var)| !allowed.contains(var))
                {
                    return Err(invalid(
                        path,
                        &format!("headers_env.{header}"),
                        format!(
                            "the project layer sends {} as a telemetry header; a project may send a variable only if you allow it: add it to `policy.project_tool_grants.env` in your user config {} (refused; grants are never narrowed silently)",
                            super::project_grants::env_grant(var),
                            user_file.display()
                        ),
                    ));
                }
            }
        }
        Ok(config)
    }
}

#[cfg(test)]
#[path = "telemetry_layers_tests.rs"]
mod tests;
