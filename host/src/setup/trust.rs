//! Whether a workspace's project code may run: what its project layer declares (plugins,
//! MCP servers and the workspace files they run, resolver, a raised mode, held-back settings)
//! against what the person trusted (`$WARDEN_HOME/trust.json`) and what managed
//! policy says (`policy.trusted_paths`, `policy.allow_trust`).
//!
//! Nothing here asks or prints: [`check`] says where things stand, [`Pending::changes`] what
//! differs from what was trusted, and [`record`] writes the person's yes.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::config::{Declared, LayerKind, Loaded, ProjectCode, TrustPaths};
use crate::store::{Home, StoreError, TrustRecord, Trusted};

/// Where a workspace's project code stands.
#[derive(Debug, Clone, PartialEq)]
pub enum TrustState {
    /// The project declares nothing that runs code: nothing to trust.
    NotNeeded,
    /// The person trusted exactly what is declared now (these declarations).
    Trusted(Vec<Declared>),
    /// Managed policy's `trusted_paths` covers the workspace root (`file`: the managed file).
    TrustedByPolicy {
        /// The managed file.
        file: PathBuf,
    },
    /// Managed policy forbids trusting (`policy.allow_trust = false` in `file`).
    Forbidden {
        /// The managed file.
        file: PathBuf,
    },
    /// Not trusted, or trusted with other declarations: trust must be asked (again).
    Waiting(Pending),
}

impl TrustState {
    /// True when the project's code may load.
    pub fn allows(&self) -> bool {
        matches!(
            self,
            Self::NotNeeded | Self::Trusted(_) | Self::TrustedByPolicy { .. }
        )
    }
}

/// What is waiting for trust.
#[derive(Debug, Clone, PartialEq)]
pub struct Pending {
    /// The workspace root.
    pub root: PathBuf,
    /// The project config file.
    pub file: PathBuf,
    /// Every declaration now.
    pub declared: Vec<Declared>,
    /// Their digest.
    pub digest: String,
    /// What was trusted before, if anything.
    pub previous: Option<Vec<Declared>>,
}

/// One difference from what was trusted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    /// A declaration not trusted before (or nothing was trusted).
    New(Declared),
    /// A declaration trusted before with other values: the keys that differ, `key: old → new`.
    Changed(Declared, Vec<String>),
    /// A declaration trusted before that is gone.
    Removed(Declared),
}

impl Pending {
    /// What differs from what was trusted, in id order.
    pub fn changes(&self) -> Vec<Change> {
        let Some(previous) = &self.previous else {
            return self.declared.iter().cloned().map(Change::New).collect();
        };
        let mut out = Vec::new();
        for now in &self.declared {
            match previous.iter().find(|p| p.id == now.id) {
                None => out.push(Change::New(now.clone())),
                Some(before) if before != now => {
                    let mut keys = Vec::new();
                    diff_values("", &before.value, &now.value, &mut keys);
                    if before.kind != now.kind {
                        keys.insert(0, format!("kind: {} → {}", before.kind, now.kind));
                    }
                    out.push(Change::Changed(now.clone(), keys));
                }
                Some(_) => {}
            }
        }
        for before in previous {
            if !self.declared.iter().any(|d| d.id == before.id) {
                out.push(Change::Removed(before.clone()));
            }
        }
        out
    }

    /// The workspace files (`files` of an MCP server) added, changed or removed since they
    /// were trusted, by path relative to the root.
    pub fn changed_files(&self) -> Vec<String> {
        let files = |d: &Declared| d.value["files"].as_object().cloned().unwrap_or_default();
        let mut out = Vec::new();
        for change in self.changes() {
            if let Change::Changed(now, _) = change {
                let before = self
                    .previous
                    .iter()
                    .flatten()
                    .find(|p| p.id == now.id)
                    .map(files)
                    .unwrap_or_default();
                let after = files(&now);
                for name in before.keys().chain(after.keys()) {
                    if before.get(name) != after.get(name) && !out.contains(name) {
                        out.push(name.clone());
                    }
                }
            }
        }
        out.sort();
        out
    }

    /// Whether the project declares any code (plugins, MCP servers, a resolver, a raised
    /// mode), trusted before or not.
    pub fn declares_code(&self) -> bool {
        self.declared.iter().any(|d| d.kind != "setting")
    }

    /// The ids of the declarations that are new or changed (what would start running).
    pub fn waiting_ids(&self) -> Vec<String> {
        self.changes()
            .into_iter()
            .filter_map(|change| match change {
                Change::New(d) | Change::Changed(d, _) => Some(format!("{} ({})", d.id, d.kind)),
                Change::Removed(_) => None,
            })
            .collect()
    }
}

/// `key: old → new` for every leaf that differs between `a` and `b`.
fn diff_values(prefix: &str, a: &Value, b: &Value, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(a), Value::Object(b)) => {
            let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
            for key in keys {
                let dotted = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                let none = Value::Null;
                diff_values(
                    &dotted,
                    a.get(key).unwrap_or(&none),
                    b.get(key).unwrap_or(&none),
                    out,
                );
            }
        }
        (a, b) if a != b => out.push(format!("{prefix}: {a} → {b}")),
        _ => {}
    }
}

/// One line describing a declaration waiting for trust: kind, component, pin and grants.
pub fn describe(declared: &Declared) -> String {
    describe_as(declared, false)
}

/// [`describe`] for a declaration just trusted: a setting says it now applies.
pub fn describe_trusted(declared: &Declared) -> String {
    describe_as(declared, true)
}

fn describe_as(declared: &Declared, trusted: bool) -> String {
    let v = &declared.value;
    let text = |key: &str| v[key].as_str().unwrap_or("").to_owned();
    if declared.kind == "mode" {
        return format!(
            "tools.mode = {} (raises the permission mode: tool calls that write files or run commands ask less)",
            text("mode")
        );
    }
    if declared.kind == "setting" {
        let key = declared.id.trim_start_matches("setting:");
        // A project may only turn sending prompt text off (`config::telemetry_layers`).
        let standing = if key == "telemetry.include_prompts" && v["value"] == Value::Bool(true) {
            "never applied: a project may only turn sending prompt text off"
        } else if trusted {
            "applies now: the workspace is trusted"
        } else {
            "held back until trusted"
        };
        return format!("{key} = {} ({standing})", v["value"]);
    }
    if declared.kind == "hook-command" {
        let files = v["files"]
            .as_object()
            .map(|f| {
                let names: Vec<&str> = f.keys().map(String::as_str).collect();
                format!(", runs {}", names.join(", "))
            })
            .unwrap_or_default();
        let matcher = v["matcher"]
            .as_str()
            .map(|m| format!(" on {m}"))
            .unwrap_or_default();
        let hosts = v["allowed_hosts"]
            .as_array()
            .filter(|h| !h.is_empty())
            .map_or_else(
                || "no network".to_owned(),
                |h| {
                    let hosts: Vec<&str> = h.iter().filter_map(Value::as_str).collect();
                    format!("hosts {}", hosts.join(","))
                },
            );
        let env = v["env"]
            .as_array()
            .filter(|e| !e.is_empty())
            .map(|e| {
                let names: Vec<&str> = e.iter().filter_map(Value::as_str).collect();
                format!(", env {}", names.join(","))
            })
            .unwrap_or_default();
        return format!(
            "{} (command hook at {}{matcher}): `{}`: fs {}, {hosts}{env}{files}",
            declared.id,
            text("event"),
            text("command"),
            text("fs"),
        );
    }
    if declared.kind == "mcp" {
        let transport = &v["transport"];
        let target = transport["stdio"]["command"]
            .as_array()
            .map(|argv| {
                argv.iter()
                    .filter_map(|a| a.as_str())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .or_else(|| transport["http"]["url"].as_str().map(str::to_owned))
            .unwrap_or_default();
        let headers: Vec<String> = v["headers"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|h| Some(format!("{}: ${}", h["name"].as_str()?, h["var"].as_str()?)))
            .collect();
        let files: Vec<&str> = v["files"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(name, _)| name.as_str())
            .collect();
        let files = if files.is_empty() {
            String::new()
        } else {
            format!("; runs workspace files {}", files.join(", "))
        };
        return format!(
            "MCP server {} {target} grants: fs = {}, network = {}, allowed_hosts = {}, env = {}, sandbox = {}, headers = [{}]; approve = {}{files}",
            declared.id.trim_start_matches("mcp:"),
            v["fs"],
            v["network"],
            v["allowed_hosts"],
            v["env"],
            v["sandbox"],
            headers.join(", "),
            v["approve"]
        );
    }
    if declared.kind == "resolver" {
        let mut line = format!("resolver {}", text("resolver"));
        if v["resolver_config"]
            .as_object()
            .is_some_and(|m| !m.is_empty())
        {
            line.push_str(&format!(" config {}", v["resolver_config"]));
        }
        return line;
    }
    let mut line = format!(
        "{} ({}) {}",
        declared.id.trim_start_matches("plugin:"),
        declared.kind,
        text("path")
    );
    let grants = &v["grants"];
    if declared.kind == "tool" {
        line.push_str(&format!(
            " grants: fs = {}, env = {}, allowed_hosts = {}; approve = {}",
            grants["fs"], grants["env"], grants["allowed_hosts"], v["approve"]
        ));
    }
    if v["config"].as_object().is_some_and(|m| !m.is_empty()) {
        line.push_str(&format!("; config {}", v["config"]));
    }
    line
}

/// Where the project code of `loaded` (for workspace `root`) stands. A trust file that cannot
/// be read is an error, never "trusted".
pub fn check(loaded: &Loaded, root: &Path, home: &Home) -> Result<TrustState, StoreError> {
    let Some(code) = &loaded.project_code else {
        return Ok(TrustState::NotNeeded);
    };
    let policy = &loaded.config.policy;
    let managed_file = || {
        loaded.managed.as_ref().map_or_else(
            || PathBuf::from(LayerKind::Managed.as_str()),
            |m| m.path.clone(),
        )
    };
    if !policy.allow_trust {
        return Ok(TrustState::Forbidden {
            file: managed_file(),
        });
    }
    // Checked when the managed file was loaded; a glob that does not compile trusts nothing.
    if TrustPaths::new(&policy.trusted_paths, Path::new("")).is_ok_and(|paths| paths.matches(root))
    {
        return Ok(TrustState::TrustedByPolicy {
            file: managed_file(),
        });
    }
    let trusted = Trusted::read(home)?;
    let pending = pending(code, root, &trusted, &loaded.dev_overrides);
    Ok(
        if trusted
            .get(root)
            .is_some_and(|r| r.digest == pending.digest)
        {
            TrustState::Trusted(pending.declared)
        } else {
            TrustState::Waiting(pending)
        },
    )
}

/// The declarations of `code` against what `trusted` holds for `root`. A plugin of the project
/// that a dev overlay entry takes the place of (`overrides`, `warden plugin dev`) is not loaded:
/// it stands as it was last trusted (or, never trusted, is left out), so rebuilding it asks for
/// no trust and trust is never given to it unseen.
pub fn pending(
    code: &ProjectCode,
    root: &Path,
    trusted: &Trusted,
    overrides: &[String],
) -> Pending {
    let previous: Option<Vec<Declared>> = trusted.get(root).map(|record| {
        record
            .declared
            .iter()
            .filter_map(|v| serde_json::from_value::<Declared>(v.clone()).ok())
            .collect()
    });
    let mut declared = code.declarations();
    for name in overrides {
        let id = format!("plugin:{name}");
        if let Some(was) = previous.iter().flatten().find(|d| d.id == id)
            && !declared.iter().any(|d| d.id == id)
        {
            declared.push(was.clone());
        }
    }
    declared.sort_by(|a, b| a.id.cmp(&b.id));
    let digest = ProjectCode::digest(&declared);
    Pending {
        root: root.to_owned(),
        file: code.file.clone(),
        declared,
        digest,
        previous,
    }
}

/// Pin each of the project's components in `loaded` that carries no `sha256` to the digest
/// that was trusted (`declared`), so that the loader refuses a file swapped after the check.
pub fn pin_trusted(loaded: &mut Loaded, declared: &[Declared]) {
    let digest_of = |id: &str| {
        declared
            .iter()
            .find(|d| d.id == id)
            .and_then(|d| d.value["component_sha256"].as_str())
            .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
            .map(str::to_owned)
    };
    for entry in &mut loaded.config.plugins {
        if entry.origin == LayerKind::Project.as_str() && entry.sha256.is_none() {
            entry.sha256 = digest_of(&format!("plugin:{}", entry.name));
        }
    }
    let project_resolver = loaded
        .project_code
        .as_ref()
        .and_then(|code| code.resolver.as_ref())
        .and_then(|r| r.resolver.as_ref());
    let fileref = &mut loaded.config.fileref;
    if fileref.resolver.is_some()
        && fileref.resolver.as_ref() == project_resolver
        && fileref.resolver_sha256.is_none()
    {
        fileref.resolver_sha256 = digest_of("resolver");
    }
}

/// Record the person's trust in what `pending` declares.
pub fn record(home: &Home, pending: &Pending) -> Result<(), StoreError> {
    let declared = pending
        .declared
        .iter()
        .filter_map(|d| serde_json::to_value(d).ok())
        .collect();
    Trusted::record(
        home,
        &pending.root,
        TrustRecord::now(pending.digest.clone(), declared),
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use serde_json::json;

    fn decl(id: &str, value: Value) -> Declared {
        Declared {
            id: id.into(),
            kind: "tool".into(),
            value,
        }
    }

    #[test]
    fn trusted_components_are_pinned_to_the_bytes_that_were_trusted() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("user.toml");
        let project = dir.path().join("project.toml");
        std::fs::write(dir.path().join("p.wasm"), b"trusted bytes").unwrap();
        let entry = |name: &str| {
            format!("[[plugins]]\nname = \"{name}\"\nkind = \"hook\"\npath = \"p.wasm\"\n")
        };
        std::fs::write(&user, entry("mine")).unwrap();
        std::fs::write(
            &project,
            format!("{}[fileref]\nresolver = \"p.wasm\"\n", entry("theirs")),
        )
        .unwrap();
        let sources = crate::config::Sources {
            layers: vec![(LayerKind::User, user), (LayerKind::Project, project)],
            managed_is_system: false,
            notes: Vec::new(),
        };
        let mut loaded = crate::config::load(&sources).unwrap();
        let declared = loaded.project_code.as_ref().unwrap().declarations();
        pin_trusted(&mut loaded, &declared);
        let digest = crate::plugin::sha256_hex(b"trusted bytes");
        let pins: Vec<(&str, Option<&str>)> = loaded
            .config
            .plugins
            .iter()
            .map(|p| (p.name.as_str(), p.sha256.as_deref()))
            .collect();
        // The user's own plugin is not the project's: left as written.
        assert_eq!(pins, [("mine", None), ("theirs", Some(digest.as_str()))]);
        assert_eq!(loaded.config.fileref.resolver_sha256, Some(digest));
    }

    #[test]
    fn changed_workspace_files_and_settings_are_named() {
        let mcp = |files: Value| Declared {
            id: "mcp:s".into(),
            kind: "mcp".into(),
            value: json!({ "files": files }),
        };
        let setting = Declared {
            id: "setting:model.system_prompt".into(),
            kind: "setting".into(),
            value: json!({ "key": "model.system_prompt", "value": "be brief" }),
        };
        let pending = Pending {
            root: "/w".into(),
            file: "/w/.warden/config.toml".into(),
            declared: vec![
                mcp(json!({ "srv.py": "b", "lib/new.py": "c" })),
                setting.clone(),
            ],
            digest: String::new(),
            previous: Some(vec![mcp(json!({ "srv.py": "a", "lib/gone.py": "d" }))]),
        };
        assert_eq!(
            pending.changed_files(),
            ["lib/gone.py", "lib/new.py", "srv.py"]
        );
        assert!(pending.declares_code());
        let only = Pending {
            declared: vec![setting.clone()],
            previous: None,
            ..pending
        };
        assert!(!only.declares_code());
        assert_eq!(
            describe(&setting),
            r#"model.system_prompt = "be brief" (held back until trusted)"#
        );
        assert_eq!(
            describe_trusted(&setting),
            r#"model.system_prompt = "be brief" (applies now: the workspace is trusted)"#
        );
        assert!(
            describe(&mcp(json!({ "srv.py": "a" }))).ends_with("; runs workspace files srv.py")
        );
        let prompts = Declared {
            id: "setting:telemetry.include_prompts".into(),
            kind: "setting".into(),
            value: json!({ "key": "telemetry.include_prompts", "value": true }),
        };
        assert_eq!(
            describe_trusted(&prompts),
            "telemetry.include_prompts = true (never applied: a project may only turn sending prompt text off)"
        );
    }

    #[test]
    fn changes_name_new_changed_and_removed_declarations() {
        let before = vec![
            decl(
                "plugin:a",
                json!({"grants": {"env": ["X"]}, "path": "/a.wasm"}),
            ),
            decl("plugin:gone", json!({"path": "/g.wasm"})),
        ];
        let now = vec![
            decl(
                "plugin:a",
                json!({"grants": {"env": ["X", "Y"]}, "path": "/a.wasm"}),
            ),
            decl("plugin:b", json!({"path": "/b.wasm"})),
        ];
        let pending = Pending {
            root: "/w".into(),
            file: "/w/.warden/config.toml".into(),
            declared: now.clone(),
            digest: String::new(),
            previous: Some(before),
        };
        let changes = pending.changes();
        assert_eq!(
            changes[0],
            Change::Changed(
                now[0].clone(),
                vec![r#"grants.env: ["X"] → ["X","Y"]"#.into()]
            )
        );
        assert_eq!(changes[1], Change::New(now[1].clone()));
        assert!(matches!(&changes[2], Change::Removed(d) if d.id == "plugin:gone"));
        assert_eq!(
            pending.waiting_ids(),
            ["plugin:a (tool)", "plugin:b (tool)"]
        );
    }
}
