//! The managed layer's signing keys: `policy.trusted_keys` (key files relative to the managed
//! file, or inline `ed25519:BASE64`), `policy.require_signed` and `policy.allowed_sources`.
//! Another layer's are ignored with a warning (see `load/policy.rs`).

use std::path::Path;

use super::schema::PolicyConfig;

/// Take the managed layer's signing keys (read from `path`) into `policy`.
pub(super) fn take(
    policy: &mut PolicyConfig,
    (keys, require_signed, allowed_sources): (Vec<String>, bool, Option<Vec<String>>),
    path: &Path,
) {
    let base = path.parent().unwrap_or(Path::new("/"));
    policy.trusted_keys = keys
        .into_iter()
        .map(|key| {
            if key.trim().starts_with("ed25519:") || Path::new(&key).is_absolute() {
                key
            } else {
                base.join(&key).to_string_lossy().into_owned()
            }
        })
        .collect();
    policy.require_signed = require_signed;
    policy.allowed_sources = allowed_sources;
    policy.signing_from = Some(path.to_owned());
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use std::path::PathBuf;

    use crate::config::{LayerKind, Sources, load};

    fn write(dir: &std::path::Path, name: &str, text: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    #[test]
    fn only_the_managed_layer_sets_the_signing_keys() {
        let dir = tempfile::tempdir().unwrap();
        let user = write(
            dir.path(),
            "user.toml",
            "[policy]\nrequire_signed = true\ntrusted_keys = [\"u.pub\"]\n",
        );
        let project = write(
            dir.path(),
            "project.toml",
            "[policy]\nrequire_signed = false\ntrusted_keys = [\"ed25519:AAAA\"]\nallowed_sources = [\"*\"]\n",
        );
        let managed = write(
            dir.path(),
            "managed.toml",
            "[policy]\nrequire_signed = true\ntrusted_keys = [\"keys/corp.pub\", \"ed25519:BBBB\", \"/abs/k.pub\"]\nallowed_sources = [\"builtin:*\"]\n",
        );
        let layers = |with_managed: bool| Sources {
            layers: [
                (LayerKind::User, user.clone()),
                (LayerKind::Project, project.clone()),
            ]
            .into_iter()
            .chain(with_managed.then(|| (LayerKind::Managed, managed.clone())))
            .collect(),
            managed_is_system: false,
            notes: Vec::new(),
        };
        let loaded = load(&layers(true)).unwrap();
        let policy = &loaded.config.policy;
        assert!(policy.require_signed);
        assert_eq!(
            policy.trusted_keys,
            [
                dir.path()
                    .join("keys/corp.pub")
                    .to_string_lossy()
                    .into_owned(),
                "ed25519:BBBB".to_owned(),
                "/abs/k.pub".to_owned()
            ]
        );
        assert_eq!(policy.allowed_sources, Some(vec!["builtin:*".to_owned()]));
        assert_eq!(policy.signing_from.as_deref(), Some(managed.as_path()));
        for key in ["require_signed", "trusted_keys", "allowed_sources"] {
            assert!(
                loaded.warnings.iter().any(|w| w.contains(&format!(
                    "`policy.{key}` is only honoured in the managed layer"
                )) && w.contains("project.toml")),
                "{key}: {:?}",
                loaded.warnings
            );
        }
        // Without a managed file, the user's and project's settings do nothing.
        let loaded = load(&layers(false)).unwrap();
        assert!(!loaded.config.policy.require_signed);
        assert!(loaded.config.policy.trusted_keys.is_empty());
        assert_eq!(loaded.config.policy.allowed_sources, None);
    }
}
