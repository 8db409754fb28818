//! The `git` escalation: a root's `.git` made writable for one command (`add`, `commit`,
//! `stash`, `checkout` …) while what could plant code stays out of its reach: `hooks/` and
//! `config` stay read-only (bound over the writable directory), and `commondir` and
//! `config.worktree` (which would point git at other configuration and hooks) stay
//! read-only where they exist, and are removed after the command where it made them.
//!
//! A `.git` that is a placeholder (the root has no repository), a file (a linked worktree)
//! or has no `config` stays read-only as a whole.

use std::path::{Path, PathBuf};

/// Inside a writable `.git`: what stays read-only.
const KEPT: &[&str] = &["hooks", "config", "commondir", "config.worktree"];
/// Of [`KEPT`], what is removed after the command when it made it.
const SWEPT: &[&str] = &["commondir", "config.worktree"];

/// What the `git` escalation opens for one command.
#[derive(Debug, Default)]
pub struct GitGrant {
    /// The `.git` directories made writable.
    pub opened: Vec<PathBuf>,
    /// Inside them, the paths bound read-only.
    pub kept: Vec<PathBuf>,
    /// Paths absent before the command, removed after it if it made them.
    absent: Vec<PathBuf>,
}

impl GitGrant {
    /// Open each root's `.git` that is a repository (not one of `placeholders`); its
    /// `hooks/` is created when missing, so that it can be bound read-only.
    pub fn open(roots: &[PathBuf], placeholders: &[PathBuf]) -> Result<Self, String> {
        let mut grant = Self::default();
        for root in roots {
            let git = root.join(".git");
            let is_dir = std::fs::symlink_metadata(&git).is_ok_and(|m| m.is_dir());
            if !is_dir || placeholders.contains(&git) || !git.join("config").is_file() {
                continue;
            }
            let hooks = git.join("hooks");
            if std::fs::symlink_metadata(&hooks).is_err() {
                std::fs::create_dir(&hooks).map_err(|e| {
                    format!("creating {} to keep it read-only: {e}", hooks.display())
                })?;
            }
            for name in KEPT {
                let path = git.join(name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    grant.kept.push(path);
                } else if SWEPT.contains(name) {
                    grant.absent.push(path);
                }
            }
            grant.opened.push(git);
        }
        Ok(grant)
    }

    /// `read_only` with the opened `.git` directories taken out and the kept paths added.
    pub fn apply(&self, read_only: Vec<PathBuf>) -> Vec<PathBuf> {
        let mut out: Vec<PathBuf> = read_only
            .into_iter()
            .filter(|p| !self.opened.contains(p))
            .collect();
        out.extend(self.kept.iter().cloned());
        out
    }

    /// After the command: remove what it made of the swept names; a note for each.
    pub fn sweep(&self) -> Vec<String> {
        self.absent
            .iter()
            .filter(|p| std::fs::symlink_metadata(p).is_ok())
            .map(|p| match remove(p) {
                Ok(()) => format!(
                    "removed {} that the command created (it would point git at other configuration or hooks)",
                    p.display()
                ),
                Err(err) => format!(
                    "the command created {}, which could not be removed: {err}; remove it before running git",
                    p.display()
                ),
            })
            .collect()
    }
}

fn remove(path: &Path) -> std::io::Result<()> {
    if std::fs::symlink_metadata(path)?.is_dir() {
        std::fs::remove_dir_all(path)
    } else {
        std::fs::remove_file(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_repository_opens_with_hooks_and_config_kept_and_a_placeholder_stays_closed() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("a");
        std::fs::create_dir_all(repo.join(".git")).unwrap();
        std::fs::write(repo.join(".git/config"), "").unwrap();
        let bare = dir.path().join("b");
        std::fs::create_dir_all(bare.join(".git")).unwrap();
        let roots = vec![repo.clone(), bare.clone()];
        let grant = GitGrant::open(&roots, &[bare.join(".git")]).unwrap();
        assert_eq!(grant.opened, [repo.join(".git")]);
        assert_eq!(
            grant.kept,
            [repo.join(".git/hooks"), repo.join(".git/config")]
        );
        assert!(repo.join(".git/hooks").is_dir());
        let ro = grant.apply(vec![
            repo.join(".git"),
            bare.join(".git"),
            repo.join(".warden"),
        ]);
        assert_eq!(
            ro,
            [
                bare.join(".git"),
                repo.join(".warden"),
                repo.join(".git/hooks"),
                repo.join(".git/config")
            ]
        );
        std::fs::write(repo.join(".git/commondir"), "../../elsewhere").unwrap();
        let notes = grant.sweep();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(!repo.join(".git/commondir").exists());
    }
}
