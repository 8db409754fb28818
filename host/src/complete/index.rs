//! The index of workspace paths offered for completion: exactly the entries a `list_files` of
//! the workspace root would show with no cap (gitignored, denied and `.git` entries left out,
//! symlinks listed but not followed).

use std::path::{Path, PathBuf};

use warden_rules::{deny::Deny, listing};

/// Why an index could not be built.
#[derive(Debug, thiserror::Error)]
pub enum CompleteError {
    /// A deny glob does not compile.
    #[error("{0}")]
    Deny(String),
    /// The workspace root cannot be listed.
    #[error("cannot list {}: {source}", path.display())]
    Io {
        /// The workspace root.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
}

/// What an indexed path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// A file (or a symlink, which completion does not follow).
    File,
    /// A directory.
    Dir,
}

/// One indexed path.
#[derive(Debug, Clone)]
pub struct Entry {
    /// Root-relative path, components joined by `/`, no trailing `/`.
    pub path: String,
    /// File or directory.
    pub kind: Kind,
    /// `path` in lower case (ASCII and Unicode simple folding), for matching.
    pub(super) lower: String,
    /// Byte offset of the last component in `path` and `lower`.
    pub(super) name_at: usize,
    /// Number of `/` in `path`.
    pub(super) depth: usize,
}

impl Entry {
    fn new(listed: &str) -> Self {
        let (path, kind) = match listed.strip_suffix('/') {
            Some(dir) => (dir.to_owned(), Kind::Dir),
            None => (listed.to_owned(), Kind::File),
        };
        let lower = lowercase(&path);
        // Lower-casing can change byte lengths; fall back to matching the whole path then.
        let name_at = if lower.len() == path.len() {
            path.rfind('/').map_or(0, |i| i + 1)
        } else {
            0
        };
        let depth = path.matches('/').count();
        Self {
            path,
            kind,
            lower,
            name_at,
            depth,
        }
    }

    /// The path as listings show it: a directory ends with `/`.
    pub fn display(&self) -> String {
        match self.kind {
            Kind::Dir => format!("{}/", self.path),
            Kind::File => self.path.clone(),
        }
    }

    /// The last component.
    pub fn name(&self) -> &str {
        self.path.get(self.name_at..).unwrap_or(&self.path)
    }
}

/// Lower case used by the index and the ranker alike.
pub(super) fn lowercase(s: &str) -> String {
    if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.to_lowercase()
    }
}

/// Every completable path of one workspace, breadth first (the top of the tree first).
#[derive(Debug, Clone, Default)]
pub struct Index {
    entries: Vec<Entry>,
}

impl Index {
    /// List `root` with the resolver's rules and the deny globs `deny` (the configured
    /// `fileref.deny`).
    pub fn build(root: &Path, deny: &[String]) -> Result<Self, CompleteError> {
        let deny = Deny::new(deny).map_err(CompleteError::Deny)?;
        let mut listed = listing::list(root, "", root, &deny, usize::MAX).map_err(|source| {
            CompleteError::Io {
                path: root.to_owned(),
                source,
            }
        })?;
        listed.sort();
        Ok(Self::from_listed(&listed.entries))
    }

    /// An index of `entries` as a listing prints them (directories end with `/`).
    pub fn from_listed<S: AsRef<str>>(entries: &[S]) -> Self {
        Self {
            entries: entries.iter().map(|e| Entry::new(e.as_ref())).collect(),
        }
    }

    /// The entries, breadth first.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// True when nothing is completable.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `path` (no trailing `/`) is an indexed directory.
    pub fn is_dir(&self, path: &str) -> bool {
        self.entries
            .iter()
            .any(|e| e.kind == Kind::Dir && e.path == path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(files: &[(&str, &str)], deny: &[&str]) -> Vec<String> {
        let dir = tempfile::tempdir().unwrap();
        for (path, body) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, body).unwrap();
        }
        let deny: Vec<String> = deny.iter().map(|s| (*s).to_owned()).collect();
        let index = Index::build(dir.path(), &deny).unwrap();
        let mut listed: Vec<String> = index.entries().iter().map(Entry::display).collect();
        listed.sort();
        listed
    }

    #[test]
    fn follows_gitignore_and_deny_globs() {
        let listed = build(
            &[
                (".gitignore", "*.log\ntarget/\n"),
                ("src/main.rs", ""),
                ("src/debug.log", ""),
                ("target/out", ""),
                (".env", ""),
                ("sub/.gitignore", "!keep.log\n"),
                ("sub/keep.log", ""),
                (".git/config", ""),
            ],
            &[".git/**", ".env"],
        );
        assert_eq!(
            listed,
            vec![
                ".gitignore",
                "src/",
                "src/main.rs",
                "sub/",
                "sub/.gitignore",
                "sub/keep.log"
            ]
        );
    }

    #[test]
    fn names_and_kinds() {
        let index = Index::from_listed(&["a/", "a/My File.md"]);
        let entries = index.entries();
        assert_eq!(entries[0].kind, Kind::Dir);
        assert_eq!(entries[1].name(), "My File.md");
        assert_eq!(entries[1].lower, "a/my file.md");
        assert!(index.is_dir("a"));
        assert!(!index.is_dir("a/My File.md"));
    }

    #[test]
    fn a_bad_deny_glob_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = Index::build(dir.path(), &["a[".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("a["), "{err}");
    }
}
