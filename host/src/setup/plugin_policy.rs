//! Where plugins may come from and who must have signed them, under managed policy:
//! `policy.allowed_sources` is checked here for every configured component (interceptors,
//! hooks, tool plugins, a custom `fileref.resolver`) before anything is read, and
//! `policy.require_signed` with `policy.trusted_keys` is handed to the engine, which checks
//! the signature of the very bytes it compiles. The built-in resolver is always allowed.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::config::{Config, PluginEntry, PolicyConfig, ProjectCode};
use crate::plugin::PluginError;
use crate::plugin::signature::SigningPolicy;

/// Check every configured component against `policy.allowed_sources`; the signature policy
/// the engine enforces on load, if signatures are required.
pub(super) fn enforce(config: &Config) -> Result<Option<Arc<SigningPolicy>>, PluginError> {
    let policy = &config.policy;
    if policy.allowed_sources.is_some() {
        for entry in &config.plugins {
            check_source(
                policy,
                &format!("plugin {}", entry.name),
                &entry_source(entry),
                &entry.path,
            )?;
        }
        if let Some(path) = &config.fileref.resolver {
            check_source(policy, "resolver", &path_source(path), path)?;
        }
    }
    Ok(SigningPolicy::from_config(policy)?.map(Arc::new))
}

/// Refuse the code a project declares (its `[[plugins]]` entries and resolver) where managed
/// policy will refuse it when it loads: a source outside `policy.allowed_sources`, or, under
/// `policy.require_signed`, a component no trusted key signed. `warden trust` asks this
/// before it records anything, so that a project is never trusted into a refusal.
pub fn check_project_code(config: &Config, code: &ProjectCode) -> Result<(), PluginError> {
    let policy = &config.policy;
    let resolver = code.resolver.as_ref().and_then(|r| r.resolver.as_ref());
    let mut components: Vec<(String, String, &Path)> = code
        .entries
        .iter()
        .map(|e| {
            (
                format!("plugin {}", e.name),
                entry_source(e),
                e.path.as_path(),
            )
        })
        .collect();
    if let Some(path) = resolver {
        components.push(("resolver".to_owned(), path_source(path), path.as_path()));
    }
    for (what, source, path) in &components {
        check_source(policy, what, source, path)?;
    }
    if let Some(signing) = SigningPolicy::from_config(policy)? {
        for (what, _, path) in &components {
            let bytes = crate::plugin::builtin::read(path, policy.max_component_bytes())?;
            signing.check_described(what, path, &bytes)?;
        }
    }
    Ok(())
}

/// What `policy.allowed_sources` matches for `entry`: its `source` when it has one, else
/// `builtin:NAME` for a bundled plugin, else the canonical absolute path of its file. Only a
/// registry reference (`oci://…`) counts as a `source`: any other value (`builtin:…`, a path)
/// would let an entry name a source its file does not come from, so it is matched as
/// `source:VALUE`, which no allowed source of the documented forms matches.
pub fn entry_source(entry: &PluginEntry) -> String {
    match &entry.source {
        Some(source) if source.starts_with("oci://") => source.clone(),
        Some(other) => format!("source:{other}"),
        None => path_source(&entry.path),
    }
}

/// What `policy.allowed_sources` matches for a component file at `path`: `builtin:NAME`, else
/// its canonical absolute path.
pub fn path_source(path: &Path) -> String {
    let text = path.to_string_lossy();
    if text.starts_with("builtin:") {
        // A plugin bundled in the binary: its name is its source.
        return text.into_owned();
    }
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| absolute(path))
        .to_string_lossy()
        .into_owned()
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_owned())
}

/// Refuse `what` (from `path`, matched as `source`) unless an allowed source matches it.
fn check_source(
    policy: &PolicyConfig,
    what: &str,
    source: &str,
    path: &Path,
) -> Result<(), PluginError> {
    let Some(allowed) = &policy.allowed_sources else {
        return Ok(());
    };
    if allowed.iter().any(|glob| glob_match(glob, source)) {
        return Ok(());
    }
    let managed = policy.signing_from.as_ref().map_or_else(
        || "(managed policy)".to_owned(),
        |p| p.display().to_string(),
    );
    let file = if source == path.to_string_lossy() {
        String::new()
    } else {
        format!(" ({})", path.display())
    };
    Err(PluginError::Refused {
        what: format!("{what}{file}"),
        reason: format!(
            "refused by managed policy `policy.allowed_sources` in {managed}: its source `{source}` matches none of {allowed:?}"
        ),
    })
}

/// The config layer's glob (`*` matches any run of characters, `/` included), as `[[mcp]]`
/// commands are matched against `policy.allowed_mcp`.
pub use crate::config::glob_match;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]
    use super::*;

    #[test]
    fn globs_match_prefixes_and_whole_strings() {
        assert!(glob_match(
            "oci://registry.corp/*",
            "oci://registry.corp/a/b@sha256:00"
        ));
        assert!(!glob_match(
            "oci://registry.corp/*",
            "oci://evil.example/registry.corp/x"
        ));
        assert!(glob_match(
            "/opt/warden/plugins/*",
            "/opt/warden/plugins/x.wasm"
        ));
        assert!(!glob_match(
            "/opt/warden/plugins/*",
            "/opt/warden/other/x.wasm"
        ));
        assert!(glob_match("builtin:*", "builtin:keyword-context"));
        assert!(glob_match("/a/x.wasm", "/a/x.wasm"));
        assert!(!glob_match("/a/x.wasm", "/a/x.wasm2"));
    }

    #[test]
    fn only_a_registry_reference_counts_as_a_source() {
        let mut entry = crate::config::PluginSpec {
            name: "p".into(),
            kind: crate::config::PluginKind::Interceptor,
            path: "/home/u/evil.wasm".into(),
            sha256: None,
            source: Some("oci://registry.corp/p@sha256:00".into()),
            failure: None,
            timeout_ms: None,
            memory_mb: None,
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
        .resolve("user");
        assert_eq!(entry_source(&entry), "oci://registry.corp/p@sha256:00");
        let policy = PolicyConfig {
            allowed_sources: Some(vec!["builtin:*".into(), "/opt/warden/plugins/*".into()]),
            ..PolicyConfig::default()
        };
        for claimed in ["builtin:guard", "/opt/warden/plugins/guard.wasm"] {
            entry.source = Some(claimed.into());
            let source = entry_source(&entry);
            assert!(
                check_source(&policy, "plugin p", &source, &entry.path).is_err(),
                "{claimed}"
            );
        }
    }

    #[test]
    fn builtin_paths_are_their_own_source() {
        assert_eq!(path_source(Path::new("builtin:guard")), "builtin:guard");
        // Only a path that starts with `builtin:` is a bundled plugin: a directory of that
        // name is an ordinary path.
        assert_eq!(
            path_source(Path::new("/tmp/builtin:guard/x.wasm")),
            "/tmp/builtin:guard/x.wasm"
        );
    }

    #[test]
    fn a_local_file_is_matched_by_its_canonical_path() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("p.wasm");
        std::fs::write(&real, b"x").unwrap();
        let indirect = dir.path().join("sub").join("..").join("p.wasm");
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let canonical = std::fs::canonicalize(&real).unwrap();
        assert_eq!(path_source(&indirect), canonical.to_string_lossy());
        let policy = PolicyConfig {
            allowed_sources: Some(vec![format!("{}/*", canonical.parent().unwrap().display())]),
            ..PolicyConfig::default()
        };
        check_source(&policy, "plugin p", &path_source(&indirect), &indirect).unwrap();
        let other = PolicyConfig {
            allowed_sources: Some(vec!["/opt/warden/plugins/*".into()]),
            signing_from: Some("/etc/warden/managed.toml".into()),
            ..PolicyConfig::default()
        };
        let err = check_source(&other, "plugin p", &path_source(&indirect), &indirect)
            .unwrap_err()
            .to_string();
        assert!(err.contains("plugin p"), "{err}");
        assert!(err.contains("policy.allowed_sources"), "{err}");
        assert!(err.contains("/etc/warden/managed.toml"), "{err}");
    }
}
