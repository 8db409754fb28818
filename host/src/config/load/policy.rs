//! One layer's `[policy]` merged into the policy in force. Every layer can only tighten it;
//! some keys are honoured from one layer only, and set elsewhere they are ignored with a
//! warning: `locked`, `trusted_paths`, `allow_trust`, `max_mode`, `shell_allowed_hosts`,
//! `allow_unattended` and the signing keys (`trusted_keys`, `require_signed`,
//! `allowed_sources`) from the managed layer, `project_tool_grants` from the user and managed
//! layers.

use std::path::Path;

use toml::Value;

use super::LayerKind;
use crate::config::error::ConfigError;
use crate::config::schema::{MAX_COMPONENT_MB, PolicyConfig};

/// Merge `value` (the `[policy]` table of the `kind` layer read from `path`) into `policy`.
pub(super) fn merge(
    policy: &mut PolicyConfig,
    value: Value,
    kind: LayerKind,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let sets = |key: &str| value.get(key).is_some();
    let (sets_trusted_paths, sets_allow_trust, sets_project_grants, sets_max_mode) = (
        sets("trusted_paths"),
        sets("allow_trust"),
        sets("project_tool_grants"),
        sets("max_mode"),
    );
    let sets_shell_hosts = sets("shell_allowed_hosts");
    let sets_unattended = sets("allow_unattended");
    let sets_unix_sockets = sets("unix_sockets");
    let signing_keys = ["trusted_keys", "require_signed", "allowed_sources"].map(|k| (k, sets(k)));
    let layer: PolicyConfig =
        value
            .try_into()
            .map_err(|err: toml::de::Error| ConfigError::Invalid {
                path: path.to_owned(),
                key: "policy".into(),
                message: err.message().to_owned(),
            })?;
    if !(1..=MAX_COMPONENT_MB).contains(&layer.max_component_mb) {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            key: "policy.max_component_mb".into(),
            message: format!(
                "must be 1 to {MAX_COMPONENT_MB}, got {}",
                layer.max_component_mb
            ),
        });
    }
    policy.require_sha256 |= layer.require_sha256;
    policy.managed_plugins_only |= layer.managed_plugins_only;
    policy.max_component_mb = policy.max_component_mb.min(layer.max_component_mb);
    policy.managed_tools_only |= layer.managed_tools_only;
    policy.managed_rules_only |= layer.managed_rules_only;
    if let Some(ceiling) = &layer.max_tool_grants {
        ceiling.check(path)?;
        policy.max_tool_grants_from.push((
            path.to_owned(),
            kind == LayerKind::Managed,
            ceiling.clone(),
        ));
    }
    policy.max_tool_grants = crate::config::ToolGrantCeiling::tighten(
        policy.max_tool_grants.take(),
        layer.max_tool_grants,
    );
    // Lower ceilings on plugin limits only tighten, from whichever layer they come; the file
    // that set the lowest is kept for the warnings of clamped values.
    let mut lower = |key: &str, ceiling: &mut Option<u64>, set: Option<u64>| {
        if let Some(set) = set
            && ceiling.is_none_or(|now| set < now)
        {
            *ceiling = Some(set);
            policy.ceilings_from.insert(key.to_owned(), path.to_owned());
        }
    };
    lower(
        "max_plugin_timeout_ms",
        &mut policy.max_plugin_timeout_ms,
        layer.max_plugin_timeout_ms,
    );
    lower(
        "max_plugin_memory_mb",
        &mut policy.max_plugin_memory_mb,
        layer.max_plugin_memory_mb,
    );
    lower(
        "max_plugin_output_bytes",
        &mut policy.max_plugin_output_bytes,
        layer.max_plugin_output_bytes,
    );
    lower(
        "max_shell_timeout_s",
        &mut policy.max_shell_timeout_s,
        layer.max_shell_timeout_s,
    );
    policy.allow_unsandboxed_shell &= layer.allow_unsandboxed_shell;
    policy.managed_mcp_only |= layer.managed_mcp_only;
    policy.hooks_fail_closed |= layer.hooks_fail_closed;
    policy.allow_unsandboxed_mcp &= layer.allow_unsandboxed_mcp;
    // The user layer sets it, a project only narrows it, the managed layer's replaces both.
    if let Some(set) = layer.allow_escalation.clone() {
        policy.allow_escalation = Some(match (kind, &policy.allow_escalation) {
            (LayerKind::Project, Some(now)) => now.narrowed(&set),
            (LayerKind::Project, None) => {
                crate::config::AllowEscalation::Kinds(crate::config::escalation_kinds(None))
                    .narrowed(&set)
            }
            _ => set,
        });
    }
    let ignored = |key: &str, only: &str| {
        format!(
            "{}: `policy.{key}` is only honoured in the {only}; the setting was ignored",
            path.display()
        )
    };
    if kind == LayerKind::Managed {
        policy.locked = layer.locked;
        crate::config::TrustPaths::new(&layer.trusted_paths, path)?;
        policy.trusted_paths = layer.trusted_paths;
        policy.allow_trust = layer.allow_trust;
        policy.max_mode = layer.max_mode;
        policy.allow_unattended = layer.allow_unattended;
        if let Some(hosts) = &layer.shell_allowed_hosts {
            crate::config::parse_host_patterns(hosts).map_err(|why| ConfigError::Invalid {
                path: path.to_owned(),
                key: "policy.shell_allowed_hosts".into(),
                message: why,
            })?;
        }
        policy.shell_allowed_hosts = layer.shell_allowed_hosts;
        if let Some(paths) = &layer.unix_sockets {
            crate::config::check_socket_paths(paths).map_err(|why| ConfigError::Invalid {
                path: path.to_owned(),
                key: "policy.unix_sockets".into(),
                message: why,
            })?;
        }
        policy.unix_sockets = layer.unix_sockets;
        policy.allowed_mcp = layer.allowed_mcp;
        // Only the managed layer may refuse the others' hooks: a project setting it would turn
        // the user's own hooks into a configuration error.
        policy.managed_hooks_only = layer.managed_hooks_only;
        super::super::signing_policy::take(
            policy,
            (
                layer.trusted_keys,
                layer.require_signed,
                layer.allowed_sources,
            ),
            path,
        );
    } else {
        if !layer.locked.is_empty() {
            warnings.push(format!(
                "{}: `policy.locked` is only honoured in the managed layer",
                path.display()
            ));
        }
        if sets_trusted_paths {
            warnings.push(ignored("trusted_paths", "managed layer"));
        }
        if sets_allow_trust {
            warnings.push(ignored("allow_trust", "managed layer"));
        }
        if layer.allowed_mcp.is_some() {
            warnings.push(ignored("allowed_mcp", "managed layer"));
        }
        if layer.managed_hooks_only {
            warnings.push(ignored("managed_hooks_only", "managed layer"));
        }
        if sets_max_mode {
            warnings.push(ignored("max_mode", "managed layer"));
        }
        if sets_shell_hosts {
            warnings.push(ignored("shell_allowed_hosts", "managed layer"));
        }
        if sets_unattended {
            warnings.push(ignored("allow_unattended", "managed layer"));
        }
        if sets_unix_sockets {
            warnings.push(ignored("unix_sockets", "managed layer"));
        }
        for (key, set) in signing_keys {
            if set {
                warnings.push(ignored(key, "managed layer"));
            }
        }
    }
    if sets_project_grants {
        if kind == LayerKind::Project {
            warnings.push(ignored(
                "project_tool_grants",
                "user and managed layers (a project cannot widen its own grants)",
            ));
        } else if let Some(grants) = layer.project_tool_grants {
            grants.check(path)?;
            // The managed layer comes last: its table, when it sets one, replaces the user's.
            policy.project_tool_grants = Some(grants);
        }
    }
    Ok(())
}
