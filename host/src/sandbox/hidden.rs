//! Which paths a sandboxed command must not read: the configured `[tools.shell] hide` list
//! (`~/` under the home directory, relative paths under each workspace root) and every
//! workspace path the deny globs deny (`.env`, `*.pem`, ...), found by walking the roots. The
//! `.git` directory is not hidden (commands such as `git status` read it); it is bound
//! read-only instead.

use std::path::{Path, PathBuf};

use warden_rules::deny::Deny;

/// Most entries walked to find the denied paths; a larger workspace is refused rather than
/// half-hidden.
pub const MAX_SCAN_ENTRIES: usize = 200_000;

/// The existing paths to hide, absolute.
pub fn hidden_paths(
    hide: &[String],
    home: Option<&Path>,
    roots: &[PathBuf],
    deny: &[String],
) -> Result<Vec<PathBuf>, String> {
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
    let rules = Deny::new(deny)?;
    let mut scanned = 0usize;
    for root in roots {
        walk(root, "", &rules, &mut out, &mut scanned)?;
    }
    Ok(out)
}

fn walk(
    dir: &Path,
    rel: &str,
    rules: &Deny,
    out: &mut Vec<PathBuf>,
    scanned: &mut usize,
) -> Result<(), String> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    for entry in entries.flatten() {
        *scanned += 1;
        if *scanned > MAX_SCAN_ENTRIES {
            return Err(format!(
                "the workspace holds more than {MAX_SCAN_ENTRIES} entries: the paths its deny globs deny cannot all be hidden from the command, so it was not run"
            ));
        }
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.eq_ignore_ascii_case(".git") {
            continue;
        }
        let path = entry.path();
        let child = if rel.is_empty() {
            name
        } else {
            format!("{rel}/{name}")
        };
        let Ok(kind) = entry.file_type() else {
            continue;
        };
        if kind.is_dir() {
            if rules.dir(&child) {
                out.push(path);
            } else {
                walk(&path, &child, rules, out, scanned)?;
            }
        } else if rules.file(&child) {
            out.push(path);
        }
    }
    Ok(())
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
}
