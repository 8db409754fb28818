//! The Rust SDK (`warden-plugin`) as this binary carries it: every file of `plugins/sdk` at
//! build time, written into a new project's `vendor/warden-plugin/` so that the project builds
//! anywhere. The SDK's manifest inherits keys from the guest workspace (`edition.workspace`,
//! `wit-bindgen.workspace`, ...), which a copy outside that workspace cannot reach: they are
//! replaced by the workspace's values. A lock file pins the dependency versions the SDK is
//! built and tested with, so a first build resolves nothing new (and `--offline` works once
//! they are in cargo's cache).

use std::collections::BTreeSet;

use toml_edit::{DocumentMut, Item, Table, Value};

/// Each SDK file: path relative to the SDK's directory (with `/`), bytes.
const SDK_FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/sdk_files.rs"));

include!(concat!(env!("OUT_DIR"), "/sdk_workspace.rs"));

/// Where a new project keeps the SDK.
pub(super) const VENDOR_DIR: &str = "vendor/warden-plugin";

/// The carried SDK's version (from its manifest, or the workspace's when inherited).
pub(super) fn sdk_version() -> Result<String, String> {
    let manifest = sdk_manifest()?;
    let doc: DocumentMut = manifest
        .parse()
        .map_err(|e| format!("the carried SDK's Cargo.toml: {e}"))?;
    doc.get("package")
        .and_then(|p| p.get("version"))
        .and_then(Item::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "the carried SDK's Cargo.toml has no package version".to_owned())
}

/// The SDK's files, ready to write under [`VENDOR_DIR`]: (relative path, text).
pub(super) fn sdk_files() -> Result<Vec<(String, String)>, String> {
    let manifest = sdk_manifest()?;
    SDK_FILES
        .iter()
        .map(|(path, bytes)| {
            let text = if *path == "Cargo.toml" {
                manifest.clone()
            } else {
                String::from_utf8(bytes.to_vec())
                    .map_err(|e| format!("the carried SDK's {path} is not UTF-8: {e}"))?
            };
            Ok(((*path).to_owned(), text))
        })
        .collect()
}

/// The SDK's manifest with every key it inherits from the guest workspace written out.
fn sdk_manifest() -> Result<String, String> {
    let original = SDK_FILES
        .iter()
        .find(|(path, _)| *path == "Cargo.toml")
        .map(|(_, bytes)| *bytes)
        .ok_or_else(|| "the carried SDK has no Cargo.toml".to_owned())?;
    let original = std::str::from_utf8(original)
        .map_err(|e| format!("the carried SDK's Cargo.toml is not UTF-8: {e}"))?;
    standalone_manifest(original, WORKSPACE_MANIFEST)
}

/// `member` (a workspace member's manifest) with its inherited keys taken from `workspace`
/// (the workspace's manifest), so that it builds on its own.
fn standalone_manifest(member: &str, workspace: &str) -> Result<String, String> {
    let mut doc: DocumentMut = member
        .parse()
        .map_err(|e| format!("the SDK's Cargo.toml: {e}"))?;
    let ws: DocumentMut = workspace
        .parse()
        .map_err(|e| format!("the guest workspace's Cargo.toml: {e}"))?;
    let ws = ws
        .get("workspace")
        .and_then(Item::as_table)
        .cloned()
        .unwrap_or_default();
    // `[lints] workspace = true`: lints are the workspace's business, not a dependency's.
    doc.remove("lints");
    if let Some(package) = doc.get_mut("package").and_then(Item::as_table_mut) {
        // A copy inside someone's project is theirs to build, not to publish under this name.
        package.insert("publish", toml_edit::value(false));
        package.remove("documentation");
        let shared = ws.get("package").and_then(Item::as_table);
        let keys: Vec<String> = package.iter().map(|(k, _)| k.to_owned()).collect();
        for key in keys {
            if !inherits(package.get(&key)) {
                continue;
            }
            let value = shared.and_then(|s| s.get(&key)).cloned().ok_or_else(|| {
                format!("the SDK inherits `package.{key}`, which the guest workspace does not set")
            })?;
            package.insert(&key, value);
        }
    }
    let shared_deps = ws.get("dependencies").and_then(Item::as_table);
    let mut sections: Vec<Vec<String>> = ["dependencies", "dev-dependencies", "build-dependencies"]
        .iter()
        .map(|s| vec![(*s).to_owned()])
        .collect();
    if let Some(targets) = doc.get("target").and_then(Item::as_table) {
        for (target, _) in targets.iter() {
            for s in ["dependencies", "dev-dependencies", "build-dependencies"] {
                sections.push(vec!["target".into(), target.to_owned(), s.into()]);
            }
        }
    }
    for section in sections {
        let Some(deps) = table_at(&mut doc, &section) else {
            continue;
        };
        let names: Vec<String> = deps.iter().map(|(k, _)| k.to_owned()).collect();
        for name in names {
            let Some(item) = deps.get(&name) else {
                continue;
            };
            let dep = if inherits(Some(item)) {
                let base = shared_deps.and_then(|s| s.get(&name)).ok_or_else(|| {
                    format!(
                        "the SDK inherits dependency `{name}`, which the guest workspace does not declare"
                    )
                })?;
                merged_dependency(base, item)
            } else {
                item.clone()
            };
            if dep.get("path").is_some() {
                return Err(format!(
                    "the SDK depends on `{name}` by path, which a project outside warden's source tree cannot reach"
                ));
            }
            deps.insert(&name, dep);
        }
    }
    Ok(format!(
        "# A copy of warden's plugin SDK, written by `warden plugin new`; keys it inherited from\n\
         # warden's guest workspace are written out.\n{doc}"
    ))
}

/// Whether `item` is `{ workspace = true, ... }`.
fn inherits(item: Option<&Item>) -> bool {
    item.and_then(|i| i.get("workspace"))
        .and_then(Item::as_bool)
        .unwrap_or(false)
}

/// The table at the dotted `path` of `doc`, when there is one.
fn table_at<'a>(doc: &'a mut DocumentMut, path: &[String]) -> Option<&'a mut Table> {
    let mut table = doc.as_table_mut();
    for key in path {
        table = table.get_mut(key)?.as_table_mut()?;
    }
    Some(table)
}

/// The workspace's declaration `base` (a version string or a table) with the member's own keys
/// (`features` added to the workspace's, `optional`, ...) from `member`.
fn merged_dependency(base: &Item, member: &Item) -> Item {
    let mut out = toml_edit::InlineTable::new();
    match base {
        Item::Value(Value::String(version)) => {
            out.insert("version", Value::from(version.value().as_str()));
        }
        other => {
            if let Some(table) = other.as_table_like() {
                for (key, value) in table.iter() {
                    if let Some(value) = value.as_value() {
                        out.insert(key, undecorated(value));
                    }
                }
            }
        }
    }
    if let Some(own) = member.as_table_like() {
        for (key, value) in own.iter() {
            if key == "workspace" {
                continue;
            }
            let Some(value) = value.as_value() else {
                continue;
            };
            if key == "features"
                && let (Some(Value::Array(have)), Value::Array(more)) = (out.get_mut(key), value)
            {
                let known: BTreeSet<String> = have
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect();
                for feature in more.iter().filter_map(Value::as_str) {
                    if !known.contains(feature) {
                        have.push(feature);
                    }
                }
                continue;
            }
            out.insert(key, undecorated(value));
        }
    }
    let mut value = Value::InlineTable(out);
    value.decor_mut().clear();
    Item::Value(value)
}

/// A lock file for a project `name` depending on the SDK and `extra` (crate names), with the
/// versions of the guest workspace's lock file (see [`super::lockfile`]).
pub(super) fn lock_file(name: &str, extra: &[&str]) -> Result<String, String> {
    super::lockfile::project_lock(WORKSPACE_LOCK, name, extra)
}

/// `value` without the spacing and comments around it in its original place.
fn undecorated(value: &Value) -> Value {
    let mut value = value.clone();
    value.decor_mut().clear();
    value
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn inherited_keys_are_written_out() {
        let member = "[package]\nname = \"sdk\"\nversion = \"0.2.0\"\nedition.workspace = true\nlicense.workspace = true\n\n[features]\ntool = [\"dep:globset\"]\n\n[dependencies]\nwit-bindgen.workspace = true\nglobset = { workspace = true, optional = true, features = [\"log\"] }\nserde = \"1\"\n\n[lints]\nworkspace = true\n";
        let workspace = "[workspace]\n[workspace.package]\nedition = \"2024\"\nlicense = \"Apache-2.0\"\n[workspace.dependencies]\nwit-bindgen = { version = \"0.63\", default-features = false, features = [\"macros\"] }\nglobset = \"0.4\"\n";
        let out = standalone_manifest(member, workspace).unwrap();
        assert!(!out.contains("workspace = true"), "{out}");
        assert!(!out.contains(".workspace"), "{out}");
        let doc: toml::Table = toml::from_str(&out).unwrap();
        assert_eq!(doc["package"]["edition"].as_str(), Some("2024"));
        assert_eq!(doc["package"]["license"].as_str(), Some("Apache-2.0"));
        assert_eq!(doc["package"]["publish"].as_bool(), Some(false));
        let wb = &doc["dependencies"]["wit-bindgen"];
        assert_eq!(wb["version"].as_str(), Some("0.63"));
        assert_eq!(wb["default-features"].as_bool(), Some(false));
        let gs = &doc["dependencies"]["globset"];
        assert_eq!(gs["version"].as_str(), Some("0.4"));
        assert_eq!(gs["optional"].as_bool(), Some(true));
        assert_eq!(gs["features"].as_array().unwrap().len(), 1);
        assert_eq!(doc["dependencies"]["serde"].as_str(), Some("1"));
        assert!(doc.get("lints").is_none());
    }

    #[test]
    fn a_path_dependency_or_a_missing_inherited_key_is_an_error() {
        let ws = "[workspace]\n[workspace.dependencies]\nrules = { path = \"rules\" }\n";
        let err = standalone_manifest(
            "[package]\nname = \"sdk\"\n[dependencies]\nrules.workspace = true\n",
            ws,
        )
        .unwrap_err();
        assert!(err.contains("`rules` by path"), "{err}");
        let err = standalone_manifest("[package]\nname = \"sdk\"\nedition.workspace = true\n", ws)
            .unwrap_err();
        assert!(err.contains("package.edition"), "{err}");
    }

    #[test]
    fn the_carried_sdk_stands_alone() {
        let files = sdk_files().unwrap();
        let manifest = files.iter().find(|(p, _)| p == "Cargo.toml").unwrap();
        let text = &manifest.1;
        assert!(
            !text.contains("workspace = true") && !text.contains(".workspace"),
            "{text}"
        );
        assert!(files.iter().any(|(p, _)| p == "src/lib.rs"));
        assert!(files.iter().any(|(p, _)| p.starts_with("wit/")));
        assert!(!sdk_version().unwrap().is_empty());
    }
}
