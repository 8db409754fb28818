//! warden's own paths: the state root (`$WARDEN_HOME`, default `~/.local/state/warden`:
//! sessions, histories, checkpoint copies, the OCI and compiled-code caches under it), the OCI
//! cache wherever the environment puts it, the user configuration directory
//! (`$XDG_CONFIG_HOME/warden`, default `~/.config/warden`), the system managed directory
//! (`/etc/warden`) and the managed file `$WARDEN_MANAGED_CONFIG` names. No sandboxed process
//! and no plugin may see them.

use std::path::{Path, PathBuf};

use super::managed::{MANAGED_CONFIG_VAR, SYSTEM_MANAGED_PATH};
use super::plugin_source::oci_cache_dir;

/// The variables [`own_paths`] reads.
pub const OWN_PATH_VARS: &[&str] = &["HOME", "WARDEN_HOME", "XDG_CONFIG_HOME", MANAGED_CONFIG_VAR];

/// warden's own paths under the environment `env` (absolute, canonical where they exist;
/// existing or not).
pub fn own_paths(env: &dyn Fn(&str) -> Option<String>) -> Vec<PathBuf> {
    let get = |key: &str| env(key).filter(|v| !v.is_empty());
    let home = get("HOME").map(PathBuf::from);
    let mut out = Vec::new();
    let state = get("WARDEN_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".local/state/warden")));
    out.extend(state);
    out.extend(oci_cache_dir(&|key| get(key)));
    let config_home = get("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| home.as_ref().map(|h| h.join(".config")));
    out.extend(config_home.map(|c| c.join("warden")));
    out.extend(
        Path::new(SYSTEM_MANAGED_PATH)
            .parent()
            .map(Path::to_path_buf),
    );
    out.extend(get(MANAGED_CONFIG_VAR).map(PathBuf::from));
    let mut absolute: Vec<PathBuf> = Vec::new();
    for path in out {
        let path = std::path::absolute(&path).unwrap_or(path);
        // Canonical where it exists, so that it compares with the (canonical) roots.
        let path = std::fs::canonicalize(&path).unwrap_or(path);
        if !absolute.contains(&path) {
            absolute.push(path);
        }
    }
    absolute
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(pairs: &'a [(&'a str, &'a Path)]) -> impl Fn(&str) -> Option<String> + 'a {
        move |key| {
            pairs
                .iter()
                .find(|(k, _)| *k == key)
                .map(|(_, v)| v.display().to_string())
        }
    }

    #[test]
    fn the_state_root_and_config_follow_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let paths = own_paths(&env(&[("HOME", &home)]));
        assert!(paths.contains(&home.join(".local/state/warden")));
        assert!(paths.contains(&home.join(".local/state/warden/plugins/oci")));
        assert!(paths.contains(&home.join(".config/warden")));
        assert!(paths.contains(&PathBuf::from("/etc/warden")));
        let state = dir.path().join("state");
        let managed = dir.path().join("managed.toml");
        let cfg = dir.path().join("cfg");
        let paths = own_paths(&env(&[
            ("HOME", &home),
            ("WARDEN_HOME", &state),
            ("XDG_CONFIG_HOME", &cfg),
            (MANAGED_CONFIG_VAR, &managed),
        ]));
        assert!(paths.contains(&state));
        assert!(paths.contains(&cfg.join("warden")));
        assert!(paths.contains(&managed));
        assert!(!paths.contains(&home.join(".local/state/warden")));
    }
}
