//! Configuration errors: each names the file, and where known the line and key.

use std::path::{Path, PathBuf};

/// Why the configuration could not be loaded. The CLI exits with status 2 on any of these.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file exists but cannot be read.
    #[error("{}: cannot read configuration: {source}", path.display())]
    Read {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Syntax error, unknown key or wrong type.
    #[error("{}:{line}:{column}: {}{message}", path.display(), key.as_deref().map(|k| format!("key `{k}`: ")).unwrap_or_default())]
    Parse {
        /// File.
        path: PathBuf,
        /// 1-based line.
        line: usize,
        /// 1-based column.
        column: usize,
        /// Dotted key at that line, when one can be named.
        key: Option<String>,
        /// What is wrong.
        message: String,
    },
    /// The managed file exists but cannot be used (fail closed: never "no policy").
    #[error("{}: managed policy cannot be read: {message}", path.display())]
    Unusable {
        /// File.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A value that parses but is not acceptable.
    #[error("{}: key `{key}`: {message}", path.display())]
    Invalid {
        /// File (or setting) concerned.
        path: PathBuf,
        /// Dotted key.
        key: String,
        /// What is wrong.
        message: String,
    },
}

impl ConfigError {
    /// An error at byte `offset` of `text` (the contents of `path`).
    pub(crate) fn at(path: &Path, text: &str, offset: usize, key: &str, message: String) -> Self {
        let (line, column) = line_column(text, offset);
        Self::Parse {
            path: path.to_owned(),
            line,
            column,
            key: Some(key.to_owned()),
            message,
        }
    }

    /// A parse error of `text` (the contents of `path`).
    pub(crate) fn parse(path: &Path, text: &str, err: &toml::de::Error) -> Self {
        let offset = err.span().map(|s| s.start).unwrap_or(0);
        let (line, column) = line_column(text, offset);
        Self::Parse {
            path: path.to_owned(),
            line,
            column,
            key: key_at(text, line),
            message: err.message().trim().to_owned(),
        }
    }
}

/// 1-based line and column of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before
        .rsplit('\n')
        .next()
        .map(|l| l.chars().count())
        .unwrap_or(0)
        + 1;
    (line, column)
}

/// The dotted key defined on `line` (1-based), using the nearest table header above it.
fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let current = lines.get(line.checked_sub(1)?)?.trim();
    let own = current
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_owned())
        .filter(|k| !k.is_empty() && !k.starts_with('['));
    let header = lines[..line.saturating_sub(1)]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .map(|l| l.trim_matches(|c| c == '[' || c == ']').trim().to_owned());
    match (header, own) {
        (Some(h), Some(k)) => Some(format!("{h}.{k}")),
        (None, Some(k)) => Some(k),
        (Some(h), None) if current.starts_with('[') => Some(h),
        _ => None,
    }
}
