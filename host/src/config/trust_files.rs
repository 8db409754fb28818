//! The workspace files a project's `[[mcp]]` server runs, hashed into the trust digest: each
//! argument of its command that names a regular file inside the workspace root (the script,
//! relative to the root or absolute), and each file under the root matching one of its
//! `trust_files` globs. A file is named by its path relative to the root (symbolic links
//! resolved); the walk for globs skips `.git`, does not follow links to directories, and
//! stops after [`MAX_WALKED`] entries (said in the result, so that the digest still changes
//! when files do within that bound).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most directory entries the walk for `trust_files` globs visits.
pub const MAX_WALKED: usize = 20_000;

/// `relative path -> sha256` of the workspace files `argv` names and `globs` match under
/// `root`; `digest` hashes one file (as component files are hashed).
pub(crate) fn workspace_files(
    root: &Path,
    argv: &[String],
    globs: &[String],
    digest: &dyn Fn(&Path) -> String,
) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(root) = std::fs::canonicalize(root) else {
        return out;
    };
    for arg in argv {
        if arg.is_empty() || arg.starts_with('-') {
            continue;
        }
        let candidate = root.join(arg);
        if let Some(rel) = inside(&root, &candidate) {
            out.insert(rel, digest(&candidate));
        }
    }
    if globs.is_empty() {
        return out;
    }
    let mut builder = globset::GlobSetBuilder::new();
    for glob in globs {
        // Checked when the entry was read; one that does not compile matches nothing.
        if let Ok(compiled) = globset::GlobBuilder::new(glob)
            .literal_separator(true)
            .build()
        {
            builder.add(compiled);
        }
    }
    let Ok(set) = builder.build() else {
        return out;
    };
    let mut walked = 0usize;
    let mut stack: Vec<PathBuf> = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            walked += 1;
            if walked > MAX_WALKED {
                out.insert(
                    format!("(more than {MAX_WALKED} entries under the root: not all hashed)"),
                    String::new(),
                );
                return out;
            }
            let path = entry.path();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                if entry.file_name() != ".git" {
                    stack.push(path);
                }
                continue;
            }
            let Ok(rel) = path.strip_prefix(&root) else {
                continue;
            };
            if set.is_match(rel)
                && let Some(rel) = inside(&root, &path)
            {
                out.insert(rel, digest(&path));
            }
        }
    }
    out
}

/// `path` relative to `root` (canonical) if it resolves to a regular file inside it.
fn inside(root: &Path, path: &Path) -> Option<String> {
    let real = std::fs::canonicalize(path).ok()?;
    let rel = real.strip_prefix(root).ok()?;
    if rel.as_os_str().is_empty() || !std::fs::metadata(&real).ok()?.is_file() {
        return None;
    }
    Some(rel.to_string_lossy().into_owned())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn len(path: &Path) -> String {
        std::fs::metadata(path).map_or(0, |m| m.len()).to_string()
    }

    #[test]
    fn the_script_and_matching_files_inside_the_root_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("w");
        std::fs::create_dir_all(root.join("lib/deep")).unwrap();
        std::fs::create_dir_all(root.join(".git")).unwrap();
        std::fs::write(root.join("srv.py"), "1").unwrap();
        std::fs::write(root.join("lib/a.py"), "22").unwrap();
        std::fs::write(root.join("lib/deep/b.py"), "333").unwrap();
        std::fs::write(root.join(".git/c.py"), "4444").unwrap();
        std::fs::write(dir.path().join("outside.py"), "x").unwrap();
        let argv: Vec<String> = ["python3", "srv.py", "--flag", "../outside.py", "lib"]
            .map(str::to_owned)
            .to_vec();
        let files = workspace_files(&root, &argv, &[], &len);
        assert_eq!(files.keys().collect::<Vec<_>>(), ["srv.py"]);
        let globs = ["lib/*.py".to_owned()];
        let files = workspace_files(&root, &argv, &globs, &len);
        assert_eq!(files.keys().collect::<Vec<_>>(), ["lib/a.py", "srv.py"]);
        let globs = ["**/*.py".to_owned()];
        let files = workspace_files(&root, &[], &globs, &len);
        assert_eq!(
            files.keys().collect::<Vec<_>>(),
            ["lib/a.py", "lib/deep/b.py", "srv.py"]
        );
        // An absolute path inside the root counts; a link out of it does not.
        std::os::unix::fs::symlink(dir.path().join("outside.py"), root.join("link.py")).unwrap();
        let argv = [root.join("srv.py").display().to_string(), "link.py".into()];
        let files = workspace_files(&root, &argv, &[], &len);
        assert_eq!(files.keys().collect::<Vec<_>>(), ["srv.py"]);
    }
}
