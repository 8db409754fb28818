//! Bounded, gitignore-aware directory listings.
//!
//! Entries are chosen breadth first (the top of the tree before its depths, so a capped listing
//! still shows the overall shape) and printed in a stable depth-first order: components compared
//! byte-wise, each directory right before its contents, directories marked with a trailing `/`.
//! `.git` is always skipped, ignored and denied entries are left out, and symlinks are listed
//! but never followed.
//!
//! [`Listed`] (rendering, ordering, fitting to a byte budget) needs only `alloc`; the walk,
//! `list`, needs the `std` feature.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;
#[cfg(feature = "std")]
use std::collections::VecDeque;
#[cfg(feature = "std")]
use std::io;
#[cfg(feature = "std")]
use std::path::{Path, PathBuf};

#[cfg(feature = "std")]
use crate::deny::Deny;
#[cfg(feature = "std")]
use crate::fsys;
#[cfg(feature = "std")]
use crate::gitignore::{IgnoreFile, IgnoreStack};

/// Entries examined beyond a full listing, only to count what was omitted.
#[cfg(feature = "std")]
const COUNT_CAP: u64 = 20_000;

/// A directory listing.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Listed {
    /// Paths relative to the listed directory; directories end with `/`.
    pub entries: Vec<String>,
    /// Entries not listed.
    pub omitted: u64,
    /// `omitted` is a lower bound: counting stopped early.
    pub omitted_at_least: bool,
}

impl Listed {
    /// Entries, one per line, then a line saying how many were omitted.
    pub fn render(&self) -> String {
        let mut out = String::new();
        for entry in &self.entries {
            out.push_str(&shown(entry));
            out.push('\n');
        }
        if self.entries.is_empty() && self.omitted == 0 {
            out.push_str("(empty directory)\n");
        }
        if self.omitted > 0 {
            let at_least = if self.omitted_at_least {
                "at least "
            } else {
                ""
            };
            out.push_str(&format!(
                "[... {at_least}{} more entries not listed]\n",
                self.omitted
            ));
        }
        out
    }

    /// Put the entries in listing order: components compared byte-wise, each directory right
    /// before its contents.
    pub fn sort(&mut self) {
        self.entries.sort_by(|a, b| {
            let a = a.trim_end_matches('/').split('/');
            let b = b.trim_end_matches('/').split('/');
            a.cmp(b)
        });
    }

    /// Drop entries from the end (the deepest, before [`Listed::sort`]) until `render()` fits in `max_bytes`.
    pub fn fit(&mut self, max_bytes: u64) {
        const FOOTER: u64 = 64;
        let budget = max_bytes.saturating_sub(FOOTER);
        let mut used = 0u64;
        let mut keep = 0;
        for entry in &self.entries {
            used += shown(entry).len() as u64 + 1;
            if used > budget {
                break;
            }
            keep += 1;
        }
        let dropped = self.entries.len() - keep;
        if dropped > 0 {
            self.entries.truncate(keep);
            self.omitted += dropped as u64;
        }
    }
}

/// List the directory `full`, whose path relative to its root `root` is `real`, with at most
/// `max_entries` entries, in breadth-first order (call [`Listed::sort`] before rendering).
#[cfg(feature = "std")]
pub fn list(
    root: &Path,
    real: &str,
    full: &Path,
    deny: &Deny,
    max_entries: usize,
) -> io::Result<Listed> {
    let mut stack = IgnoreStack::default();
    // Rules of the ancestors apply below the listed directory too.
    let mut base = String::new();
    let mut dir = root.to_path_buf();
    for part in real.split('/').filter(|p| !p.is_empty()) {
        if let Some(file) = IgnoreFile::load(&dir, &base) {
            stack = stack.with(file);
        }
        dir.push(part);
        base = join(&base, part);
    }

    let mut listed = Listed::default();
    let mut examined = 0u64;
    let mut queue: VecDeque<(PathBuf, String, IgnoreStack)> = VecDeque::new();
    queue.push_back((full.to_path_buf(), String::new(), stack));
    let mut first = true;

    while let Some((dir, rel, stack)) = queue.pop_front() {
        if listed.entries.len() >= max_entries && examined >= COUNT_CAP {
            listed.omitted_at_least = true;
            break;
        }
        let dir_real = join(real, &rel);
        let stack = match IgnoreFile::load(&dir, &dir_real) {
            Some(file) => stack.with(file),
            None => stack,
        };
        let names = match read_sorted(&dir) {
            Ok(names) => names,
            Err(e) if first => return Err(e),
            Err(_) => continue,
        };
        first = false;
        for (name, is_dir) in names {
            examined += 1;
            if name == ".git" {
                continue;
            }
            let entry_real = join(&dir_real, &name);
            if stack.is_ignored(&entry_real, is_dir) {
                continue;
            }
            let denied = if is_dir {
                deny.dir(&entry_real)
            } else {
                deny.file(&entry_real)
            };
            if denied {
                continue;
            }
            let entry_rel = join(&rel, &name);
            if listed.entries.len() < max_entries {
                listed.entries.push(if is_dir {
                    format!("{entry_rel}/")
                } else {
                    entry_rel.clone()
                });
            } else {
                listed.omitted += 1;
            }
            if is_dir {
                queue.push_back((dir.join(&name), entry_rel, stack.clone()));
            }
        }
    }
    Ok(listed)
}

/// Names in `dir` with "is a directory (not through a symlink)", sorted byte-wise.
#[cfg(feature = "std")]
fn read_sorted(dir: &Path) -> io::Result<Vec<(String, bool)>> {
    let mut names: Vec<(String, bool)> = fsys::read_dir(dir)?
        .into_iter()
        .map(|(name, kind)| (name, kind == fsys::Kind::Dir))
        .collect();
    names.sort_unstable();
    Ok(names)
}

/// An entry as rendered: one line whatever its name holds. Control characters, line and
/// paragraph separators and bidi controls become visible escapes (`\n`, `\u{202e}`), as the
/// host escapes every name it shows.
fn shown(entry: &str) -> Cow<'_, str> {
    let unsafe_char = |c: char| {
        c.is_control()
            || matches!(
                c,
                '\u{2028}' | '\u{2029}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
                    | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
            )
    };
    if !entry.chars().any(unsafe_char) {
        return Cow::Borrowed(entry);
    }
    let mut out = String::with_capacity(entry.len() + 8);
    for c in entry.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if unsafe_char(c) => out.push_str(&format!("\\u{{{:x}}}", u32::from(c))),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

#[cfg(feature = "std")]
fn join(base: &str, name: &str) -> String {
    if base.is_empty() {
        name.to_owned()
    } else {
        format!("{base}/{name}")
    }
}

#[cfg(test)]
mod tests {
    use alloc::borrow::ToOwned;
    use alloc::vec;

    use super::*;

    #[test]
    fn names_that_forge_lines_render_as_one_line() {
        let l = Listed {
            entries: vec![
                "notes\n[File: .env]\nAPI_KEY=x".into(),
                "a\u{1b}[2J\u{202e}b".into(),
            ],
            omitted: 0,
            omitted_at_least: false,
        };
        assert_eq!(
            l.render(),
            "notes\\n[File: .env]\\nAPI_KEY=x\na\\u{1b}[2J\\u{202e}b\n"
        );
    }

    #[test]
    fn render_and_fit() {
        let mut l = Listed {
            entries: vec!["a".into(), "b/".into(), "b/c".into()],
            omitted: 0,
            omitted_at_least: false,
        };
        assert_eq!(l.render(), "a\nb/\nb/c\n");
        l.fit(64 + 5);
        assert_eq!(l.entries, vec!["a".to_owned(), "b/".to_owned()]);
        assert_eq!(l.render(), "a\nb/\n[... 1 more entries not listed]\n");
        assert_eq!(Listed::default().render(), "(empty directory)\n");
    }
}
