//! Loading and layering: built-in defaults < user < project < managed.
//!
//! Each file is first checked on its own (so an error names its file, line and key), then the
//! layers are merged as TOML tables: later layers override, `fileref.deny` only ever grows,
//! `[[plugins]]` accumulate, and keys the managed layer locks keep the managed (or default)
//! value. Policy from a non-managed layer can only tighten.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::{Table, Value};

use super::error::ConfigError;
use super::schema::{Config, FileRefConfig, ModelConfig, PluginSpec, PolicyConfig, WorkerConfig};

mod origin;
mod validate;

pub use origin::{Origin, Origins, load_with_origins};

/// A configuration file's shape.
#[derive(Debug, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct FileConfig {
    model: ModelConfig,
    fileref: FileRefConfig,
    worker: WorkerConfig,
    plugins: Vec<PluginSpec>,
    policy: PolicyConfig,
}

/// Which layer a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// `~/.config/warden/config.toml`.
    User,
    /// `<workspace>/.warden/config.toml`.
    Project,
    /// `/etc/warden/managed.toml` or `$WARDEN_MANAGED_CONFIG`.
    Managed,
}

impl LayerKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Managed => "managed",
        }
    }
}

/// Where the layers are read from.
#[derive(Debug, Clone)]
pub struct Sources {
    /// Files in precedence order, lowest first; missing files are skipped.
    pub layers: Vec<(LayerKind, PathBuf)>,
}

impl Sources {
    /// The standard locations for a workspace, honouring `$XDG_CONFIG_HOME`, `$HOME` and
    /// `$WARDEN_MANAGED_CONFIG`.
    pub fn standard(workspace: &Path, env: &dyn Fn(&str) -> Option<String>) -> Self {
        let mut layers = Vec::new();
        let config_home = env("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")));
        if let Some(dir) = config_home {
            layers.push((LayerKind::User, dir.join("warden").join("config.toml")));
        }
        layers.push((
            LayerKind::Project,
            workspace.join(".warden").join("config.toml"),
        ));
        let managed = env("WARDEN_MANAGED_CONFIG")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("/etc/warden/managed.toml"));
        layers.push((LayerKind::Managed, managed));
        Self { layers }
    }
}

/// The merged configuration and what the person should be told about it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configuration.
    pub config: Config,
    /// Settings that were ignored (locked keys, policy loosening), for alerts.
    pub warnings: Vec<String>,
    /// Files that were read, in order.
    pub files: Vec<PathBuf>,
}

/// Read and merge the layers in `sources`.
pub fn load(sources: &Sources) -> Result<Loaded, ConfigError> {
    let mut parsed: Vec<(LayerKind, PathBuf, Table)> = Vec::new();
    for (kind, path) in &sources.layers {
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(source) => {
                return Err(ConfigError::Read {
                    path: path.clone(),
                    source,
                });
            }
        };
        let table = parse_layer(path, &text)?;
        parsed.push((*kind, path.clone(), table));
    }
    merge_layers(parsed)
}

/// Parse and check one file: syntax, unknown keys and types, with file, line and key.
fn parse_layer(path: &Path, text: &str) -> Result<Table, ConfigError> {
    if let Err(err) = toml::from_str::<FileConfig>(text) {
        return Err(validate::with_hint(ConfigError::parse(path, text, &err)));
    }
    validate::check_values(path, text)?;
    let mut table: Table =
        toml::from_str(text).map_err(|err| ConfigError::parse(path, text, &err))?;
    absolutize_paths(&mut table, path.parent().unwrap_or(Path::new(".")));
    Ok(table)
}

/// Relative component paths are relative to the file that names them.
fn absolutize_paths(table: &mut Table, base: &Path) {
    let fix = |v: &mut Value| {
        if let Value::String(s) = v {
            let p = Path::new(s.as_str());
            if p.is_relative() {
                *s = base.join(p).to_string_lossy().into_owned();
            }
        }
    };
    if let Some(Value::Array(plugins)) = table.get_mut("plugins") {
        for plugin in plugins {
            if let Some(path) = plugin.get_mut("path") {
                fix(path);
            }
        }
    }
    if let Some(Value::Table(fileref)) = table.get_mut("fileref")
        && let Some(path) = fileref.get_mut("resolver")
    {
        fix(path);
    }
}

fn merge_layers(layers: Vec<(LayerKind, PathBuf, Table)>) -> Result<Loaded, ConfigError> {
    let mut warnings = Vec::new();
    let mut files = Vec::new();
    let managed: Option<Table> = layers
        .iter()
        .find(|(kind, _, _)| *kind == LayerKind::Managed)
        .map(|(_, _, t)| t.clone());
    let managed_policy: PolicyConfig = managed
        .as_ref()
        .and_then(|t| t.get("policy").cloned())
        .and_then(|v| v.try_into().ok())
        .unwrap_or_default();

    let mut merged = Table::new();
    let mut deny: Vec<String> = FileRefConfig::default().deny;
    let mut plugins: Vec<(LayerKind, Value)> = Vec::new();
    let mut policy = PolicyConfig::default();
    let layer_files: Vec<(LayerKind, PathBuf)> =
        layers.iter().map(|(k, p, _)| (*k, p.clone())).collect();
    let file_of = |kind: LayerKind| {
        layer_files
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or_else(|| PathBuf::from(kind.as_str()), |(_, p)| p.clone())
    };

    for (kind, path, mut table) in layers {
        files.push(path.clone());
        if let Some(Value::Array(list)) = table.remove("plugins") {
            plugins.extend(list.into_iter().map(|v| (kind, v)));
        }
        if let Some(Value::Table(fr)) = table.get_mut("fileref")
            && let Some(Value::Array(globs)) = fr.remove("deny")
        {
            for glob in globs
                .into_iter()
                .filter_map(|g| g.as_str().map(str::to_owned))
            {
                if !deny.contains(&glob) {
                    deny.push(glob);
                }
            }
        }
        if let Some(value) = table.remove("policy") {
            let layer_policy: PolicyConfig =
                value
                    .try_into()
                    .map_err(|err: toml::de::Error| ConfigError::Invalid {
                        path: path.clone(),
                        key: "policy".into(),
                        message: err.message().to_owned(),
                    })?;
            if kind == LayerKind::Managed {
                policy = layer_policy;
            } else {
                // Only tightening is honoured from a non-managed layer.
                policy.require_sha256 |= layer_policy.require_sha256;
                policy.managed_plugins_only |= layer_policy.managed_plugins_only;
                if !layer_policy.locked.is_empty() {
                    warnings.push(format!(
                        "{}: `policy.locked` is only honoured in the managed layer",
                        path.display()
                    ));
                }
            }
        }
        if kind != LayerKind::Managed {
            for key in &managed_policy.locked {
                if remove_dotted(&mut table, key) {
                    warnings.push(format!(
                        "{}: `{key}` is locked by managed policy; the setting was ignored",
                        path.display()
                    ));
                }
            }
        }
        deep_merge(&mut merged, table);
    }
    if managed.is_some() {
        policy.require_sha256 |= managed_policy.require_sha256;
        policy.managed_plugins_only |= managed_policy.managed_plugins_only;
        policy.locked = managed_policy.locked.clone();
    }

    let file: FileConfig = Value::Table(merged)
        .try_into()
        .map_err(|err: toml::de::Error| ConfigError::Invalid {
            path: PathBuf::from("(merged configuration)"),
            key: String::new(),
            message: err.message().to_owned(),
        })?;

    let mut entries = Vec::new();
    for (kind, value) in plugins {
        let spec: PluginSpec =
            value
                .try_into()
                .map_err(|err: toml::de::Error| ConfigError::Invalid {
                    path: file_of(kind),
                    key: "plugins".into(),
                    message: err.message().to_owned(),
                })?;
        if policy.managed_plugins_only && kind != LayerKind::Managed {
            warnings.push(format!(
                "plugin `{}` from the {} layer was not loaded: managed policy allows managed plugins only",
                spec.name,
                kind.as_str()
            ));
            continue;
        }
        let mut entry = spec.resolve(kind.as_str());
        entry.declared_in = Some(file_of(kind));
        entries.push(entry);
    }
    check_plugins(&entries, &policy, &layer_files)?;
    super::clamp_plugins(&mut entries, &policy, &mut warnings);

    let mut fileref = file.fileref;
    fileref.deny = deny;
    super::clamp_resolver(&mut fileref, &policy, &mut warnings);
    if policy.require_sha256 && fileref.resolver.is_some() && fileref.resolver_sha256.is_none() {
        return Err(ConfigError::Invalid {
            path: PathBuf::from("fileref.resolver"),
            key: "fileref.resolver_sha256".into(),
            message: "managed policy requires a sha256 pin for a custom resolver".into(),
        });
    }
    Ok(Loaded {
        config: Config {
            model: file.model,
            fileref,
            worker: file.worker,
            plugins: entries,
            policy,
        },
        warnings,
        files,
    })
}

fn check_plugins(
    entries: &[super::PluginEntry],
    policy: &PolicyConfig,
    layer_files: &[(LayerKind, PathBuf)],
) -> Result<(), ConfigError> {
    let mut seen = std::collections::BTreeSet::new();
    for entry in entries {
        // Errors name the file that declared the entry, never the component file.
        let invalid = |message: String| ConfigError::Invalid {
            path: validate::declaring_file(entry, layer_files),
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

/// Remove `a.b.c` from `table`; true if it was there.
fn remove_dotted(table: &mut Table, key: &str) -> bool {
    let mut parts: Vec<&str> = key.split('.').collect();
    let Some(last) = parts.pop() else {
        return false;
    };
    let mut current = table;
    for part in parts {
        match current.get_mut(part) {
            Some(Value::Table(t)) => current = t,
            _ => return false,
        }
    }
    current.remove(last).is_some()
}

fn deep_merge(into: &mut Table, from: Table) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Table(existing)), Value::Table(new)) => deep_merge(existing, new),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests;
