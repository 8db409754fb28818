//! What the project layer declares that runs code, and its digest: what `warden trust`
//! records and what changes when trust must be asked again.
//!
//! A project runs code through its `[[plugins]]` entries (every kind) and its
//! `fileref.resolver` keys. Each is described by one canonical JSON object ([`Declared`]):
//! every key of the entry as declared, defaults applied and before any ceiling clamps it
//! (name, kind, path, failure, limits, config, grants, approve) with the grant lists sorted,
//! plus the sha256 of the component file it names (its bytes, which a `sha256` pin only
//! restricts: the pin itself is left out, so that `warden plugin pin` asks nothing again). The
//! digest is the sha256 of the canonical JSON array of those objects sorted by id, so that
//! reordering entries or grant lists asks nothing again, while any other change of a key or
//! of a component's bytes does.
//!
//! A project's `[[mcp]]` servers run code too (a command, or a URL that gets the header
//! variables): each is a declaration `mcp:<name>` with every key as declared, plus the sha256
//! of each workspace file it runs (`files`: the files its command names and those its
//! `trust_files` globs match, see `trust_files.rs`), so that an edit of the script asks again.
//!
//! Settings of the project layer that change what the model is told, what a command gets or
//! where this machine's audit trail goes are declarations too (`setting:<key>`,
//! [`HELD_SETTINGS`]): `model.system_prompt`, `worker.instructions_file`, `tools.shell.env`
//! and every `telemetry.*` key. Until trusted they are held back (the loader leaves them out)
//! rather than refused.
//!
//! A project that raises the permission mode (`[tools] mode`) above what the user layer (or
//! the default `ask`) says grants the model more: that raise is a declaration too
//! (`tools.mode`), so an untrusted project cannot let writes or commands run unasked.
//!
//! The managed layer may pre-trust workspaces (`policy.trusted_paths`, globs of absolute
//! roots, [`TrustPaths`]) or forbid trusting (`policy.allow_trust = false`).

use std::collections::BTreeMap;
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::error::ConfigError;
use super::mcp::McpEntry;
use super::schema::{MAX_COMPONENT_MB, PluginEntry};
use crate::domain::Mode;

/// The project layer's resolver keys, as it sets them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct ProjectResolver {
    /// `fileref.resolver` (made absolute), if the project sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolver: Option<PathBuf>,
    /// `fileref.resolver_sha256`, if the project sets it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resolver_sha256: Option<String>,
    /// `fileref.resolver_config`, if the project sets it.
    pub resolver_config: BTreeMap<String, String>,
}

/// Keys of the project layer that wait for trust like its code, and are held back (not
/// applied) until then.
pub const HELD_SETTINGS: &[&str] = &[
    "model.system_prompt",
    "worker.instructions_file",
    "tools.shell.env",
    "telemetry.endpoint",
    "telemetry.protocol",
    "telemetry.headers_env",
    "telemetry.include_prompts",
    "telemetry.enabled",
];

/// What the project layer declares that runs code.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ProjectCode {
    /// The project config file.
    pub file: PathBuf,
    /// Its `[[plugins]]` entries, as resolved.
    pub entries: Vec<PluginEntry>,
    /// Its `[[mcp]]` servers, as resolved.
    pub mcp: Vec<McpEntry>,
    /// Its `[[hooks]]` entries, as resolved.
    pub hooks: Vec<super::CommandHookEntry>,
    /// Its resolver keys, if it sets any.
    pub resolver: Option<ProjectResolver>,
    /// The mode it raises to (`tools.mode` above the user layer's or the default), if it does.
    pub mode: Option<Mode>,
    /// The [`HELD_SETTINGS`] it sets, by dotted key, as written.
    pub settings: BTreeMap<String, Value>,
}

/// One declaration of the project, described canonically.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Declared {
    /// `plugin:<name>`, `resolver` or `tools.mode`.
    pub id: String,
    /// `interceptor`, `hook`, `tool`, `resolver` or `mode`.
    pub kind: String,
    /// Every key of the declaration, grant lists sorted, and `component_sha256`.
    pub value: Value,
}

impl ProjectCode {
    /// Every declaration, sorted by id; component files are read to hash them.
    pub fn declarations(&self) -> Vec<Declared> {
        let mut out: Vec<Declared> = self.entries.iter().map(declare_entry).collect();
        let root = self.root();
        out.extend(self.mcp.iter().map(|entry| declare_mcp(entry, &root)));
        out.extend(self.hooks.iter().map(|entry| declare_hook(entry, &root)));
        for (key, value) in &self.settings {
            let mut value = value.clone();
            if let Value::Array(list) = &mut value {
                list.sort_by_key(crate::domain::canonical_json::to_string);
                list.dedup();
            }
            out.push(Declared {
                id: format!("setting:{key}"),
                kind: "setting".into(),
                value: json!({ "key": key, "value": value }),
            });
        }
        if let Some(resolver) = &self.resolver {
            // As for plugins, the pin is left out and the component's digest is in.
            let mut value = json!({
                "resolver": resolver.resolver,
                "resolver_config": resolver.resolver_config,
            });
            if let Some(path) = &resolver.resolver {
                value["component_sha256"] = Value::String(component_sha256(path));
            }
            out.push(Declared {
                id: "resolver".into(),
                kind: "resolver".into(),
                value,
            });
        }
        if let Some(mode) = self.mode {
            out.push(Declared {
                id: "tools.mode".into(),
                kind: "mode".into(),
                value: json!({ "mode": mode }),
            });
        }
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    /// The workspace root: the directory holding `.warden/config.toml`.
    pub fn root(&self) -> PathBuf {
        self.file
            .parent()
            .and_then(Path::parent)
            .map_or_else(|| PathBuf::from("."), Path::to_owned)
    }

    /// The digest of `declarations` (sorted by id): sha256 (hex) of their canonical JSON.
    pub fn digest(declarations: &[Declared]) -> String {
        let mut sorted: Vec<&Declared> = declarations.iter().collect();
        sorted.sort_by(|a, b| a.id.cmp(&b.id));
        // Keys in sorted order, however each value was built or read.
        let canonical = serde_json::to_value(&sorted)
            .map(|value| crate::domain::canonical_json::to_string(&value))
            .unwrap_or_default();
        hex::encode(Sha256::digest(canonical.as_bytes()))
    }
}

/// An `[[mcp]]` server: every key as declared (the command or URL, grants, header variable
/// names), lists sorted, and the sha256 of each workspace file under `root` it runs (`files`,
/// left out when there is none); where it was declared is left out.
fn declare_mcp(entry: &McpEntry, root: &Path) -> Declared {
    let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("origin");
        map.remove("declared_in");
        for key in ["env", "allowed_hosts", "trust_files"] {
            if let Some(Value::Array(list)) = map.get_mut(key) {
                list.sort_by_key(crate::domain::canonical_json::to_string);
                list.dedup();
            }
        }
        if let super::McpTransport::Stdio { command } = &entry.transport {
            let files =
                super::trust_files::workspace_files(root, command, &entry.trust_files, &|p| {
                    component_sha256(p)
                });
            if !files.is_empty() {
                map.insert("files".into(), json!(files));
            }
        }
    }
    Declared {
        id: format!("mcp:{}", entry.name),
        kind: "mcp".into(),
        value,
    }
}

/// A `[[hooks]]` entry: every key as declared, lists sorted, and the sha256 of each workspace
/// file under `root` its command names (`files`, left out when there is none).
fn declare_hook(entry: &super::CommandHookEntry, root: &Path) -> Declared {
    let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        map.remove("origin");
        map.remove("declared_in");
        for key in ["env", "allowed_hosts"] {
            if let Some(Value::Array(list)) = map.get_mut(key) {
                list.sort_by_key(crate::domain::canonical_json::to_string);
                list.dedup();
            }
        }
        let files =
            super::command_hooks::command_files(root, &entry.command, &|p| component_sha256(p));
        if !files.is_empty() {
            map.insert("files".into(), json!(files));
        }
    }
    Declared {
        id: format!("hook:{}", entry.name),
        kind: "hook-command".into(),
        value,
    }
}

fn declare_entry(entry: &PluginEntry) -> Declared {
    let mut value = serde_json::to_value(entry).unwrap_or(Value::Null);
    if let Value::Object(map) = &mut value {
        // Where it was declared is the trust's key, not part of what is trusted; a pin only
        // refuses bytes, and the component's own digest is part of what is trusted.
        map.remove("origin");
        map.remove("declared_in");
        map.remove("sha256");
        if let Some(Value::Object(grants)) = map.get_mut("grants") {
            for key in ["allowed_hosts", "env"] {
                if let Some(Value::Array(list)) = grants.get_mut(key) {
                    list.sort_by_key(crate::domain::canonical_json::to_string);
                    list.dedup();
                }
            }
        }
        // A component from a registry is the content its pin names: the cache file is only
        // where those bytes are kept (a file with other bytes is refused by the pin), so a
        // missing or re-provisioned cache file changes nothing that was trusted.
        let content = match (&entry.source, pinned_sha256(entry)) {
            (Some(source), Some(pin)) if source.starts_with(super::OCI_SCHEME) => pin,
            _ => component_sha256(&entry.path),
        };
        map.insert("component_sha256".into(), Value::String(content));
    }
    let kind = serde_json::to_value(entry.kind)
        .ok()
        .and_then(|v| v.as_str().map(str::to_owned))
        .unwrap_or_default();
    Declared {
        id: format!("plugin:{}", entry.name),
        kind,
        value,
    }
}

/// The entry's `sha256` pin, lowercase, when it is one (64 hex digits).
fn pinned_sha256(entry: &PluginEntry) -> Option<String> {
    entry
        .sha256
        .as_deref()
        .map(str::trim)
        .filter(|p| p.len() == 64 && p.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_ascii_lowercase)
}

/// The sha256 (hex) of the file at `path`, or `unreadable: <why>` (such a component cannot
/// load; once it can, the digest changes and trust is asked again). Only a regular file of at
/// most [`MAX_COMPONENT_MB`] is read: a FIFO or a device named as a component never blocks
/// or floods the digest (checked before a non-blocking open, and again on the handle).
fn component_sha256(path: &Path) -> String {
    // `builtin:NAME`: the sample this binary carries; an upgrade that changes it asks again.
    if let Some(name) = path.to_str().and_then(|p| p.strip_prefix("builtin:")) {
        return env!("WARDEN_BUILTIN_DIGESTS")
            .split(',')
            .find_map(|e| e.strip_prefix(name)?.strip_prefix('='))
            .map_or_else(
                || format!("unreadable: no built-in plugin `{name}`"),
                str::to_owned,
            );
    }
    let hash = || -> Result<String, String> {
        let max = MAX_COMPONENT_MB << 20;
        let regular = |meta: &std::fs::Metadata| {
            if !meta.is_file() {
                Err("not a regular file".to_owned())
            } else if meta.len() > max {
                Err(format!("larger than {MAX_COMPONENT_MB} MiB"))
            } else {
                Ok(())
            }
        };
        regular(&std::fs::metadata(path).map_err(|e| e.to_string())?)?;
        let file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
            .open(path)
            .map_err(|e| e.to_string())?;
        regular(&file.metadata().map_err(|e| e.to_string())?)?;
        let mut hasher = Sha256::new();
        let mut limited = file.take(max);
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = limited.read(&mut buf).map_err(|e| e.to_string())?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
        }
        Ok(hex::encode(hasher.finalize()))
    };
    hash().unwrap_or_else(|why| format!("unreadable: {why}"))
}

/// `policy.trusted_paths` compiled: globs of absolute workspace roots (`*` stays within one
/// path component, `**` crosses them).
#[derive(Debug, Clone)]
pub struct TrustPaths {
    set: globset::GlobSet,
}

impl TrustPaths {
    /// Compile `globs` read from `path`; an invalid or relative glob is an error of that file.
    pub fn new(globs: &[String], path: &Path) -> Result<Self, ConfigError> {
        let invalid = |message: String| ConfigError::Invalid {
            path: path.to_owned(),
            key: "policy.trusted_paths".into(),
            message,
        };
        let mut builder = globset::GlobSetBuilder::new();
        for glob in globs {
            if !glob.starts_with('/') {
                return Err(invalid(format!(
                    "{glob:?}: write an absolute path or glob (`/srv/repos/**`)"
                )));
            }
            let compiled = globset::GlobBuilder::new(glob)
                .literal_separator(true)
                .build()
                .map_err(|err| invalid(format!("{glob:?}: {err}")))?;
            builder.add(compiled);
        }
        let set = builder
            .build()
            .map_err(|err| invalid(format!("trusted paths: {err}")))?;
        Ok(Self { set })
    }

    /// Whether workspace root `root` (canonical) is trusted by these globs.
    pub fn matches(&self, root: &Path) -> bool {
        self.set.is_match(root)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::config::PluginSpec;

    fn entry(dir: &Path, name: &str, extra: &str) -> PluginEntry {
        let text = format!(
            "name = \"{name}\"\nkind = \"tool\"\npath = {:?}\n{extra}\n",
            dir.join(format!("{name}.wasm")).display().to_string()
        );
        toml::from_str::<PluginSpec>(&text)
            .unwrap()
            .resolve("project")
    }

    fn code(entries: Vec<PluginEntry>) -> ProjectCode {
        ProjectCode {
            file: PathBuf::from("/w/.warden/config.toml"),
            entries,
            ..ProjectCode::default()
        }
    }

    fn digest(code: &ProjectCode) -> String {
        ProjectCode::digest(&code.declarations())
    }

    #[test]
    fn the_digest_ignores_order_but_not_grants_or_component_bytes() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.wasm"), b"component a").unwrap();
        std::fs::write(dir.path().join("b.wasm"), b"component b").unwrap();
        let a = entry(dir.path(), "a", "env = [\"X\", \"Y\"]");
        let b = entry(dir.path(), "b", "fs = \"read\"");
        let base = digest(&code(vec![a.clone(), b.clone()]));
        assert_eq!(base.len(), 64);
        // Entry order and grant-list order do not matter.
        assert_eq!(digest(&code(vec![b.clone(), a.clone()])), base);
        let a_swapped = entry(dir.path(), "a", "env = [\"Y\", \"X\"]");
        assert_eq!(digest(&code(vec![a_swapped, b.clone()])), base);
        // A grant, a limit or a config value does.
        for changed in [
            "env = [\"X\", \"Y\", \"Z\"]",
            "env = [\"X\", \"Y\"]\nfs = \"read\"",
            "env = [\"X\", \"Y\"]\ntimeout_ms = 5",
            "env = [\"X\", \"Y\"]\napprove = \"ask\"",
            "env = [\"X\", \"Y\"]\nconfig = { k = \"v\" }",
        ] {
            let a2 = entry(dir.path(), "a", changed);
            assert_ne!(digest(&code(vec![a2, b.clone()])), base, "{changed}");
        }
        // A pin only restricts which bytes load: changing it asks nothing again.
        let a_pinned = entry(
            dir.path(),
            "a",
            &format!("env = [\"X\", \"Y\"]\nsha256 = \"{}\"", "0".repeat(64)),
        );
        assert_eq!(digest(&code(vec![a_pinned, b.clone()])), base);
        // New bytes in a component file are new code.
        std::fs::write(dir.path().join("b.wasm"), b"component b, rebuilt").unwrap();
        assert_ne!(digest(&code(vec![a.clone(), b.clone()])), base);
        // A FIFO or a device is never read (it would block or never end).
        for special in [Path::new("/dev/zero"), dir.path()] {
            assert_eq!(component_sha256(special), "unreadable: not a regular file");
        }
        // A missing file is described, not an error, and differs from any content.
        std::fs::remove_file(dir.path().join("b.wasm")).unwrap();
        let decls = code(vec![a, b]).declarations();
        let b_value = &decls.iter().find(|d| d.id == "plugin:b").unwrap().value;
        assert!(
            b_value["component_sha256"]
                .as_str()
                .unwrap()
                .starts_with("unreadable:"),
            "{b_value}"
        );
    }

    #[test]
    fn the_resolver_keys_are_declarations_too() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.wasm");
        std::fs::write(&path, b"resolver").unwrap();
        let mut with = code(Vec::new());
        with.resolver = Some(ProjectResolver {
            resolver: Some(path.clone()),
            ..ProjectResolver::default()
        });
        let decls = with.declarations();
        assert_eq!(decls[0].id, "resolver");
        let before = ProjectCode::digest(&decls);
        with.resolver = Some(ProjectResolver {
            resolver: Some(path),
            resolver_config: [("k".to_owned(), "v".to_owned())].into(),
            ..ProjectResolver::default()
        });
        assert_ne!(digest(&with), before);
    }

    #[test]
    fn a_raise_of_the_mode_is_a_declaration_of_its_own() {
        let mut with = code(Vec::new());
        let none = digest(&with);
        with.mode = Some(Mode::FullAuto);
        let decls = with.declarations();
        assert_eq!(decls.len(), 1);
        assert_eq!(decls[0].id, "tools.mode");
        assert_eq!(decls[0].value["mode"], "full-auto");
        let full = digest(&with);
        with.mode = Some(Mode::AutoEdit);
        assert_ne!(digest(&with), full);
        assert_ne!(full, none);
    }

    #[test]
    fn held_settings_are_declarations_and_list_order_is_no_change() {
        let mut with = code(Vec::new());
        let none = digest(&with);
        with.settings.insert(
            "tools.shell.env".into(),
            json!(["PGPASSWORD", "DATABASE_URL"]),
        );
        with.settings
            .insert("model.system_prompt".into(), json!("be brief"));
        let decls = with.declarations();
        let ids: Vec<&str> = decls.iter().map(|d| d.id.as_str()).collect();
        assert_eq!(
            ids,
            ["setting:model.system_prompt", "setting:tools.shell.env"]
        );
        assert!(decls.iter().all(|d| d.kind == "setting"));
        let both = digest(&with);
        assert_ne!(both, none);
        with.settings.insert(
            "tools.shell.env".into(),
            json!(["DATABASE_URL", "PGPASSWORD"]),
        );
        assert_eq!(digest(&with), both);
        with.settings
            .insert("model.system_prompt".into(), json!("be brief, and obey"));
        assert_ne!(digest(&with), both);
    }

    #[test]
    fn an_mcp_servers_script_and_trust_files_are_hashed_into_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".warden")).unwrap();
        std::fs::create_dir_all(root.join("lib")).unwrap();
        std::fs::write(root.join("srv.py"), "print(1)").unwrap();
        std::fs::write(root.join("lib/h.py"), "X = 1").unwrap();
        let spec: crate::config::McpSpec = toml::from_str(
            "name = \"s\"\ncommand = [\"python3\", \"srv.py\"]\ntrust_files = [\"lib/*.py\"]\n",
        )
        .unwrap();
        let entry = crate::config::mcp::resolve(
            spec,
            "project",
            Path::new("c.toml"),
            &crate::config::PolicyConfig::default(),
            None,
        )
        .unwrap();
        let with = ProjectCode {
            file: root.join(".warden/config.toml"),
            mcp: vec![entry],
            ..ProjectCode::default()
        };
        let decls = with.declarations();
        let files = decls[0].value["files"].as_object().unwrap();
        let names: Vec<&String> = files.keys().collect();
        assert_eq!(names, ["lib/h.py", "srv.py"]);
        let before = digest(&with);
        assert_eq!(digest(&with), before);
        std::fs::write(root.join("srv.py"), "print(2)").unwrap();
        let after_script = digest(&with);
        assert_ne!(after_script, before);
        std::fs::write(root.join("lib/new.py"), "Y = 1").unwrap();
        assert_ne!(digest(&with), after_script);
    }

    #[test]
    fn a_hooks_script_and_its_grants_are_in_the_digest() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join(".claude/hooks")).unwrap();
        std::fs::write(root.join(".claude/hooks/guard.py"), "print(1)").unwrap();
        let spec: crate::config::HookSpec = toml::from_str(
            "event = \"PreToolUse\"\nmatcher = \"Bash\"\ncommand = \"python3 \\\"$CLAUDE_PROJECT_DIR\\\"/.claude/hooks/guard.py\"\n",
        )
        .unwrap();
        let entry = crate::config::command_hooks::resolve(
            spec,
            "project",
            Path::new("c.toml"),
            &crate::config::PolicyConfig::default(),
            None,
            &mut Vec::new(),
        )
        .unwrap();
        let code = |hook: crate::config::CommandHookEntry| ProjectCode {
            file: root.join(".warden/config.toml"),
            hooks: vec![hook],
            ..ProjectCode::default()
        };
        let with = code(entry.clone());
        let decls = with.declarations();
        assert_eq!(decls[0].id, "hook:guard");
        let files: Vec<&String> = decls[0].value["files"]
            .as_object()
            .unwrap()
            .keys()
            .collect();
        assert_eq!(files, [".claude/hooks/guard.py"]);
        let before = digest(&with);
        assert_eq!(digest(&with), before);
        std::fs::write(root.join(".claude/hooks/guard.py"), "print(2)").unwrap();
        let after_script = digest(&with);
        assert_ne!(after_script, before);
        let mut granted = entry;
        granted.env = vec!["GITHUB_TOKEN".into()];
        assert_ne!(digest(&code(granted)), after_script);
    }

    #[test]
    fn trusted_paths_are_absolute_globs() {
        let globs = vec!["/srv/repos/**".to_owned(), "/home/*/work".to_owned()];
        let paths = TrustPaths::new(&globs, Path::new("m.toml")).unwrap();
        assert!(paths.matches(Path::new("/srv/repos/a")));
        assert!(paths.matches(Path::new("/srv/repos/a/b")));
        assert!(paths.matches(Path::new("/home/ann/work")));
        assert!(!paths.matches(Path::new("/home/ann/x/work")));
        assert!(!paths.matches(Path::new("/srv/other")));
        let err = TrustPaths::new(&["srv/**".to_owned()], Path::new("m.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("policy.trusted_paths"), "{err}");
    }

    #[test]
    fn a_builtin_component_is_trusted_by_the_digest_of_the_sample_carried() {
        let digest = component_sha256(Path::new("builtin:tool-guard"));
        assert_eq!(digest.len(), 64, "{digest}");
        assert!(digest.chars().all(|c| c.is_ascii_hexdigit()), "{digest}");
        assert_ne!(
            component_sha256(Path::new("builtin:keyword-context")),
            digest
        );
        assert!(component_sha256(Path::new("builtin:tool")).starts_with("unreadable: "));
    }
}
