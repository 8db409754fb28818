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

/// The dotted key defined on `line` (1-based): a key line's own key under the nearest table
/// header above it, a well-formed header line's own table, and nothing else — never the table
/// above a line that defines no key of its own.
fn key_at(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let current = lines.get(line.checked_sub(1)?)?.trim();
    if current.starts_with('[') {
        return header_name(current);
    }
    let own = current
        .split_once('=')
        .map(|(k, _)| k.trim().trim_matches('"').to_owned())
        .filter(|k| !k.is_empty() && is_bare_key(k))?;
    let header = lines[..line.saturating_sub(1)]
        .iter()
        .rev()
        .map(|l| l.trim())
        .find(|l| l.starts_with('['))
        .and_then(header_name);
    Some(match header {
        Some(h) => format!("{h}.{own}"),
        None => own,
    })
}

/// The table a header line names (`[a.b]`, `[[a]]`, a comment after it allowed); `None` when
/// the line is not a well-formed header.
fn header_name(line: &str) -> Option<String> {
    let line = line.split_once('#').map_or(line, |(h, _)| h).trim();
    let inner = line
        .strip_prefix("[[")
        .and_then(|l| l.strip_suffix("]]"))
        .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')))?
        .trim();
    (!inner.is_empty() && is_bare_key(inner)).then(|| inner.to_owned())
}

/// Letters, digits, `_`, `-`, and dots between parts: a key as written without quotes.
fn is_bare_key(key: &str) -> bool {
    key.split('.').all(|part| {
        let part = part.trim();
        !part.is_empty()
            && part
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn names_the_lines_own_key_or_none() {
        let text =
            "[[plugins]]\nname = \"a\"\n[plugins.config]\nx = 1\n[model\nbroken\n[tools] # c\n";
        assert_eq!(key_at(text, 2).as_deref(), Some("plugins.name"));
        assert_eq!(key_at(text, 4).as_deref(), Some("plugins.config.x"));
        assert_eq!(key_at(text, 5), None);
        assert_eq!(key_at(text, 6), None);
        assert_eq!(key_at(text, 7).as_deref(), Some("tools"));
        assert_eq!(key_at(text, 99), None);
    }

    proptest! {
        #[test]
        fn a_named_key_ends_with_a_key_written_on_that_line(
            text in "[\\[\\]a-z.=\" #\\n]{0,80}",
            line in 0usize..12,
        ) {
            if let Some(key) = key_at(&text, line) {
                let last = key.rsplit('.').next().unwrap_or_default();
                let written = text.lines().nth(line - 1).unwrap_or_default();
                prop_assert!(written.contains(last), "{key:?} from {written:?}");
            }
        }
    }
}
