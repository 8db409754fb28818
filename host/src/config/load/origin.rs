//! Which layer each effective value came from, for `warden config show`.
//!
//! The layers are read again (after [`super::load`] accepted them) and walked key by key in
//! precedence order: the last layer that sets a key is its origin, except that a key locked by
//! managed policy is never taken from a user or project file. Keys no file sets come from the
//! built-in defaults.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;
use toml::{Table, Value};

use super::{ConfigError, LayerKind, Loaded, Sources, parse_layer};

/// Where one effective value came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Origin {
    /// `default`, `user`, `project` or `managed`.
    pub layer: &'static str,
    /// The file that set it (`None` for a default).
    pub file: Option<PathBuf>,
}

impl Origin {
    /// A built-in default.
    pub const DEFAULT: Origin = Origin {
        layer: "default",
        file: None,
    };
}

/// The origin of every key some layer sets (dotted keys, e.g. `model.provider`).
#[derive(Debug, Clone, Default)]
pub struct Origins {
    keys: BTreeMap<String, Origin>,
}

impl Origins {
    /// The origin of `key`: the layer that set it or one of its parent tables, else the
    /// defaults.
    pub fn of(&self, key: &str) -> Origin {
        let mut probe = key;
        loop {
            if let Some(origin) = self.keys.get(probe) {
                return origin.clone();
            }
            match probe.rsplit_once('.') {
                Some((parent, _)) => probe = parent,
                None => return Origin::DEFAULT,
            }
        }
    }
}

/// [`super::load`], plus the origin of every value.
/// Entries that policy refuses are listed in [`Loaded::refused`] rather than failing.
pub fn load_with_origins(sources: &Sources) -> Result<(Loaded, Origins), ConfigError> {
    let loaded = super::load_for_show(sources)?;
    let locked = &loaded.config.policy.locked;
    let is_locked = |key: &str| {
        locked
            .iter()
            .any(|l| key == l || key.starts_with(&format!("{l}.")))
    };
    let mut origins = Origins::default();
    for (kind, path) in &sources.layers {
        let Ok(text) = std::fs::read_to_string(path) else {
            continue;
        };
        let table = parse_layer(path, &text)?;
        let origin = Origin {
            layer: kind.as_str(),
            file: Some(path.clone()),
        };
        let mut leaves = Vec::new();
        walk(&table, "", &mut leaves);
        for (key, value) in leaves {
            if key == "plugins" {
                continue;
            }
            if *kind != LayerKind::Managed {
                if is_locked(&key) {
                    continue;
                }
                // Policy from another layer only counts where it tightens (a tool-grant ceiling
                // always does: ceilings are intersected).
                if key.starts_with("policy.")
                    && !key.starts_with("policy.max_tool_grants.")
                    && value != Value::Boolean(true)
                {
                    continue;
                }
            }
            origins.keys.insert(key, origin.clone());
        }
    }
    Ok((loaded, origins))
}

/// Every non-table value of `table` with its dotted key.
fn walk(table: &Table, prefix: &str, out: &mut Vec<(String, Value)>) {
    for (key, value) in table {
        let dotted = if prefix.is_empty() {
            key.clone()
        } else {
            format!("{prefix}.{key}")
        };
        match value {
            Value::Table(inner) if !dotted.ends_with("resolver_config") => {
                walk(inner, &dotted, out)
            }
            other => out.push((dotted, other.clone())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_layer_wins_unless_the_key_is_locked() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        let project = dir.path().join("project.toml");
        let managed = dir.path().join("managed.toml");
        std::fs::write(&user, "[model]\nmax_tokens = 10\ntimeout_s = 5\n").unwrap();
        std::fs::write(
            &project,
            "[model]\nmax_tokens = 20\nprovider = \"openai\"\n",
        )
        .unwrap();
        std::fs::write(&managed, "[policy]\nlocked = [\"model.provider\"]\n").unwrap();
        let sources = Sources {
            layers: vec![
                (LayerKind::User, user.clone()),
                (LayerKind::Project, project.clone()),
                (LayerKind::Managed, managed.clone()),
            ],
            managed_is_system: false,
            notes: Vec::new(),
        };
        let (loaded, origins) = load_with_origins(&sources).unwrap();
        assert_eq!(loaded.config.model.max_tokens, 20);
        assert_eq!(origins.of("model.max_tokens").file, Some(project));
        assert_eq!(origins.of("model.timeout_s").layer, "user");
        // Locked and not set by the managed file: the default stands.
        assert_eq!(origins.of("model.provider"), Origin::DEFAULT);
        assert_eq!(origins.of("policy.locked").file, Some(managed));
        assert_eq!(origins.of("worker.max_steps"), Origin::DEFAULT);
    }
}
