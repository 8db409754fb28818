//! The index of workspace paths offered for completion: exactly the entries a `list_files` of
//! the workspace root would show with no cap (gitignored, denied and `.git` entries left out,
//! symlinks listed but not followed).
//!
//! The paths are kept in two arenas (one `String` of every path back to back, one of the same
//! lower-cased) with a small fixed-size slot per entry, so a million paths cost a few tens of
//! megabytes and no allocation each; [`Entry`] is a view into them.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering as AtomicOrdering};

use warden_rules::deny::Deny;

use super::walk;

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
    /// The paths hold more than the index can address (4 GiB of path text).
    #[error("too many paths to index: more than 4 GiB of path names")]
    TooLarge,
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

/// One indexed path, borrowed from its [`Index`].
#[derive(Debug, Clone, Copy)]
pub struct Entry<'a> {
    /// Root-relative path, components joined by `/`, no trailing `/`.
    pub path: &'a str,
    /// File or directory.
    pub kind: Kind,
    /// `path` in lower case (ASCII and Unicode simple folding), for matching.
    pub(super) lower: &'a str,
    /// Byte offset of the last component in `path` and `lower` (0 when lower-casing changed
    /// the length: the whole path is matched then).
    pub(super) name_at: usize,
    /// Number of `/` in `path`.
    pub(super) depth: usize,
}

impl Entry<'_> {
    /// The path as listings show it: a directory ends with `/`.
    pub fn display(&self) -> String {
        match self.kind {
            Kind::Dir => format!("{}/", self.path),
            Kind::File => self.path.to_owned(),
        }
    }

    /// The last component.
    pub fn name(&self) -> &str {
        self.path.get(self.name_at..).unwrap_or(self.path)
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

/// A new index identity (0 is the empty default index's).
fn next_id() -> u64 {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, AtomicOrdering::Relaxed)
}

/// Where one entry's path and lower-case path lie in the arenas.
#[derive(Debug, Clone, Copy)]
struct Slot {
    start: u32,
    len: u32,
    lower_start: u32,
    lower_len: u32,
    name_at: u32,
    depth: u32,
    kind: Kind,
}

/// Paths gathered by one walker, appended to as they are found.
#[derive(Debug, Default)]
pub(super) struct Arena {
    text: String,
    lower: String,
    slots: Vec<Slot>,
    /// Set once the text outgrew what a `u32` offset addresses.
    overflowed: bool,
}

impl Arena {
    /// Add the root-relative `path` (no trailing `/`) of kind `kind`.
    pub(super) fn push(&mut self, path: &str, kind: Kind) {
        let start = self.text.len();
        let lower_start = self.lower.len();
        self.text.push_str(path);
        if path.is_ascii() {
            let from = self.lower.len();
            self.lower.push_str(path);
            self.lower[from..].make_ascii_lowercase();
        } else {
            self.lower.push_str(&path.to_lowercase());
        }
        let lower_len = self.lower.len() - lower_start;
        // Lower-casing can change byte lengths; fall back to matching the whole path then.
        let name_at = if lower_len == path.len() {
            path.rfind('/').map_or(0, |i| i + 1)
        } else {
            0
        };
        let depth = memchr::memchr_iter(b'/', path.as_bytes()).count();
        let fits = |n: usize| u32::try_from(n).ok();
        match (
            fits(start),
            fits(path.len()),
            fits(lower_start),
            fits(lower_len),
            fits(name_at),
            fits(depth),
            fits(self.text.len()),
            fits(self.lower.len()),
        ) {
            (
                Some(start),
                Some(len),
                Some(lower_start),
                Some(lower_len),
                Some(name_at),
                Some(depth),
                Some(_),
                Some(_),
            ) => self.slots.push(Slot {
                start,
                len,
                lower_start,
                lower_len,
                name_at,
                depth,
                kind,
            }),
            _ => {
                self.text.truncate(start);
                self.lower.truncate(lower_start);
                self.overflowed = true;
            }
        }
    }
}

/// Every completable path of one workspace (in no particular order: the ranker orders what it
/// offers).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Unique to this build (a clone shares it: same entries).
    id: u64,
    text: String,
    lower: String,
    slots: Vec<Slot>,
}

impl Index {
    /// List `root` with the resolver's rules and the deny globs `deny` (the configured
    /// `fileref.deny`), walking directories on every core.
    pub fn build(root: &Path, deny: &[String]) -> Result<Self, CompleteError> {
        let deny = Deny::new(deny).map_err(CompleteError::Deny)?;
        let arenas =
            walk::walk(root, &deny, walk::threads()).map_err(|source| CompleteError::Io {
                path: root.to_owned(),
                source,
            })?;
        Self::merge(arenas)
    }

    /// An index of `entries` as a listing prints them (directories end with `/`). Entries
    /// past 4 GiB of path text are left out ([`Index::build`] fails instead).
    pub fn from_listed<S: AsRef<str>>(entries: &[S]) -> Self {
        let mut arena = Arena::default();
        for listed in entries {
            let listed = listed.as_ref();
            match listed.strip_suffix('/') {
                Some(dir) => arena.push(dir, Kind::Dir),
                None => arena.push(listed, Kind::File),
            }
        }
        arena.overflowed = false;
        Self::merge(vec![arena]).unwrap_or_default()
    }

    /// One index of the walkers' arenas.
    pub(super) fn merge(mut arenas: Vec<Arena>) -> Result<Self, CompleteError> {
        if arenas.iter().any(|a| a.overflowed) {
            return Err(CompleteError::TooLarge);
        }
        let text: usize = arenas.iter().map(|a| a.text.len()).sum();
        let lower: usize = arenas.iter().map(|a| a.lower.len()).sum();
        if u32::try_from(text).is_err() || u32::try_from(lower).is_err() {
            return Err(CompleteError::TooLarge);
        }
        if arenas.is_empty() {
            return Ok(Self::default());
        }
        // The largest arena is kept and the others are appended to it.
        let largest = (0..arenas.len())
            .max_by_key(|&i| arenas[i].text.len())
            .unwrap_or(0);
        let first = arenas.swap_remove(largest);
        let mut index = Self {
            id: next_id(),
            text: first.text,
            lower: first.lower,
            slots: first.slots,
        };
        index.text.reserve_exact(text - index.text.len());
        index.lower.reserve_exact(lower - index.lower.len());
        index
            .slots
            .reserve_exact(arenas.iter().map(|a| a.slots.len()).sum());
        for arena in arenas {
            // Both totals fit in a u32 (checked above), so every shifted offset does too.
            let (shift, lower_shift) = (index.text.len() as u32, index.lower.len() as u32);
            index.text.push_str(&arena.text);
            index.lower.push_str(&arena.lower);
            index.slots.extend(arena.slots.iter().map(|s| Slot {
                start: s.start + shift,
                lower_start: s.lower_start + lower_shift,
                ..*s
            }));
        }
        Ok(index)
    }

    /// What tells this index from another one (its clones share it).
    pub(super) fn id(&self) -> u64 {
        self.id
    }

    /// Entry number `i` (`0..len()`).
    pub(super) fn entry(&self, i: usize) -> Option<Entry<'_>> {
        let slot = self.slots.get(i)?;
        let at = |s: u32, l: u32| s as usize..s as usize + l as usize;
        Some(Entry {
            path: self.text.get(at(slot.start, slot.len))?,
            kind: slot.kind,
            lower: self.lower.get(at(slot.lower_start, slot.lower_len))?,
            name_at: slot.name_at as usize,
            depth: slot.depth as usize,
        })
    }

    /// The lower-case arena: every entry's lower-case path back to back, in entry order
    /// (entry `i + 1` starts where entry `i` ends; [`Index::merge`] keeps it so).
    pub(super) fn lower_arena(&self) -> &[u8] {
        self.lower.as_bytes()
    }

    /// Where entry `i`'s lower-case path starts and ends in [`Index::lower_arena`].
    pub(super) fn lower_bounds(&self, i: usize) -> Option<(usize, usize)> {
        let slot = self.slots.get(i)?;
        let start = slot.lower_start as usize;
        Some((start, start + slot.lower_len as usize))
    }

    /// The entries.
    pub fn entries(&self) -> impl Iterator<Item = Entry<'_>> {
        (0..self.slots.len()).filter_map(|i| self.entry(i))
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// True when nothing is completable.
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Whether the lower-case `lower` (no trailing `/`) is an indexed directory's lower-case
    /// path.
    pub(super) fn is_dir_lower(&self, lower: &str) -> bool {
        self.slots.iter().any(|slot| {
            slot.kind == Kind::Dir
                && slot.lower_len as usize == lower.len()
                && self
                    .lower
                    .get(slot.lower_start as usize..slot.lower_start as usize + lower.len())
                    == Some(lower)
        })
    }

    /// Whether `path` (no trailing `/`) is an indexed directory.
    pub fn is_dir(&self, path: &str) -> bool {
        self.entries()
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
        let mut listed: Vec<String> = index.entries().map(|e| e.display()).collect();
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
        let index = Index::from_listed(&["a/", "a/My File.md", "Ä/İx"]);
        let entries: Vec<Entry<'_>> = index.entries().collect();
        assert_eq!(entries[0].kind, Kind::Dir);
        assert_eq!(entries[1].name(), "My File.md");
        assert_eq!(entries[1].lower, "a/my file.md");
        assert_eq!(entries[1].depth, 1);
        assert_eq!(entries[2].lower, "Ä/İx".to_lowercase());
        assert_eq!(entries[2].name(), "Ä/İx", "lower case grew: whole path");
        assert!(index.is_dir("a"));
        assert!(!index.is_dir("a/My File.md"));
    }

    #[test]
    fn merged_arenas_keep_every_path() {
        let mut a = Arena::default();
        a.push("x/one", Kind::File);
        let mut b = Arena::default();
        b.push("Y", Kind::Dir);
        b.push("Y/two", Kind::File);
        let index = Index::merge(vec![a, b]).unwrap();
        let shown: Vec<(String, &str)> = index.entries().map(|e| (e.display(), e.lower)).collect();
        assert_eq!(
            shown,
            vec![
                ("Y/".to_owned(), "y"),
                ("Y/two".to_owned(), "y/two"),
                ("x/one".to_owned(), "x/one")
            ]
        );
        // The ranker's arena scan relies on the lower-case paths lying back to back.
        let bounds: Vec<(usize, usize)> = (0..index.len())
            .filter_map(|i| index.lower_bounds(i))
            .collect();
        assert!(bounds.windows(2).all(|w| w[0].1 == w[1].0), "{bounds:?}");
        assert_eq!(bounds.last().map(|b| b.1), Some(index.lower_arena().len()));
    }

    #[test]
    fn a_bad_deny_glob_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let err = Index::build(dir.path(), &["a[".to_owned()]).unwrap_err();
        assert!(err.to_string().contains("a["), "{err}");
    }
}
