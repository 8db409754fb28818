//! warden's own paths, hidden from every sandboxed process: the state root (`$WARDEN_HOME`,
//! default `~/.local/state/warden`: sessions, histories, checkpoint copies, the OCI and
//! compiled-code caches under it), the OCI cache wherever the environment puts it, the user
//! configuration directory (`$XDG_CONFIG_HOME/warden`, default `~/.config/warden`), the system
//! managed directory (`/etc/warden`) and the managed file `$WARDEN_MANAGED_CONFIG` names.
//!
//! A workspace root inside one of them (a project kept under the state root) stays visible:
//! instead of the whole directory, every entry beside the path down to the root is hidden.

use std::path::{Path, PathBuf};

use crate::config::{MANAGED_CONFIG_VAR, SYSTEM_MANAGED_PATH, oci_cache_dir};

/// Most entries listed to hide a directory around a workspace root inside it.
const MAX_AROUND_ENTRIES: usize = 10_000;

/// warden's own paths under the environment `vars` (absolute; existing or not).
pub fn own_paths(vars: &[(String, String)]) -> Vec<PathBuf> {
    let get = |key: &str| {
        vars.iter()
            .find(|(k, v)| k == key && !v.is_empty())
            .map(|(_, v)| v.clone())
    };
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
    out.extend(Path::new(SYSTEM_MANAGED_PATH).parent().map(Path::to_path_buf));
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

/// What to cover so that `paths` are hidden while every root stays visible: a path holding no
/// root as itself; a path holding a root, entry by entry except the way down to it; a path
/// that is a root or lies inside one as itself (covered inside the root). Only existing paths.
pub fn cover_around_roots(paths: &[PathBuf], roots: &[PathBuf]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for path in paths {
        if std::fs::symlink_metadata(path).is_err() {
            continue;
        }
        around(path, roots, &mut out)?;
    }
    Ok(out)
}

fn around(path: &Path, roots: &[PathBuf], out: &mut Vec<PathBuf>) -> Result<(), String> {
    if roots.iter().any(|r| r == path) {
        return Ok(());
    }
    if !roots.iter().any(|r| r.starts_with(path)) {
        if !out.iter().any(|o| o == path) {
            out.push(path.to_owned());
        }
        return Ok(());
    }
    let entries = std::fs::read_dir(path)
        .map_err(|e| format!("listing {} to hide it around a workspace root: {e}", path.display()))?;
    for (n, entry) in entries.enumerate() {
        if n >= MAX_AROUND_ENTRIES {
            return Err(format!(
                "{} holds more than {MAX_AROUND_ENTRIES} entries: it cannot be hidden around the workspace root inside it, so nothing was run",
                path.display()
            ));
        }
        let entry =
            entry.map_err(|e| format!("listing {} to hide it: {e}", path.display()))?;
        around(&entry.path(), roots, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &Path)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.display().to_string()))
            .collect()
    }

    #[test]
    fn the_state_root_and_config_follow_the_environment() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let paths = own_paths(&vars(&[("HOME", &home)]));
        assert!(paths.contains(&home.join(".local/state/warden")));
        assert!(paths.contains(&home.join(".local/state/warden/plugins/oci")));
        assert!(paths.contains(&home.join(".config/warden")));
        assert!(paths.contains(&PathBuf::from("/etc/warden")));
        let state = dir.path().join("state");
        let managed = dir.path().join("managed.toml");
        let paths = own_paths(&vars(&[
            ("HOME", &home),
            ("WARDEN_HOME", &state),
            ("XDG_CONFIG_HOME", &dir.path().join("cfg")),
            (MANAGED_CONFIG_VAR, &managed),
        ]));
        assert!(paths.contains(&state));
        assert!(paths.contains(&dir.path().join("cfg/warden")));
        assert!(paths.contains(&managed));
        assert!(!paths.contains(&home.join(".local/state/warden")));
    }

    #[test]
    fn a_root_inside_a_hidden_directory_stays_visible() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let state = base.join("state");
        let root = state.join("projects/ws");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(state.join("sessions/s1")).unwrap();
        std::fs::create_dir_all(state.join("projects/other")).unwrap();
        std::fs::write(state.join("projects/note"), "x").unwrap();
        let inner = root.join(".state");
        std::fs::create_dir_all(&inner).unwrap();
        let mut covered = cover_around_roots(
            &[state.clone(), inner.clone(), base.join("missing")],
            std::slice::from_ref(&root),
        )
        .unwrap();
        covered.sort();
        let mut expected = vec![
            state.join("sessions"),
            state.join("projects/other"),
            state.join("projects/note"),
            inner,
        ];
        expected.sort();
        assert_eq!(covered, expected);
    }
}
