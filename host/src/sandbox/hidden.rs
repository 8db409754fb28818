//! Which paths a sandboxed command must not read: the configured `[tools.shell] hide` list
//! (`~/` under the home directory, relative paths under each workspace root) and every
//! workspace path the deny globs deny (`.env`, `*.pem`, ...), found by walking the roots. A
//! `.git` is not hidden (commands such as `git status` read it); the same walk collects every
//! `.git` under the roots (a nested repository's too) and, for a gitfile (`gitdir: …`) or a
//! symbolic link, the repository it points to when that lies under a root, to be bound
//! read-only instead (outside the roots Landlock already refuses writes).

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use warden_rules::deny::Deny;

/// Most entries walked to find the denied paths; a larger workspace is refused rather than
/// half-hidden.
pub const MAX_SCAN_ENTRIES: usize = 200_000;

/// Longest gitfile read, in bytes.
const MAX_GITFILE_BYTES: u64 = 4096;

/// What one walk of the roots found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Found {
    /// The existing paths to hide, absolute.
    pub hide: Vec<PathBuf>,
    /// Every `.git` under the roots and the repositories gitfiles point to under them.
    pub repos: Vec<PathBuf>,
    /// Every entry named `.git` under the roots (directory, gitfile or symbolic link).
    pub names: Vec<PathBuf>,
}

/// The existing paths to hide, absolute.
pub fn hidden_paths(
    hide: &[String],
    home: Option<&Path>,
    roots: &[PathBuf],
    deny: &[String],
) -> Result<Vec<PathBuf>, String> {
    Ok(hidden_and_repos(hide, home, roots, deny)?.hide)
}

/// The existing paths to hide and the repositories to keep read-only, absolute.
pub fn hidden_and_repos(
    hide: &[String],
    home: Option<&Path>,
    roots: &[PathBuf],
    deny: &[String],
) -> Result<Found, String> {
    let mut out = Vec::new();
    for entry in hide {
        let candidates: Vec<PathBuf> = if entry == "~" {
            home.map(Path::to_path_buf).into_iter().collect()
        } else if let Some(rest) = entry.strip_prefix("~/") {
            home.map(|h| h.join(rest)).into_iter().collect()
        } else if Path::new(entry).is_absolute() {
            vec![PathBuf::from(entry)]
        } else {
            roots.iter().map(|r| r.join(entry)).collect()
        };
        for path in candidates {
            if std::fs::symlink_metadata(&path).is_ok() && !out.contains(&path) {
                out.push(path);
            }
        }
    }
    let mut walk = Walk {
        rules: Deny::new(deny)?,
        roots,
        found: Found {
            hide: out,
            ..Found::default()
        },
        scanned: 0,
    };
    for root in roots {
        walk.dir(root, "")?;
    }
    Ok(walk.found)
}

struct Walk<'a> {
    rules: Deny,
    roots: &'a [PathBuf],
    found: Found,
    scanned: usize,
}

impl Walk<'_> {
    /// A `.git` found at `path`: itself, and what it points to under a root.
    fn repo(&mut self, path: PathBuf, kind: std::fs::FileType) {
        self.found.names.push(path.clone());
        let target = if kind.is_file() {
            gitfile_target(&path)
        } else if kind.is_symlink() {
            std::fs::canonicalize(&path).ok()
        } else {
            None
        };
        let under_root = |p: &PathBuf| self.roots.iter().any(|r| p.starts_with(r) && p != r);
        if let Some(target) = target.filter(under_root)
            && !self.found.repos.contains(&target)
        {
            self.found.repos.push(target);
        }
        if !kind.is_symlink() && !self.found.repos.contains(&path) {
            self.found.repos.push(path);
        }
    }

    fn dir(&mut self, dir: &Path, rel: &str) -> Result<(), String> {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return Ok(());
        };
        for entry in entries.flatten() {
            self.scanned += 1;
            if self.scanned > MAX_SCAN_ENTRIES {
                return Err(format!(
                    "the workspace holds more than {MAX_SCAN_ENTRIES} entries: the paths its deny globs deny cannot all be hidden from the command, so it was not run"
                ));
            }
            let name = entry.file_name().to_string_lossy().into_owned();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            let path = entry.path();
            if name.eq_ignore_ascii_case(".git") {
                self.repo(path, kind);
                continue;
            }
            let child = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            if kind.is_dir() {
                if self.rules.dir(&child) {
                    self.found.hide.push(path);
                } else {
                    self.dir(&path, &child)?;
                }
            } else if self.rules.file(&child) {
                self.found.hide.push(path);
            }
        }
        Ok(())
    }
}

/// The directory a gitfile (`gitdir: PATH`, relative to the file's directory) names, canonical.
pub(super) fn gitfile_target(path: &Path) -> Option<PathBuf> {
    use std::io::Read;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
        .ok()?;
    if !file.metadata().ok()?.is_file() {
        return None;
    }
    let mut text = String::new();
    file.take(MAX_GITFILE_BYTES)
        .read_to_string(&mut text)
        .ok()?;
    let named = text.lines().next()?.strip_prefix("gitdir:")?.trim();
    let target = path.parent()?.join(named);
    std::fs::canonicalize(target).ok().filter(|t| t.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configured_and_denied_paths_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("ws");
        let home = dir.path().join("home");
        std::fs::create_dir_all(root.join("sub/keys")).unwrap();
        std::fs::create_dir_all(root.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(home.join(".ssh")).unwrap();
        std::fs::write(root.join(".env"), "T=1").unwrap();
        std::fs::write(root.join("sub/server.pem"), "k").unwrap();
        std::fs::write(root.join("sub/ok.txt"), "k").unwrap();
        std::fs::write(root.join(".git/config"), "k").unwrap();
        let deny = warden_defaults::DEFAULT_DENY
            .iter()
            .map(|s| (*s).to_owned())
            .chain(["sub/keys".to_owned()])
            .collect::<Vec<_>>();
        let mut found = hidden_paths(
            &["~/.ssh".to_owned(), "~/.aws".to_owned()],
            Some(&home),
            std::slice::from_ref(&root),
            &deny,
        )
        .unwrap();
        found.sort();
        let mut expected = vec![
            home.join(".ssh"),
            root.join(".env"),
            root.join("sub/keys"),
            root.join("sub/server.pem"),
        ];
        expected.sort();
        assert_eq!(found, expected);
    }

    #[test]
    fn every_repository_and_a_gitfiles_target_under_the_roots_are_found() {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::canonicalize(dir.path()).unwrap();
        let root = base.join("ws");
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::create_dir_all(root.join("vendor/lib/.git/hooks")).unwrap();
        std::fs::create_dir_all(root.join("store/sub.git")).unwrap();
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/.git"), "gitdir: ../store/sub.git\n").unwrap();
        std::fs::create_dir_all(base.join("elsewhere.git")).unwrap();
        std::fs::create_dir_all(root.join("far")).unwrap();
        std::fs::write(root.join("far/.git"), "gitdir: ../../elsewhere.git\n").unwrap();
        let mut found = hidden_and_repos(&[], None, std::slice::from_ref(&root), &[])
            .unwrap()
            .repos;
        found.sort();
        let mut expected = vec![
            root.join(".git"),
            root.join("vendor/lib/.git"),
            root.join("sub/.git"),
            root.join("store/sub.git"),
            root.join("far/.git"),
        ];
        expected.sort();
        assert_eq!(found, expected);
    }
}
