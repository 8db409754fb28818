//! Values that parse but cannot work (`worker.max_steps = 0`, `fileref.max_bytes = 0`),
//! refused when the file is loaded, naming file, line and key.

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::config::ConfigError;

#[derive(Deserialize, Default)]
#[serde(default)]
struct Probe {
    worker: WorkerProbe,
    fileref: FileRefProbe,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WorkerProbe {
    max_steps: Option<Spanned<u64>>,
    max_prompt_bytes: Option<Spanned<u64>>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct FileRefProbe {
    max_bytes: Option<Spanned<u64>>,
}

/// Check the values of one file (already known to parse) that must be at least 1.
pub(super) fn check_values(path: &Path, text: &str) -> Result<(), ConfigError> {
    // The file parsed as a whole already; a value of an unexpected type was reported then.
    let Ok(probe) = toml::from_str::<Probe>(text) else {
        return Ok(());
    };
    let positive = [
        (
            "worker.max_steps",
            probe.worker.max_steps,
            "a turn needs at least one model request",
        ),
        (
            "worker.max_prompt_bytes",
            probe.worker.max_prompt_bytes,
            "no prompt would be accepted",
        ),
        (
            "fileref.max_bytes",
            probe.fileref.max_bytes,
            "no file content would be included",
        ),
    ];
    for (key, value, why) in positive {
        if let Some(value) = value
            && *value.get_ref() == 0
        {
            let before = &text[..value.span().start.min(text.len())];
            return Err(ConfigError::Parse {
                path: path.to_owned(),
                line: before.matches('\n').count() + 1,
                column: before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1,
                key: Some(key.to_owned()),
                message: format!("must be at least 1 ({why})"),
            });
        }
    }
    Ok(())
}

/// `err` with a pointer to the right setting where a common mistake is recognised.
pub(super) fn with_hint(err: ConfigError) -> ConfigError {
    match err {
        ConfigError::Parse {
            path,
            line,
            column,
            key,
            message,
        } if message.contains("unknown variant `resolver`") => ConfigError::Parse {
            path,
            line,
            column,
            key,
            message: format!(
                "{message}; a resolver is not a `[[plugins]]` entry: set `fileref.resolver` \
                 (and `fileref.resolver_sha256`) instead"
            ),
        },
        other => other,
    }
}

/// The config file that declared `entry` (its layer's file).
pub(super) fn declaring_file(
    entry: &crate::config::PluginEntry,
    layer_files: &[(super::LayerKind, std::path::PathBuf)],
) -> std::path::PathBuf {
    layer_files
        .iter()
        .find(|(kind, _)| kind.as_str() == entry.origin)
        .map_or_else(
            || std::path::PathBuf::from(&entry.origin),
            |(_, p)| p.clone(),
        )
}

/// Names well formed and unique, pins present where policy requires them and well formed.
pub(super) fn check_plugins(
    entries: &[crate::config::PluginEntry],
    policy: &crate::config::PolicyConfig,
    layer_files: &[(super::LayerKind, std::path::PathBuf)],
) -> Result<(), ConfigError> {
    let mut seen = std::collections::BTreeSet::new();
    for entry in entries {
        // Errors name the file that declared the entry, never the component file.
        let invalid = |message: String| ConfigError::Invalid {
            path: declaring_file(entry, layer_files),
            key: format!("plugins.{}", entry.name),
            message,
        };
        let name_ok = !entry.name.is_empty()
            && entry.name.len() <= 64
            && entry
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
        if !name_ok {
            return Err(invalid(format!(
                "plugin name {:?} must be 1-64 characters of [A-Za-z0-9._-]",
                entry.name
            )));
        }
        if !seen.insert(entry.name.clone()) {
            return Err(invalid(format!(
                "plugin name `{}` is used twice",
                entry.name
            )));
        }
        if entry.mode == crate::config::PluginMode::Shadow
            && entry.kind != crate::config::PluginKind::Interceptor
        {
            return Err(invalid(
                "`mode = \"shadow\"` applies to interceptors only (a hook or tool plugin's calls cannot be shadowed)".into(),
            ));
        }
        if let Some(matcher) = &entry.matcher {
            if entry.kind != crate::config::PluginKind::Interceptor {
                return Err(invalid(
                    "`matcher` applies to interceptors only (it chooses the tool calls one is asked about)".into(),
                ));
            }
            crate::domain::tool_matcher::ToolMatcher::parse(matcher)
                .map_err(|why| invalid(format!("`matcher` {matcher:?} {why}")))?;
        }
        if policy.require_sha256 && entry.sha256.is_none() {
            return Err(invalid("managed policy requires a `sha256` pin".into()));
        }
        if let Some(pin) = &entry.sha256
            && !(pin.len() == 64 && pin.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(invalid(format!(
                "`sha256` must be 64 hex digits, got {pin:?}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_limits_are_refused_with_their_line() {
        let path = Path::new("/p/config.toml");
        let err =
            check_values(path, "[model]\nname = \"x\"\n[worker]\nmax_steps = 0\n").unwrap_err();
        let text = err.to_string();
        assert!(text.starts_with("/p/config.toml:4:"), "{text}");
        assert!(text.contains("worker.max_steps"), "{text}");
        let err = check_values(path, "fileref = { max_bytes = 0 }\n").unwrap_err();
        assert!(err.to_string().contains("fileref.max_bytes"), "{err}");
        assert!(check_values(path, "[worker]\nmax_steps = 1\n").is_ok());
    }
}
