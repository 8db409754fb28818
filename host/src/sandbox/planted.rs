//! Repositories a command created under the roots: the kernel cannot refuse a `.git` made
//! inside a writable directory, so after each sandboxed command the roots are walked again and
//! every `.git` that was not there before is renamed aside (`.git-planted-<id>`), never
//! deleted: git no longer finds it (no hook, no `core.fsmonitor` of it runs), the checkpoint
//! scan records what it holds as created files (so `warden undo` removes them), and the
//! command's result names it.

use std::path::{Path, PathBuf};

use super::hidden::hidden_and_repos;

/// Rename aside every `.git` under `roots` not in `before`; one line per repository for the
/// result of the call, saying that `who` (`the command`, `the server`) created it.
pub fn move_aside(before: &[PathBuf], roots: &[PathBuf], who: &str) -> Vec<String> {
    let after = match hidden_and_repos(&[], None, roots, &[]) {
        Ok(found) => found.names,
        Err(err) => {
            return vec![format!(
                "repositories {who} may have created were not looked for: {err}"
            )];
        }
    };
    after
        .iter()
        .filter(|path| !before.contains(path))
        .map(|path| aside(path, roots, who))
        .collect()
}

fn aside(path: &Path, roots: &[PathBuf], who: &str) -> String {
    let shown = |p: &Path| {
        roots
            .iter()
            .find_map(|r| p.strip_prefix(r).ok())
            .unwrap_or(p)
            .display()
            .to_string()
    };
    let id = uuid::Uuid::now_v7().simple().to_string();
    let to = path.with_file_name(format!(".git-planted-{}", &id[id.len() - 8..]));
    match std::fs::rename(path, &to) {
        Ok(()) => format!(
            "{who} created a repository at {}: moved aside to {} so that git does not use it (its hooks and config never run; `warden undo` removes its files)",
            shown(path),
            shown(&to)
        ),
        Err(err) => {
            tracing::warn!("moving {} aside: {err}", path.display());
            format!(
                "{who} created a repository at {} that could not be moved aside ({err}): check it before running git there",
                shown(path)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_repositories_are_moved_aside() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join("old/.git")).unwrap();
        let before = hidden_and_repos(&[], None, std::slice::from_ref(&root), &[])
            .unwrap()
            .names;
        std::fs::create_dir_all(root.join("new/.git/hooks")).unwrap();
        std::fs::write(root.join("new/.git/hooks/pre-commit"), "x").unwrap();
        let lines = move_aside(&before, std::slice::from_ref(&root), "the command");
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(lines[0].contains("new/.git"), "{lines:?}");
        assert!(root.join("old/.git").is_dir());
        assert!(!root.join("new/.git").exists());
        let moved: Vec<_> = std::fs::read_dir(root.join("new"))
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert!(moved[0].starts_with(".git-planted-"), "{moved:?}");
    }
}
