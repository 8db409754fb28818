//! Sample tool plugin: `search_text`, a regex or literal search of the workspace, read-only.
//! (Named apart from the built-in `grep`: a plugin may not take a built-in's name.)
//!
//! Needs `fs = "read"` in its `[[plugins]]` entry. Skips the deny globs of warden's defaults
//! (and the config's `deny`, comma-separated), `.git`, binary files and files over 1 MiB, and,
//! silently, any file the host refuses to open (it enforces the deny globs on real paths, so a
//! symlink to a denied file is refused there).
//! Output: `path:line: text` lines, at most `max_matches` (default 100, at most 1000) and
//! `max_bytes` bytes (config, default 16384), then a line saying what was left out.
//!
//! Arguments: `pattern` (required), `literal` (bool, default false), `path` (a file or
//! directory relative to the workspace root, default the root), `ignore_case` (bool),
//! `max_matches`.

use std::path::Path;

use regex::{Regex, RegexBuilder};
use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::tool::{Tool, ToolOutput, ToolSpec};
use warden_plugin::workspace::Workspace;
use warden_rules::fsys;

/// Largest file searched.
const MAX_FILE_BYTES: u64 = 1 << 20;
/// Most matches one call may ask for.
const MAX_MATCHES: u64 = 1000;
/// Longest line shown; longer ones are cut.
const MAX_LINE: usize = 300;

/// The `search_text` tool.
pub struct Grep {
    workspace: Workspace,
    max_bytes: usize,
}

/// What one search found.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// `path:line: text` lines.
    pub lines: Vec<String>,
    /// Matches not shown (over `max_matches` or `max_bytes`).
    pub more: bool,
    /// Files searched.
    pub files: usize,
}

struct Search<'a> {
    workspace: &'a Workspace,
    regex: Regex,
    max_matches: usize,
    max_bytes: usize,
    bytes: usize,
    found: Found,
}

impl Search<'_> {
    fn full(&self) -> bool {
        self.found.lines.len() >= self.max_matches || self.bytes >= self.max_bytes
    }

    fn walk(&mut self, dir: &Path, relative: &str) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        let mut entries: Vec<_> = entries.filter_map(Result::ok).collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            if self.found.more {
                return;
            }
            let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                continue;
            };
            let rel = if relative.is_empty() {
                name
            } else {
                format!("{relative}/{name}")
            };
            if self.workspace.denied(&rel) {
                continue;
            }
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                self.walk(&entry.path(), &rel);
            } else if kind.is_file() {
                self.file(&entry.path(), &rel);
            }
        }
    }

    fn file(&mut self, path: &Path, relative: &str) {
        // One `read` of the whole file on the opened descriptor: `std::fs::read` goes through a
        // WASI input stream, whose reads the host answers on a thread of its own.
        let meta = match fsys::lstat(path) {
            Ok(meta) if meta.is_file() && meta.len <= MAX_FILE_BYTES => meta,
            _ => return,
        };
        let Ok(bytes) = fsys::open(path, meta).and_then(|(mut file, meta)| {
            fsys::read_prefix(&mut file, MAX_FILE_BYTES as usize + 1, meta.len)
        }) else {
            return;
        };
        if bytes.iter().take(8192).any(|&b| b == 0) {
            return;
        }
        self.found.files += 1;
        let text = String::from_utf8_lossy(&bytes);
        for (n, line) in text.lines().enumerate() {
            if !self.regex.is_match(line) {
                continue;
            }
            if self.full() {
                self.found.more = true;
                return;
            }
            let mut shown: String = line.chars().take(MAX_LINE).collect();
            if shown.len() < line.len() {
                shown.push('…');
            }
            let entry = format!("{relative}:{}: {shown}", n + 1);
            self.bytes += entry.len() + 1;
            self.found.lines.push(entry);
        }
    }
}

impl Grep {
    /// Search for `pattern` under `path`.
    pub fn search(
        &self,
        pattern: &str,
        literal: bool,
        ignore_case: bool,
        path: &str,
        max_matches: usize,
    ) -> Result<Found, String> {
        let source = if literal {
            regex::escape(pattern)
        } else {
            pattern.to_owned()
        };
        let regex = RegexBuilder::new(&source)
            .case_insensitive(ignore_case)
            .size_limit(1 << 20)
            .build()
            .map_err(|e| format!("invalid pattern: {e}"))?;
        let start = self.workspace.resolve(path)?;
        let mut search = Search {
            workspace: &self.workspace,
            regex,
            max_matches,
            max_bytes: self.max_bytes,
            bytes: 0,
            found: Found::default(),
        };
        let meta = std::fs::metadata(&start.full).map_err(|e| format!("{path}: {e}"))?;
        if meta.is_dir() {
            search.walk(&start.full, &start.relative);
        } else {
            search.file(&start.full, &start.relative);
        }
        Ok(search.found)
    }

    /// A grep tool over `workspace`.
    pub fn new(workspace: Workspace, max_bytes: usize) -> Self {
        Self {
            workspace,
            max_bytes,
        }
    }
}

fn flag(args: &Value, key: &str) -> bool {
    args.get(key).and_then(Value::as_bool).unwrap_or(false)
}

impl Tool for Grep {
    fn init(config: Config) -> Result<Self, String> {
        let workspace = Workspace::from_config(&config, warden_defaults::DEFAULT_DENY)?;
        let max_bytes = config.parse_or("max_bytes", warden_defaults::DEFAULT_MAX_BYTES)?;
        Ok(Self::new(
            workspace,
            usize::try_from(max_bytes).unwrap_or(usize::MAX),
        ))
    }

    fn describe(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new(
            "search_text",
            "Search the workspace's text files for a regular expression (or a literal string \
             with `literal: true`). Returns `path:line: text` lines.",
            r#"{"type":"object","properties":{"pattern":{"type":"string","description":"Regular expression (Rust syntax) or literal text"},"literal":{"type":"boolean"},"ignore_case":{"type":"boolean"},"path":{"type":"string","description":"File or directory relative to the workspace root (default: the root)"},"max_matches":{"type":"integer","minimum":1,"maximum":1000}},"required":["pattern"]}"#,
        )]
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, String> {
        if name != "search_text" {
            return Err(format!("unknown tool `{name}`"));
        }
        let args: Value =
            serde_json::from_str(arguments).map_err(|e| format!("bad arguments: {e}"))?;
        let pattern = args
            .get("pattern")
            .and_then(Value::as_str)
            .ok_or("missing string argument `pattern`")?;
        let path = args.get("path").and_then(Value::as_str).unwrap_or(".");
        let max_matches = args
            .get("max_matches")
            .and_then(Value::as_u64)
            .unwrap_or(100)
            .clamp(1, MAX_MATCHES);
        let found = self.search(
            pattern,
            flag(&args, "literal"),
            flag(&args, "ignore_case"),
            path,
            usize::try_from(max_matches).unwrap_or(100),
        )?;
        let mut text = found.lines.join("\n");
        if found.lines.is_empty() {
            text = format!("no matches in {} files", found.files);
        } else if found.more {
            text.push_str("\n[more matches not shown]");
        }
        Ok(ToolOutput::text(text))
    }
}

#[cfg(target_arch = "wasm32")]
warden_plugin::export_tool!(Grep);

#[cfg(test)]
mod tests {
    use super::*;

    fn grep(dir: &Path) -> Grep {
        let config = Config::from(vec![(
            "roots".to_owned(),
            dir.to_string_lossy().into_owned(),
        )]);
        Grep::init(config).unwrap()
    }

    #[test]
    fn finds_matches_and_skips_denied_files() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(
            dir.path().join("src/a.rs"),
            "fn main() {}\nlet token = 1;\n",
        )
        .unwrap();
        std::fs::write(dir.path().join(".env"), "token=secret\n").unwrap();
        std::fs::write(dir.path().join("bin.dat"), b"token\0\0").unwrap();
        let g = grep(dir.path());
        let found = g.search("token", true, false, ".", 100).unwrap();
        assert_eq!(found.lines, vec!["src/a.rs:2: let token = 1;".to_owned()]);
        assert!(g.search("x", false, false, "../", 10).is_err());
        assert!(g.search("(", false, false, ".", 10).is_err());
    }

    #[test]
    fn matches_are_bounded() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("many.txt"), "hit\n".repeat(50)).unwrap();
        let found = grep(dir.path())
            .search("hit", false, false, ".", 10)
            .unwrap();
        assert_eq!(found.lines.len(), 10);
        assert!(found.more);
    }
}
