//! Ceilings on plugin limits: no layer can disable a deadline or a memory cap. A value above
//! the ceiling (the built-in one, or a lower one set by managed policy) is clamped, with one
//! warning per clamped value.

use super::schema::{FileRefConfig, PluginEntry, PolicyConfig, plugin_defaults};

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

/// Clamps every entry's `timeout_ms` and `memory_mb` to the ceilings of `policy`, and a zero
/// deadline to 1 ms; pushes one warning per clamped value.
pub fn clamp_plugins(
    entries: &mut [PluginEntry],
    policy: &PolicyConfig,
    warnings: &mut Vec<String>,
) {
    let max_ms = timeout_ceiling_ms(policy);
    let max_mb = memory_ceiling_mb(policy);
    let source = |builtin: u64, max: u64| {
        if max < builtin {
            "managed policy's ceiling"
        } else {
            "the ceiling"
        }
    };
    for entry in entries {
        if entry.timeout_ms > max_ms {
            warnings.push(format!(
                "plugin `{}`: timeout_ms = {} clamped to {max_ms} ({})",
                entry.name,
                entry.timeout_ms,
                source(plugin_defaults::MAX_TIMEOUT_MS, max_ms)
            ));
            entry.timeout_ms = max_ms;
        } else if entry.timeout_ms == 0 {
            entry.timeout_ms = 1;
        }
        if entry.memory_mb > max_mb {
            warnings.push(format!(
                "plugin `{}`: memory_mb = {} clamped to {max_mb} ({})",
                entry.name,
                entry.memory_mb,
                source(plugin_defaults::MAX_MEMORY_MB, max_mb)
            ));
            entry.memory_mb = max_mb;
        }
    }
}

/// Clamps `fileref.resolver_timeout_ms` as [`clamp_plugins`] does a plugin's deadline.
pub fn clamp_resolver(
    fileref: &mut FileRefConfig,
    policy: &PolicyConfig,
    warnings: &mut Vec<String>,
) {
    let max_ms = timeout_ceiling_ms(policy);
    if fileref.resolver_timeout_ms > max_ms {
        let source = if max_ms < plugin_defaults::MAX_TIMEOUT_MS {
            "managed policy's ceiling"
        } else {
            "the ceiling"
        };
        warnings.push(format!(
            "fileref.resolver_timeout_ms = {} clamped to {max_ms} ({source})",
            fileref.resolver_timeout_ms
        ));
        fileref.resolver_timeout_ms = max_ms;
    } else if fileref.resolver_timeout_ms == 0 {
        fileref.resolver_timeout_ms = 1;
    }
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
            ..PolicyConfig::default()
        };
        let mut entries = vec![entry(1000, 64)];
        let mut warnings = Vec::new();
        clamp_plugins(&mut entries, &lower, &mut warnings);
        assert_eq!((entries[0].timeout_ms, entries[0].memory_mb), (200, 32));
        assert!(warnings[0].contains("managed policy"), "{warnings:?}");

        let higher = PolicyConfig {
            max_plugin_timeout_ms: Some(u64::MAX),
            ..PolicyConfig::default()
        };
        assert_eq!(timeout_ceiling_ms(&higher), plugin_defaults::MAX_TIMEOUT_MS);
    }
}
