//! The files of a workspace root as the kernel names them: a breadth-first walk with the
//! listing rules of `warden_rules::listing` (`.git` skipped, gitignored and denied entries
//! left out, symlinks never followed), whose names are bytes. A name that is not UTF-8, or
//! that holds a newline or a control character, is walked like any other; the ignore and
//! deny globs are matched against its text with each invalid byte as U+FFFD.

use std::collections::VecDeque;
use std::ffi::OsString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use warden_rules::deny::Deny;
use warden_rules::gitignore::{IgnoreFile, IgnoreStack};

/// What a walk found.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Walked {
    /// Root-relative names of the regular files (and symlinks, never followed), components
    /// joined by `/`, in walk order.
    pub(crate) files: Vec<OsString>,
    /// Root-relative names of the directories walked (the root aside), in walk order.
    pub(crate) dirs: Vec<OsString>,
    /// Entries past `max_entries` were left out.
    pub(crate) omitted: bool,
}

/// The files under `root`, at most `max_entries` entries (directories count) in
/// breadth-first order. An error only when `root` itself cannot be read.
pub(crate) fn files(root: &Path, deny: &Deny, max_entries: usize) -> io::Result<Walked> {
    let mut out = Walked::default();
    let mut entries = 0usize;
    let mut queue: VecDeque<(PathBuf, OsString, IgnoreStack)> = VecDeque::new();
    queue.push_back((root.to_path_buf(), OsString::new(), IgnoreStack::default()));
    let mut first = true;
    while let Some((dir, rel, stack)) = queue.pop_front() {
        let rel_text = String::from_utf8_lossy(rel.as_bytes()).into_owned();
        let stack = match IgnoreFile::load(&dir, &rel_text) {
            Some(file) => stack.with(file),
            None => stack,
        };
        let mut names = match read_sorted(&dir) {
            Ok(names) => names,
            Err(e) if first => return Err(e),
            Err(_) => continue,
        };
        first = false;
        names.sort();
        for (name, kind) in names {
            if name.as_bytes() == b".git" {
                continue;
            }
            let is_dir = kind == Kind::Dir;
            let entry_rel = join(&rel, &name);
            let text = String::from_utf8_lossy(entry_rel.as_bytes());
            if stack.is_ignored(&text, is_dir) {
                continue;
            }
            let denied = if is_dir {
                deny.dir(&text)
            } else {
                deny.file(&text)
            };
            if denied {
                continue;
            }
            if entries >= max_entries {
                out.omitted = true;
                return Ok(out);
            }
            entries += 1;
            match kind {
                Kind::Dir => {
                    out.dirs.push(entry_rel.clone());
                    queue.push_back((dir.join(&name), entry_rel, stack.clone()));
                }
                Kind::File => out.files.push(entry_rel),
                Kind::Other => {}
            }
        }
    }
    Ok(out)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Kind {
    Dir,
    File,
    Other,
}

/// The entries of `dir`: name and kind (a symlink is a file: never followed, and the scan
/// opens it without following it).
fn read_sorted(dir: &Path) -> io::Result<Vec<(OsString, Kind)>> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let t = entry.file_type()?;
        let kind = if t.is_dir() {
            Kind::Dir
        } else if t.is_file() || t.is_symlink() {
            Kind::File
        } else {
            Kind::Other
        };
        out.push((entry.file_name(), kind));
    }
    Ok(out)
}

fn join(base: &OsString, name: &OsString) -> OsString {
    if base.is_empty() {
        return name.clone();
    }
    let mut out = base.clone();
    out.push("/");
    out.push(name);
    out
}

#[cfg(test)]
mod tests {
    use std::ffi::OsStr;

    use super::*;

    #[test]
    fn names_of_any_bytes_are_walked_and_rules_still_apply() {
        let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let root = tmp.path();
        std::fs::create_dir_all(root.join("d/.git")).unwrap_or_default();
        std::fs::create_dir_all(root.join(OsStr::from_bytes(b"sub\xff"))).unwrap_or_default();
        for name in [
            &b"a\xff.yml"[..],
            b"nl\nname",
            b"esc\x1b[2J",
            b"sub\xff/inner\xfe",
            b"d/.git/x",
            b"ignored\xff.log",
            b".env",
        ] {
            std::fs::write(root.join(OsStr::from_bytes(name)), b"x").unwrap_or_default();
        }
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap_or_default();
        let deny = Deny::new(&[".env".to_owned()]).unwrap_or_else(|e| panic!("{e}"));
        let walked = files(root, &deny, 100).unwrap_or_default();
        let mut names: Vec<&[u8]> = walked.files.iter().map(|n| n.as_bytes()).collect();
        names.sort();
        assert_eq!(
            names,
            vec![
                &b".gitignore"[..],
                b"a\xff.yml",
                b"esc\x1b[2J",
                b"nl\nname",
                b"sub\xff/inner\xfe",
            ]
        );
        assert!(!walked.omitted);
        let capped = files(root, &deny, 2).unwrap_or_default();
        assert!(capped.omitted);
        assert!(capped.files.len() <= 2);
    }
}
