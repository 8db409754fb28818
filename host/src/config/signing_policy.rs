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
