//! warden's own paths ([`crate::config::own_paths`]: the state root, caches, user and managed
//! configuration), hidden from every sandboxed process.
//!
//! A workspace root inside one of them (a project kept under the state root) stays visible:
//! instead of the whole directory, every entry beside the path down to the root is hidden.

use std::path::{Path, PathBuf};

/// Most entries listed to hide a directory around a workspace root inside it.
const MAX_AROUND_ENTRIES: usize = 10_000;

/// warden's own paths under the environment `vars` (see [`crate::config::own_paths`]).
pub fn own_paths(vars: &[(String, String)]) -> Vec<PathBuf> {
    crate::config::own_paths(&|key| vars.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone()))
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
    let entries = std::fs::read_dir(path).map_err(|e| {
        format!(
            "listing {} to hide it around a workspace root: {e}",
            path.display()
        )
    })?;
    for (n, entry) in entries.enumerate() {
        if n >= MAX_AROUND_ENTRIES {
            return Err(format!(
                "{} holds more than {MAX_AROUND_ENTRIES} entries: it cannot be hidden around the workspace root inside it, so nothing was run",
                path.display()
            ));
        }
        let entry = entry.map_err(|e| format!("listing {} to hide it: {e}", path.display()))?;
        around(&entry.path(), roots, out)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

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
