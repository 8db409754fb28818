//! `[audit]`: what warden does with a session's audit chain when the session ends.
//!
//! ```toml
//! [audit]
//! sign_key = "/etc/warden/audit-signing.key"   # Ed25519 secret key (`warden plugin keygen`)
//! ```
//!
//! With `sign_key`, `warden run` and `warden chat` sign the chain head of each session they end
//! into `sessions/<id>/audit.sig`, as `warden audit sign` does. Only the user and managed layers
//! may set it (a project naming a key would choose what proves its own sessions); the managed
//! layer wins. The key file is hidden from every sandboxed command and MCP server, and may not
//! lie inside the workspace, where the file tools could read it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use super::error::ConfigError;
use super::load::LayerKind;

/// `[audit]`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct AuditConfig {
    /// The Ed25519 secret key that signs each session's chain head when the session ends
    /// (an absolute path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sign_key: Option<PathBuf>,
}

/// Takes `[audit]` out of a project layer's `table` (with a warning), and checks it in the
/// other layers: a known key, a path.
pub(crate) fn take(
    table: &mut Table,
    kind: LayerKind,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let why = "the key that signs a session's audit log is chosen by you or by managed policy";
    if super::user_only::drop_from_project(table, kind, path, "audit", why, warnings) {
        return Ok(());
    }
    let Some(audit) = table.get("audit") else {
        return Ok(());
    };
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: key.to_owned(),
        message,
    };
    let Value::Table(audit) = audit else {
        return Err(invalid("audit", "must be a table".into()));
    };
    if let Some(key) = audit.get("sign_key") {
        match key.as_str() {
            Some(text) if Path::new(text).is_absolute() => {}
            Some(_) => {
                return Err(invalid(
                    "audit.sign_key",
                    "must be an absolute path (the key is read wherever warden runs)".into(),
                ));
            }
            None => {
                return Err(invalid(
                    "audit.sign_key",
                    "must be a path (a string)".into(),
                ));
            }
        }
    }
    Ok(())
}

/// The effective `[audit]`: a key inside `workspace` is refused.
pub(crate) fn finish(
    audit: AuditConfig,
    workspace: Option<&Path>,
) -> Result<AuditConfig, ConfigError> {
    let (Some(key), Some(root)) = (&audit.sign_key, workspace) else {
        return Ok(audit);
    };
    let real = std::fs::canonicalize(key).unwrap_or_else(|_| key.clone());
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    if real.starts_with(&root) || key.starts_with(&root) {
        return Err(ConfigError::Invalid {
            path: key.clone(),
            key: "audit.sign_key".into(),
            message: format!(
                "the signing key lies inside the workspace {}, where the model's file tools \
                 could read it: keep it outside (e.g. /etc/warden or ~/.config/warden)",
                root.display()
            ),
        });
    }
    Ok(audit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(text: &str) -> Table {
        toml::from_str(text).unwrap_or_default()
    }

    #[test]
    fn a_project_cannot_choose_the_key() {
        let mut t = table("[audit]\nsign_key = \"/tmp/k\"\n");
        let mut warnings = Vec::new();
        assert!(
            take(
                &mut t,
                LayerKind::Project,
                Path::new("p.toml"),
                &mut warnings
            )
            .is_ok()
        );
        assert!(t.get("audit").is_none());
        assert!(
            warnings[0].contains("cannot be set by a project"),
            "{warnings:?}"
        );
    }

    #[test]
    fn relative_or_mistyped_keys_are_refused_naming_the_key() {
        for text in [
            "[audit]\nsign_key = \"k.key\"\n",
            "[audit]\nsign_key = \"~/k\"\n",
            "[audit]\nsign_key = 3\n",
            "audit = 1\n",
        ] {
            let mut t = table(text);
            let err = take(
                &mut t,
                LayerKind::User,
                Path::new("u.toml"),
                &mut Vec::new(),
            );
            assert!(
                err.is_err_and(|e| e.to_string().contains("audit")),
                "{text}"
            );
        }
    }

    #[test]
    fn a_key_inside_the_workspace_is_refused() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let inside = AuditConfig {
            sign_key: Some(dir.path().join("keys/a.key")),
        };
        let err = finish(inside, Some(dir.path()));
        assert!(err.is_err_and(|e| e.to_string().contains("inside the workspace")));
        let outside = AuditConfig {
            sign_key: Some(PathBuf::from("/etc/warden/a.key")),
        };
        assert_eq!(finish(outside.clone(), Some(dir.path()))?, outside);
        Ok(())
    }
}
