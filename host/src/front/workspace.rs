//! The workspace root every command uses, and `@path` mentions taken relative to the current
//! directory.
//!
//! The root is the nearest ancestor of the current directory holding `.warden/`, else the
//! nearest holding `.git`, else the current directory itself; `-C DIR` sets it explicitly. An
//! `@path` is tried relative to the current directory first (when that is inside the root),
//! then relative to the root.

use std::path::{Component, Path, PathBuf};

use super::error::FrontError;
use crate::domain::Segment;
use crate::setup;

/// Where a command runs.
#[derive(Debug, Clone)]
pub struct Workspace {
    /// The canonical workspace root.
    pub root: PathBuf,
    /// The current directory relative to the root, when it is strictly inside it.
    pub cwd_in_root: Option<PathBuf>,
}

impl Workspace {
    /// The workspace for `-C DIR` (explicit) or found from the current directory.
    pub fn find(dir: Option<&Path>) -> Result<Self, FrontError> {
        let cwd = current_dir()?;
        let root = match dir {
            Some(dir) => canonical(dir)?,
            None => discover(&cwd),
        };
        Ok(Self::at(root, &cwd))
    }

    /// The workspace rooted at `root` (already canonical), seen from `cwd`.
    pub fn at(root: PathBuf, cwd: &Path) -> Self {
        let cwd_in_root = cwd
            .strip_prefix(&root)
            .ok()
            .filter(|rel| !rel.as_os_str().is_empty())
            .map(Path::to_owned);
        Self { root, cwd_in_root }
    }

    /// The workspace recorded by a session, seen from the current directory.
    pub fn recorded(root: &Path) -> Result<Self, FrontError> {
        let root = setup::workspace_root(root).map_err(|err| {
            FrontError::usage(format!("the session's workspace is unusable: {err}"))
        })?;
        Ok(Self::at(root, &current_dir()?))
    }

    /// Rewrite relative `@path`s that name something under the current directory to paths
    /// relative to the root; the rest stay relative to the root.
    pub fn rebase(&self, segments: &mut [Segment]) {
        let Some(rel) = &self.cwd_in_root else {
            return;
        };
        for segment in segments {
            if let Segment::FileRef { path, .. } = segment
                && let Some(rebased) = rebase_one(&self.root, rel, path)
            {
                *path = rebased;
            }
        }
    }
}

fn rebase_one(root: &Path, rel: &Path, path: &str) -> Option<String> {
    let typed = Path::new(path);
    if typed.is_absolute() || path.is_empty() {
        return None;
    }
    // Only what exists under the current directory is taken from there.
    std::fs::symlink_metadata(root.join(rel).join(typed)).ok()?;
    let mut parts: Vec<String> = Vec::new();
    for component in rel.join(typed).components() {
        match component {
            Component::Normal(part) => parts.push(part.to_string_lossy().into_owned()),
            Component::CurDir => {}
            // Above the root: left as typed, for the resolver to report as out of scope.
            Component::ParentDir => {
                parts.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    let mut out = if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    };
    if path.ends_with('/') && out != "." {
        out.push('/');
    }
    Some(out)
}

fn current_dir() -> Result<PathBuf, FrontError> {
    let cwd = std::env::current_dir()
        .map_err(|err| FrontError::failure(format!("cannot read the current directory: {err}")))?;
    canonical(&cwd)
}

fn canonical(dir: &Path) -> Result<PathBuf, FrontError> {
    setup::workspace_root(dir).map_err(|err| FrontError::usage(err.to_string()))
}

/// The nearest ancestor of `cwd` holding `.warden/`, else `.git`, else `cwd`.
pub fn discover(cwd: &Path) -> PathBuf {
    for marker in [".warden", ".git"] {
        if let Some(found) = cwd.ancestors().find(|dir| {
            let path = dir.join(marker);
            // `.git` is a file in a linked worktree.
            if marker == ".git" {
                path.exists()
            } else {
                path.is_dir()
            }
        }) {
            return found.to_owned();
        }
    }
    cwd.to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_marker_wins_and_warden_before_git() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("repo/.git")).unwrap();
        std::fs::create_dir_all(root.join("repo/proj/.warden")).unwrap();
        std::fs::create_dir_all(root.join("repo/proj/src/deep")).unwrap();
        std::fs::create_dir_all(root.join("repo/other")).unwrap();
        assert_eq!(
            discover(&root.join("repo/proj/src/deep")),
            root.join("repo/proj")
        );
        assert_eq!(discover(&root.join("repo/other")), root.join("repo"));
        let bare = tempfile::tempdir().unwrap();
        let bare = bare.path().canonicalize().unwrap();
        assert_eq!(discover(&bare), bare);
    }

    #[test]
    fn mentions_are_rebased_only_when_they_exist_under_the_current_directory() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/sub")).unwrap();
        std::fs::write(root.join("src/main.rs"), "").unwrap();
        std::fs::write(root.join("README.md"), "").unwrap();
        let rel = Path::new("src");
        assert_eq!(
            rebase_one(&root, rel, "main.rs").as_deref(),
            Some("src/main.rs")
        );
        assert_eq!(
            rebase_one(&root, rel, "../README.md").as_deref(),
            Some("README.md")
        );
        assert_eq!(rebase_one(&root, rel, "sub/").as_deref(), Some("src/sub/"));
        assert_eq!(rebase_one(&root, rel, "..").as_deref(), Some("."));
        assert_eq!(rebase_one(&root, rel, "README.md"), None);
        assert_eq!(rebase_one(&root, rel, "../.."), None);
        assert_eq!(rebase_one(&root, rel, "/etc/passwd"), None);
    }
}
