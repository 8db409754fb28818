//! The `git` escalation: a root's `.git` made writable for one command (`add`, `commit`,
//! `stash`, `checkout` …) while what could plant code stays out of its reach: `hooks/` and
//! `config` stay read-only (bound over the writable directory), and `commondir` and
//! `config.worktree` (which would point git at other configuration and hooks) stay
//! read-only where they exist. The rest of what makes git run code is checked after the
//! command and put back ([`git_state`](super::git_state)); the directory itself is pinned
//! ([`git_pin`](super::git_pin)).
//!
//! A `.git` that is a placeholder (the root has no repository), a file (a linked worktree)
//! or has no `config` stays read-only as a whole.

use std::path::PathBuf;

/// Inside a writable `.git`: what stays read-only.
const KEPT: &[&str] = &["hooks", "config", "commondir", "config.worktree"];

/// What the `git` escalation opens for one command.
#[derive(Debug, Default)]
pub struct GitGrant {
    /// The `.git` directories made writable.
    pub opened: Vec<PathBuf>,
    /// Inside them, the paths bound read-only.
    pub kept: Vec<PathBuf>,
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
    }
}
