//! The optional keys no layer set, each with what applies instead: what `warden config show`
//! lists beside the keys that have a value, so that every key can be looked up.

use serde_json::{Value, json};

use super::ceilings::{memory_ceiling_mb, output_ceiling_bytes, timeout_ceiling_ms};
use super::escalation_policy::AllowEscalation;
use super::schema::Config;
use super::shell::MAX_SHELL_TIMEOUT_S;

/// An optional key no layer set.
#[derive(Debug, Clone, PartialEq)]
pub struct UnsetKey {
    /// The dotted key, e.g. `policy.max_plugin_timeout_ms`.
    pub key: &'static str,
    /// The value that applies (`null` where nothing takes its place).
    pub value: Value,
    /// What applies, in words.
    pub meaning: &'static str,
}

/// Every optional key of `config` that is unset, in key order.
pub fn unset_keys(config: &Config) -> Vec<UnsetKey> {
    let policy = &config.policy;
    let candidates: [(&'static str, bool, Value, &'static str); 17] = [
        (
            "model.context_window",
            config.model.context_window.is_none(),
            Value::Null,
            "the built-in table's window for the model, when it knows the model",
        ),
        (
            "model.price",
            config.model.price.is_none(),
            Value::Null,
            "the built-in table's prices for the model, when it knows the model",
        ),
        (
            "policy.allow_escalation",
            policy.allow_escalation.is_none(),
            json!(AllowEscalation::DEFAULT),
            "a shell call may ask for these kinds of escalation",
        ),
        (
            "policy.allowed_mcp",
            policy.allowed_mcp.is_none(),
            Value::Null,
            "a user or project [[mcp]] entry may name any command or URL",
        ),
        (
            "policy.allowed_sources",
            policy.allowed_sources.is_none(),
            Value::Null,
            "plugins may come from any file or registry",
        ),
        (
            "policy.max_mode",
            policy.max_mode.is_none(),
            json!("full-auto"),
            "no cap: any mode may be asked for",
        ),
        (
            "policy.max_plugin_memory_mb",
            policy.max_plugin_memory_mb.is_none(),
            json!(memory_ceiling_mb(policy)),
            "the built-in ceiling",
        ),
        (
            "policy.max_plugin_output_bytes",
            policy.max_plugin_output_bytes.is_none(),
            json!(output_ceiling_bytes(policy)),
            "the built-in ceiling",
        ),
        (
            "policy.max_plugin_timeout_ms",
            policy.max_plugin_timeout_ms.is_none(),
            json!(timeout_ceiling_ms(policy)),
            "the built-in ceiling",
        ),
        (
            "policy.max_shell_timeout_s",
            policy.max_shell_timeout_s.is_none(),
            json!(MAX_SHELL_TIMEOUT_S),
            "the built-in ceiling",
        ),
        (
            "policy.max_tool_grants",
            policy.max_tool_grants.is_none(),
            Value::Null,
            "no ceiling on a user or project tool plugin's grants",
        ),
        (
            "policy.project_tool_grants",
            policy.project_tool_grants.is_none(),
            Value::Null,
            "a project's tool plugins and MCP servers get no secret-looking variable and no host",
        ),
        (
            "policy.shell_allowed_hosts",
            policy.shell_allowed_hosts.is_none(),
            Value::Null,
            "any layer's tools.shell.allowed_hosts applies",
        ),
        (
            "policy.trusted_keys",
            policy.trusted_keys.is_empty(),
            json!([]),
            "no key: signatures are not checked unless require_signed",
        ),
        (
            "policy.trusted_paths",
            policy.trusted_paths.is_empty(),
            json!([]),
            "no workspace is trusted without `warden trust`",
        ),
        (
            "policy.unix_sockets",
            policy.unix_sockets.is_none(),
            Value::Null,
            "a user layer may grant any socket path",
        ),
        (
            "worker.compact_at_tokens",
            config.worker.compact_at_tokens.is_none(),
            Value::Null,
            "no automatic compaction: `warden compact` compacts",
        ),
    ];
    candidates
        .into_iter()
        .filter(|(_, unset, _, _)| *unset)
        .map(|(key, _, value, meaning)| UnsetKey {
            key,
            value,
            meaning,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_default_configuration_lists_the_ceilings_with_their_built_in_values() {
        let keys = unset_keys(&Config::default());
        let of = |key: &str| keys.iter().find(|k| k.key == key).map(|k| k.value.clone());
        assert_eq!(of("policy.max_plugin_timeout_ms"), Some(json!(60_000)));
        assert_eq!(of("policy.max_shell_timeout_s"), Some(json!(600)));
        assert_eq!(
            of("policy.allow_escalation"),
            Some(json!(["network", "git"]))
        );
        let mut sorted: Vec<&str> = keys.iter().map(|k| k.key).collect();
        sorted.sort_unstable();
        assert_eq!(sorted, keys.iter().map(|k| k.key).collect::<Vec<_>>());
    }

    #[test]
    fn a_key_set_is_not_listed() {
        let mut config = Config::default();
        config.policy.max_plugin_timeout_ms = Some(2000);
        let keys = unset_keys(&config);
        assert!(!keys.iter().any(|k| k.key == "policy.max_plugin_timeout_ms"));
    }
}
