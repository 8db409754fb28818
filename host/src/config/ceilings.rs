//! Ceilings on plugin limits: no layer can disable a deadline, a memory cap or an output cap. A value above
//! the ceiling (the built-in one, or a lower one set by managed policy) is clamped, with one
//! warning per clamped value.

use super::schema::{FileRefConfig, PluginEntry, PolicyConfig, plugin_defaults};

/// Where the ceiling a value was clamped to comes from, for its warning: policy's `key` and the
/// file that set it when it lowered the built-in one, else the built-in one.
pub(crate) fn ceiling_source(lowered: bool, key: &str, policy: &PolicyConfig) -> String {
    match (lowered, policy.ceilings_from.get(key)) {
        (false, _) => "the built-in ceiling".to_owned(),
        (true, Some(file)) => format!("the ceiling `policy.{key}` in {}", file.display()),
        (true, None) => format!("the ceiling `policy.{key}`"),
    }
}

/// The deadline ceiling for `policy`: the built-in one, or managed policy's if lower.
pub fn timeout_ceiling_ms(policy: &PolicyConfig) -> u64 {
    policy
        .max_plugin_timeout_ms
        .map_or(plugin_defaults::MAX_TIMEOUT_MS, |m| {
            m.clamp(1, plugin_defaults::MAX_TIMEOUT_MS)
        })
}

/// The memory ceiling for `policy`, in MiB: the built-in one, or managed policy's if lower.
pub fn memory_ceiling_mb(policy: &PolicyConfig) -> u64 {
    policy
        .max_plugin_memory_mb
        .map_or(plugin_defaults::MAX_MEMORY_MB, |m| {
            m.clamp(1, plugin_defaults::MAX_MEMORY_MB)
        })
}

/// The output ceiling for `policy`, in bytes: the built-in one, or policy's if lower.
pub fn output_ceiling_bytes(policy: &PolicyConfig) -> u64 {
    policy
        .max_plugin_output_bytes
        .map_or(plugin_defaults::MAX_OUTPUT_BYTES_CEILING, |m| {
            m.clamp(1, plugin_defaults::MAX_OUTPUT_BYTES_CEILING)
        })
}

/// Clamps every entry's `timeout_ms`, `memory_mb` and `max_output_bytes` to the ceilings of
/// `policy`, and a zero deadline to 1 ms. A value somebody set is said in one warning naming
/// the ceiling's key and file; a value at its built-in default (nobody chose it) is clamped
/// silently and returned, for `warden config show`.
pub fn clamp_plugins(
    entries: &mut [PluginEntry],
    policy: &PolicyConfig,
    warnings: &mut Vec<String>,
) -> Vec<ClampedDefault> {
    let mut clamped = Vec::new();
    let max_ms = timeout_ceiling_ms(policy);
    let max_mb = memory_ceiling_mb(policy);
    let max_bytes = output_ceiling_bytes(policy);
    for entry in entries {
        let default_timeout = match entry.kind {
            super::PluginKind::Interceptor => plugin_defaults::INTERCEPTOR_TIMEOUT_MS,
            super::PluginKind::Hook => plugin_defaults::HOOK_TIMEOUT_MS,
            super::PluginKind::Tool => plugin_defaults::TOOL_TIMEOUT_MS,
        };
        let name = entry.name.clone();
        // The value, its built-in default, (the ceiling in force, the built-in ceiling), the
        // field's name and the ceiling's key.
        let mut limit = |value: &mut u64,
                         default: u64,
                         (max, builtin): (u64, u64),
                         field: &str,
                         ceiling: &str| {
            if *value <= max {
                return;
            }
            let why = ceiling_source(max < builtin, ceiling, policy);
            if *value == default {
                clamped.push(ClampedDefault {
                    key: format!("plugins.{name}.{field}"),
                    by: why,
                });
            } else {
                warnings.push(format!(
                    "plugin `{name}`: {field} = {value} clamped to {max} ({why})"
                ));
            }
            *value = max;
        };
        limit(
            &mut entry.timeout_ms,
            default_timeout,
            (max_ms, plugin_defaults::MAX_TIMEOUT_MS),
            "timeout_ms",
            "max_plugin_timeout_ms",
        );
        limit(
            &mut entry.memory_mb,
            plugin_defaults::MEMORY_MB,
            (max_mb, plugin_defaults::MAX_MEMORY_MB),
            "memory_mb",
            "max_plugin_memory_mb",
        );
        limit(
            &mut entry.max_output_bytes,
            plugin_defaults::MAX_OUTPUT_BYTES,
            (max_bytes, plugin_defaults::MAX_OUTPUT_BYTES_CEILING),
            "max_output_bytes",
            "max_plugin_output_bytes",
        );
        if entry.timeout_ms == 0 {
            entry.timeout_ms = 1;
        }
    }
    clamped
}

/// Where a built-in default was lowered to a ceiling: the dotted key and the ceiling's source
/// (as [`ceiling_source`] words it), for `warden config show`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClampedDefault {
    /// The dotted key, e.g. `fileref.resolver_timeout_ms`.
    pub key: String,
    /// `the ceiling `policy.max_plugin_timeout_ms` in /etc/warden/managed.toml`.
    pub by: String,
}

/// Clamps `fileref.resolver_timeout_ms` as [`clamp_plugins`] does a plugin's deadline. A value
/// some file `set` is warned about; the built-in default is clamped silently (nobody chose it)
/// and returned as a [`ClampedDefault`].
pub fn clamp_resolver(
    fileref: &mut FileRefConfig,
    set: bool,
    policy: &PolicyConfig,
    warnings: &mut Vec<String>,
) -> Option<ClampedDefault> {
    let max_ms = timeout_ceiling_ms(policy);
    if fileref.resolver_timeout_ms > max_ms {
        let source = ceiling_source(
            max_ms < plugin_defaults::MAX_TIMEOUT_MS,
            "max_plugin_timeout_ms",
            policy,
        );
        let asked = std::mem::replace(&mut fileref.resolver_timeout_ms, max_ms);
        if !set {
            return Some(ClampedDefault {
                key: "fileref.resolver_timeout_ms".to_owned(),
                by: source,
            });
        }
        warnings.push(format!(
            "fileref.resolver_timeout_ms = {asked} clamped to {max_ms} ({source})"
        ));
    } else if fileref.resolver_timeout_ms == 0 {
        fileref.resolver_timeout_ms = 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{PluginKind, PluginSpec};

    fn entry(timeout_ms: u64, memory_mb: u64) -> PluginEntry {
        PluginSpec {
            name: "p".into(),
            kind: PluginKind::Interceptor,
            path: "p.wasm".into(),
            source: None,
            sha256: None,
            failure: None,
            timeout_ms: Some(timeout_ms),
            memory_mb: Some(memory_mb),
            max_items: None,
            max_output_bytes: None,
            config: Default::default(),
            fs: None,
            allowed_hosts: None,
            env: None,
            approve: None,
            mode: None,
            matcher: None,
        }
        .resolve("project")
    }

    #[test]
    fn values_above_the_ceiling_are_clamped_with_one_warning_each() {
        let mut entries = vec![entry(i64::MAX as u64, u64::MAX), entry(500, 64)];
        let mut warnings = Vec::new();
        clamp_plugins(&mut entries, &PolicyConfig::default(), &mut warnings);
        assert_eq!(entries[0].timeout_ms, plugin_defaults::MAX_TIMEOUT_MS);
        assert_eq!(entries[0].memory_mb, plugin_defaults::MAX_MEMORY_MB);
        assert_eq!((entries[1].timeout_ms, entries[1].memory_mb), (500, 64));
        assert_eq!(warnings.len(), 2, "{warnings:?}");
        assert!(warnings[0].contains("clamped to 60000"), "{warnings:?}");
    }

    #[test]
    fn managed_policy_can_lower_but_not_raise_the_ceiling() {
        let lower = PolicyConfig {
            max_plugin_timeout_ms: Some(200),
            max_plugin_memory_mb: Some(32),
            ceilings_from: [(
                "max_plugin_timeout_ms".to_owned(),
                "/etc/warden/managed.toml".into(),
            )]
            .into(),
            ..PolicyConfig::default()
        };
        let mut entries = vec![entry(1500, 100)];
        let mut warnings = Vec::new();
        let silent = clamp_plugins(&mut entries, &lower, &mut warnings);
        assert_eq!((entries[0].timeout_ms, entries[0].memory_mb), (200, 32));
        assert_eq!(
            warnings,
            [
                "plugin `p`: timeout_ms = 1500 clamped to 200 (the ceiling `policy.max_plugin_timeout_ms` in /etc/warden/managed.toml)",
                "plugin `p`: memory_mb = 100 clamped to 32 (the ceiling `policy.max_plugin_memory_mb`)",
            ]
        );
        assert!(silent.is_empty());

        // The built-in defaults (nobody chose them) are clamped without a warning, and said.
        let mut entries = vec![entry(
            plugin_defaults::INTERCEPTOR_TIMEOUT_MS,
            plugin_defaults::MEMORY_MB,
        )];
        let mut warnings = Vec::new();
        let silent = clamp_plugins(&mut entries, &lower, &mut warnings);
        assert_eq!((entries[0].timeout_ms, entries[0].memory_mb), (200, 32));
        assert!(warnings.is_empty(), "{warnings:?}");
        let keys: Vec<&str> = silent.iter().map(|c| c.key.as_str()).collect();
        assert_eq!(keys, ["plugins.p.timeout_ms", "plugins.p.memory_mb"]);

        let higher = PolicyConfig {
            max_plugin_timeout_ms: Some(u64::MAX),
            ..PolicyConfig::default()
        };
        assert_eq!(timeout_ceiling_ms(&higher), plugin_defaults::MAX_TIMEOUT_MS);
    }

    #[test]
    fn output_caps_have_a_ceiling_that_policy_may_lower() {
        let mut big = entry(500, 64);
        big.max_output_bytes = 10 << 20;
        let mut entries = vec![big.clone(), entry(500, 64)];
        let mut warnings = Vec::new();
        clamp_plugins(&mut entries, &PolicyConfig::default(), &mut warnings);
        assert_eq!(entries[0].max_output_bytes, 1 << 20);
        assert_eq!(
            entries[1].max_output_bytes,
            plugin_defaults::MAX_OUTPUT_BYTES
        );
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0]
                .contains("max_output_bytes = 10485760 clamped to 1048576 (the built-in ceiling)"),
            "{warnings:?}"
        );

        let lower = PolicyConfig {
            max_plugin_output_bytes: Some(1000),
            ..PolicyConfig::default()
        };
        let mut entries = vec![big];
        let mut warnings = Vec::new();
        clamp_plugins(&mut entries, &lower, &mut warnings);
        assert_eq!(entries[0].max_output_bytes, 1000);
        assert!(
            warnings[0].contains("(the ceiling `policy.max_plugin_output_bytes`)"),
            "{warnings:?}"
        );
        let higher = PolicyConfig {
            max_plugin_output_bytes: Some(u64::MAX),
            ..PolicyConfig::default()
        };
        assert_eq!(output_ceiling_bytes(&higher), 1 << 20);
    }
}
