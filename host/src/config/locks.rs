//! Keys the managed layer may lock (`policy.locked`), and checking its list.
//!
//! A lock on a table (`model`, `fileref`) locks every key under it; `plugins` locks the whole
//! plugin list, `mcp` the whole list of MCP servers. A lock naming anything else is an error of the managed file, with its line, so
//! that a typo never leaves a key silently unlocked. `policy.*` keys are not lockable: only the
//! managed layer sets policy, and the other layers may only tighten it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::load::LayerKind;

/// Every key `policy.locked` may name (documented in docs/configuration.md).
pub const LOCKABLE_KEYS: &[&str] = &[
    "model",
    "model.provider",
    "model.name",
    "model.max_tokens",
    "model.timeout_s",
    "model.max_retries",
    "model.max_wait_s",
    "model.retry_base_ms",
    "model.retry_max_ms",
    "model.stream",
    "model.system_prompt",
    "fileref",
    "fileref.placement",
    "fileref.max_bytes",
    "fileref.max_total_bytes",
    "fileref.max_entries",
    "fileref.deny",
    "fileref.dedup",
    "fileref.resolver",
    "fileref.resolver_sha256",
    "fileref.resolver_config",
    "fileref.resolver_timeout_ms",
    "worker",
    "worker.max_continuations",
    "worker.max_steps",
    "worker.max_prompt_bytes",
    "worker.instructions_file",
    "worker.compact_at_tokens",
    "worker.compact_at_percent",
    "plan",
    "plan.remind_after_turns",
    "tools",
    "tools.mode",
    "tools.builtin_rules",
    "plugins",
    "mcp",
    "hooks",
    "tools",
    "tools.shell",
    "tools.shell.timeout_s",
    "tools.shell.network",
    "tools.shell.allowed_hosts",
    "tools.shell.unix_sockets",
    "tools.shell.sandbox",
    "tools.shell.hide",
    "tools.shell.env",
    "registries",
    "registries.deadline_s",
    "registries.idle_timeout_s",
    "registries.hosts",
    "telemetry",
    "telemetry.enabled",
    "telemetry.endpoint",
    "telemetry.protocol",
    "telemetry.headers_env",
    "telemetry.include_prompts",
    "audit",
    "audit.sign_key",
];

/// One locked key and where it was locked: what `warden config show` marks.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LockedKey {
    /// Dotted key as written (a table locks everything under it).
    pub key: String,
    /// The layer that locked it (always the managed layer today).
    pub layer: LayerKind,
    /// The file that locked it.
    pub file: PathBuf,
    /// 1-based line of the lock in that file.
    pub line: usize,
}

impl LockedKey {
    /// Whether this lock covers dotted `key`: the key itself or a table above it.
    pub fn covers(&self, key: &str) -> bool {
        key == self.key
            || key
                .strip_prefix(self.key.as_str())
                .is_some_and(|rest| rest.starts_with('.'))
    }
}

#[derive(Deserialize, Default)]
struct Doc {
    #[serde(default)]
    policy: Option<PolicyLocks>,
}

#[derive(Deserialize, Default)]
struct PolicyLocks {
    #[serde(default)]
    locked: Vec<toml::Spanned<String>>,
}

/// The locks of the managed file `path` (text `text`), or the first lock that names no
/// lockable key.
pub(crate) fn check(path: &Path, text: &str) -> Result<Vec<LockedKey>, ConfigError> {
    let doc: Doc = toml::from_str(text).map_err(|err| ConfigError::parse(path, text, &err))?;
    let mut out = Vec::new();
    for lock in doc.policy.unwrap_or_default().locked {
        let offset = lock.span().start;
        let key = lock.into_inner();
        if !LOCKABLE_KEYS.contains(&key.as_str()) {
            let why = if key == "policy" || key.starts_with("policy.") {
                "policy keys cannot be locked: only the managed layer sets policy".to_owned()
            } else {
                "no such key can be locked (see the lockable keys in docs/configuration.md)"
                    .to_owned()
            };
            return Err(ConfigError::at(
                path,
                text,
                offset,
                "policy.locked",
                format!("`{key}`: {why}"),
            ));
        }
        let (line, _) = super::error::line_column(text, offset);
        out.push(LockedKey {
            key,
            layer: LayerKind::Managed,
            file: path.to_owned(),
            line,
        });
    }
    Ok(out)
}

/// One setting a lock removed: the lock's key, the dotted key the layer set under it (the
/// lock's own key when it is not a table), and the layer's file.
pub(crate) type LockedHit = (String, String, PathBuf);

/// One warning for every setting the locks removed: a locked deployment says it once per
/// command, not once per key and file, and names what each file tried to set under a locked
/// table. `warden config show` marks each locked key.
pub(crate) fn ignored_warning(hits: &[LockedHit]) -> Option<String> {
    match hits {
        [] => None,
        [(lock, set, path)] if lock == set => Some(format!(
            "{}: `{lock}` is locked by managed policy; the setting was ignored",
            path.display()
        )),
        [(lock, set, path)] => Some(format!(
            "{}: `{lock}` is locked by managed policy; `{set}` was ignored",
            path.display()
        )),
        _ => {
            // lock → [(file, keys set under it)], in the order met.
            type Files<'a> = Vec<(String, Vec<&'a str>)>;
            let mut locks: Vec<(&str, Files)> = Vec::new();
            for (lock, set, path) in hits {
                let file = path.display().to_string();
                let files = match locks.iter_mut().find(|(l, _)| l == lock) {
                    Some((_, files)) => files,
                    None => {
                        locks.push((lock, Vec::new()));
                        let Some((_, files)) = locks.last_mut() else {
                            continue;
                        };
                        files
                    }
                };
                let keys = match files.iter_mut().find(|(f, _)| *f == file) {
                    Some((_, keys)) => keys,
                    None => {
                        files.push((file, Vec::new()));
                        let Some((_, keys)) = files.last_mut() else {
                            continue;
                        };
                        keys
                    }
                };
                if set != lock {
                    keys.push(set);
                }
            }
            let listed: Vec<String> = locks
                .iter()
                .map(|(lock, files)| {
                    let files: Vec<String> = files
                        .iter()
                        .map(|(file, keys)| {
                            if keys.is_empty() {
                                file.clone()
                            } else {
                                format!("{file} (`{}`)", keys.join("`, `"))
                            }
                        })
                        .collect();
                    format!("`{lock}` is locked, set in {}", files.join(" and "))
                })
                .collect();
            Some(format!(
                "settings locked by managed policy were ignored: {} (`warden config show` marks the locked keys)",
                listed.join("; ")
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;
    use crate::config::Config;

    /// Every key of the schema is lockable, so a new setting cannot be left out of the list.
    #[test]
    fn every_setting_of_the_schema_is_lockable() {
        let mut config = Config::default();
        config.model.name = Some(String::new());
        config.model.system_prompt = Some(String::new());
        config.fileref.resolver = Some(PathBuf::from("r.wasm"));
        config.fileref.resolver_sha256 = Some(String::new());
        let value = toml::Value::try_from(&config).unwrap();
        let table = value.as_table().unwrap();
        for (section, inner) in table {
            match (section.as_str(), inner) {
                // Rules of every layer apply together (the strictest wins); nothing to lock.
                ("policy" | "rules", _) => {}
                ("plugins", _) => assert!(LOCKABLE_KEYS.contains(&"plugins")),
                ("mcp", _) => assert!(LOCKABLE_KEYS.contains(&"mcp")),
                ("hooks", _) => assert!(LOCKABLE_KEYS.contains(&"hooks")),
                (_, toml::Value::Table(keys)) => {
                    assert!(LOCKABLE_KEYS.contains(&section.as_str()), "{section}");
                    for key in keys.keys() {
                        let dotted = format!("{section}.{key}");
                        assert!(LOCKABLE_KEYS.contains(&dotted.as_str()), "{dotted}");
                    }
                }
                (other, _) => panic!("unexpected top-level key {other}"),
            }
        }
    }

    #[test]
    fn every_lockable_key_is_documented() {
        let doc = include_str!("../../../docs/configuration.md");
        for key in LOCKABLE_KEYS {
            assert!(doc.contains(&format!("`{key}`")), "{key} is not documented");
        }
    }

    #[test]
    fn ignored_settings_are_said_in_one_warning() {
        assert_eq!(ignored_warning(&[]), None);
        let hit = |lock: &str, set: &str, file: &str| -> LockedHit {
            (lock.into(), set.into(), PathBuf::from(file))
        };
        let one = ignored_warning(&[hit("tools.mode", "tools.mode", "u.toml")]);
        assert_eq!(
            one.as_deref(),
            Some("u.toml: `tools.mode` is locked by managed policy; the setting was ignored")
        );
        let under = ignored_warning(&[hit("model", "model.name", "u.toml")]);
        assert_eq!(
            under.as_deref(),
            Some("u.toml: `model` is locked by managed policy; `model.name` was ignored")
        );
        let many = ignored_warning(&[
            hit("model", "model.name", "u.toml"),
            hit("tools.mode", "tools.mode", "u.toml"),
            hit("model", "model.name", "p.toml"),
            hit("model", "model.provider", "p.toml"),
        ])
        .unwrap_or_default();
        assert!(
            many.contains(
                "`model` is locked, set in u.toml (`model.name`) and p.toml (`model.name`, `model.provider`); `tools.mode` is locked, set in u.toml"
            ),
            "{many}"
        );
    }

    #[test]
    fn a_lock_covers_its_key_and_everything_under_it() {
        let lock = LockedKey {
            key: "model".into(),
            layer: LayerKind::Managed,
            file: PathBuf::from("m.toml"),
            line: 1,
        };
        assert!(lock.covers("model"));
        assert!(lock.covers("model.provider"));
        assert!(!lock.covers("models"));
        assert!(!lock.covers("fileref"));
    }

    #[test]
    fn an_unknown_lock_names_file_line_and_key() {
        let text = "[policy]\nlocked = [\n  \"model\",\n  \"model.provder\",\n]\n";
        let err = check(Path::new("/etc/m.toml"), text)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("/etc/m.toml:4:"), "{err}");
        assert!(err.contains("model.provder"), "{err}");
        let err = check(Path::new("m.toml"), "[policy]\nlocked = [\"policy\"]\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("policy keys cannot be locked"), "{err}");
        let locks = check(Path::new("m.toml"), "[policy]\nlocked = [\"plugins\"]\n").unwrap();
        assert_eq!(locks[0].line, 2);
    }
}
