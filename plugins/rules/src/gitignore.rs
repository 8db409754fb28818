//! `.gitignore` rules for listings: globs, `!` negation, a trailing `/` for directories only,
//! patterns anchored by a `/` at the start or in the middle, `**`, `\` escapes, `#` comments.
//! The last matching line of a file wins; a deeper file takes precedence over a shallower one.
//! A directory that is ignored is not entered, so nothing below it can be re-included (as in
//! git). `.git/info/exclude` and global excludes are not read.

use std::path::Path;
use std::sync::Arc;

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::fsys;

/// Largest `.gitignore` read; a longer one is ignored as a whole.
const MAX_GITIGNORE_BYTES: u64 = 1024 * 1024;

#[derive(Debug)]
struct Rule {
    negated: bool,
    dir_only: bool,
}

/// The rules of one `.gitignore`.
#[derive(Debug)]
pub struct IgnoreFile {
    /// Root-relative directory of the file (empty for the root).
    base: String,
    set: GlobSet,
    rules: Vec<Rule>,
}

impl IgnoreFile {
    /// Parse `text`, the content of the `.gitignore` in root-relative directory `base`.
    pub fn parse(base: &str, text: &str) -> Self {
        let mut builder = GlobSetBuilder::new();
        let mut rules = Vec::new();
        for raw in text.lines() {
            let Some((pattern, rule)) = parse_line(raw) else {
                continue;
            };
            let glob = GlobBuilder::new(&pattern)
                .literal_separator(true)
                .backslash_escape(true)
                .build();
            if let Ok(glob) = glob {
                builder.add(glob);
                rules.push(rule);
            }
        }
        let set = builder.build().unwrap_or_else(|_| GlobSet::empty());
        let rules = if set.len() == rules.len() {
            rules
        } else {
            Vec::new()
        };
        Self {
            base: base.to_owned(),
            set,
            rules,
        }
    }

    /// Read the `.gitignore` in `dir` (root-relative `base`), if there is a readable one.
    pub fn load(dir: &Path, base: &str) -> Option<Self> {
        let path = dir.join(".gitignore");
        let known = fsys::lstat(&path).ok()?;
        if !known.is_file() || known.len > MAX_GITIGNORE_BYTES {
            return None;
        }
        let (mut file, meta) = fsys::open(&path, known).ok()?;
        if !meta.is_file() {
            return None;
        }
        let bytes = fsys::read_prefix(&mut file, MAX_GITIGNORE_BYTES as usize, meta.len).ok()?;
        Some(Self::parse(base, &String::from_utf8_lossy(&bytes)))
    }

    /// `Some(true)` ignored, `Some(false)` re-included, `None` no rule matches.
    fn decide(&self, path: &str, is_dir: bool) -> Option<bool> {
        let relative = if self.base.is_empty() {
            path
        } else {
            path.strip_prefix(&self.base)?.strip_prefix('/')?
        };
        self.set
            .matches(relative)
            .into_iter()
            .rev()
            .filter_map(|index| self.rules.get(index))
            .find(|rule| is_dir || !rule.dir_only)
            .map(|rule| !rule.negated)
    }
}

/// `.gitignore` files in effect for a directory, shallowest first.
#[derive(Debug, Clone, Default)]
pub struct IgnoreStack {
    files: Vec<Arc<IgnoreFile>>,
}

impl IgnoreStack {
    /// This stack with `file` added as the deepest.
    pub fn with(&self, file: IgnoreFile) -> Self {
        let mut files = self.files.clone();
        files.push(Arc::new(file));
        Self { files }
    }

    /// Whether root-relative `path` is ignored.
    pub fn is_ignored(&self, path: &str, is_dir: bool) -> bool {
        self.files
            .iter()
            .rev()
            .find_map(|file| file.decide(path, is_dir))
            .unwrap_or(false)
    }
}

/// One line → (glob relative to the file's directory, rule); `None` for blanks and comments.
fn parse_line(raw: &str) -> Option<(String, Rule)> {
    let mut line = raw.strip_suffix('\r').unwrap_or(raw);
    // Trailing spaces are dropped unless escaped with a backslash.
    while line.ends_with(' ') && !line.ends_with("\\ ") {
        line = &line[..line.len() - 1];
    }
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (negated, mut line) = match line.strip_prefix('!') {
        Some(rest) => (true, rest),
        None => (false, line),
    };
    let dir_only = line.ends_with('/') && !line.ends_with("\\/");
    if dir_only {
        line = line.trim_end_matches('/');
    }
    if line.is_empty() {
        return None;
    }
    let anchored = line.contains('/');
    let body = line.trim_start_matches('/');
    let pattern = if anchored {
        body.to_owned()
    } else {
        format!("**/{body}")
    };
    Some((pattern, Rule { negated, dir_only }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stack(files: &[(&str, &str)]) -> IgnoreStack {
        files
            .iter()
            .fold(IgnoreStack::default(), |s, (base, text)| {
                s.with(IgnoreFile::parse(base, text))
            })
    }

    #[test]
    fn globs_negation_dirs_and_anchors() {
        let s = stack(&[(
            "",
            "*.log\n!keep.log\nbuild/\n/top\ndoc/*.txt\n# comment\n\\#hash\n",
        )]);
        assert!(s.is_ignored("a.log", false));
        assert!(s.is_ignored("x/y/a.log", false));
        assert!(!s.is_ignored("keep.log", false));
        assert!(!s.is_ignored("x/keep.log", false));
        assert!(s.is_ignored("build", true));
        assert!(s.is_ignored("x/build", true));
        assert!(!s.is_ignored("build", false), "dir-only rule skips files");
        assert!(s.is_ignored("top", false));
        assert!(
            !s.is_ignored("x/top", false),
            "anchored at the file's directory"
        );
        assert!(s.is_ignored("doc/a.txt", false));
        assert!(!s.is_ignored("doc/x/a.txt", false));
        assert!(!s.is_ignored("# comment", false));
        assert!(s.is_ignored("#hash", false));
        assert!(!s.is_ignored("src/main.rs", false));
    }

    #[test]
    fn deeper_file_wins_and_is_relative_to_its_dir() {
        let s = stack(&[("", "*.tmp\n"), ("sub", "!a.tmp\n/only\n")]);
        assert!(s.is_ignored("b.tmp", false));
        assert!(s.is_ignored("sub/b.tmp", false));
        assert!(!s.is_ignored("sub/a.tmp", false));
        assert!(s.is_ignored("sub/only", false));
        assert!(!s.is_ignored("only", false));
        assert!(!s.is_ignored("subx/only", false));
    }

    #[test]
    fn double_star_and_trailing_spaces() {
        let s = stack(&[("", "a/**/z  \nlogs/**\n")]);
        assert!(s.is_ignored("a/z", false));
        assert!(s.is_ignored("a/b/c/z", false));
        assert!(s.is_ignored("logs/x/y", false));
    }
}
