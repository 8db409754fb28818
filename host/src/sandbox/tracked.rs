//! Which denied workspace files git tracks: the deny globs hide `.env`, `*.pem`, ... from a
//! command by covering the paths, but git's objects hold the same bytes (`git show
//! HEAD:.env`), which no per-path cover can reach. Read from the repository's index with
//! [`git_index`](super::git_index) (never by running `git`), so that warden can say so.

use std::path::{Path, PathBuf};

use warden_rules::deny::Deny;

use super::git_index::tracked_paths;

/// Largest index read.
const MAX_INDEX_BYTES: u64 = 256 << 20;

/// The tracked paths of the repository at `root` that `deny` denies (a path, or a directory
/// above it), relative to `root`; empty where `root` has no repository. An error names the
/// file that could not be read.
pub fn tracked_denied(root: &Path, deny: &[String]) -> Result<Vec<String>, String> {
    let Some(git_dir) = git_dir(root) else {
        return Ok(Vec::new());
    };
    let index = git_dir.join("index");
    let Ok(meta) = std::fs::metadata(&index) else {
        return Ok(Vec::new());
    };
    if meta.len() > MAX_INDEX_BYTES {
        return Err(format!(
            "{}: larger than {} MiB; not read",
            index.display(),
            MAX_INDEX_BYTES >> 20
        ));
    }
    let bytes = std::fs::read(&index).map_err(|e| format!("{}: {e}", index.display()))?;
    let paths = tracked_paths(&bytes, hash_len(&git_dir))
        .map_err(|e| format!("{}: {e}", index.display()))?;
    let rules = Deny::new(deny)?;
    Ok(paths
        .into_iter()
        .filter(|path| denied(&rules, path))
        .collect())
}

/// Whether `path` or a directory above it is denied.
fn denied(rules: &Deny, path: &str) -> bool {
    let path = path.trim_end_matches('/');
    rules.file(path)
        || path
            .match_indices('/')
            .any(|(at, _)| rules.dir(&path[..at]))
}

/// The repository directory of `root`: `.git`, or where a `.git` file (`gitdir: …`, a linked
/// worktree or submodule) points.
fn git_dir(root: &Path) -> Option<PathBuf> {
    let dot_git = root.join(".git");
    let meta = std::fs::symlink_metadata(&dot_git).ok()?;
    if meta.is_dir() {
        return Some(dot_git);
    }
    let text = std::fs::read_to_string(&dot_git).ok()?;
    let target = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    Some(root.join(target))
}

/// The object id length of the repository: 32 bytes where its config names SHA-256.
fn hash_len(git_dir: &Path) -> usize {
    let config = std::fs::read_to_string(git_dir.join("config"))
        .or_else(|_| std::fs::read_to_string(git_dir.join("../../config")))
        .unwrap_or_default()
        .to_ascii_lowercase();
    let sha256 = config.lines().any(|line| {
        let line = line.replace([' ', '\t'], "");
        line.starts_with("objectformat=sha256")
    });
    if sha256 { 32 } else { 20 }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn denied_tracked_paths_are_found_by_file_or_directory() {
        let deny: Vec<String> = ["*.pem", ".env", "secrets/"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        let rules = Deny::new(&deny).unwrap();
        assert!(denied(&rules, ".env"));
        assert!(denied(&rules, "a/b/.env"));
        assert!(denied(&rules, "k/server.pem"));
        assert!(!denied(&rules, "README"));
        let rules = Deny::new(&["keys".to_owned()]).unwrap();
        assert!(denied(&rules, "src/keys/id"));
        assert!(!denied(&rules, "src/keysx/id"));
        let dir = tempfile::tempdir().unwrap();
        assert!(tracked_denied(dir.path(), &deny).unwrap().is_empty());
        std::fs::create_dir_all(dir.path().join(".git")).unwrap();
        std::fs::write(dir.path().join(".git/index"), b"junk").unwrap();
        assert!(
            tracked_denied(dir.path(), &deny)
                .unwrap_err()
                .contains("index")
        );
    }
}
