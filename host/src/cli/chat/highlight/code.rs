//! One tokenizer for the languages made of identifiers, quoted strings and comments (Rust,
//! Python, JavaScript, the C family, JSON, TOML, YAML), driven by a [`Syntax`] table.
//!
//! It scans bytes: every delimiter it looks for is ASCII, and UTF-8 never uses an ASCII byte
//! inside a longer character, so every token boundary falls on a character boundary.

use super::{Kind, Spans};

/// What sets one language's tokens apart.
#[derive(Debug)]
pub(crate) struct Syntax {
    pub(crate) keywords: &'static [&'static str],
    /// Markers that start a comment running to the end of the line.
    pub(crate) line_comments: &'static [&'static str],
    /// A line comment starts only at the start of a line or after white space (YAML).
    pub(crate) comment_after_space: bool,
    pub(crate) block_comment: Option<(&'static str, &'static str)>,
    /// Characters that open and close a string.
    pub(crate) quotes: &'static [u8],
    /// Quotes whose strings may run over several lines; the others end at the line's end.
    pub(crate) multiline_quotes: &'static [u8],
    /// Quotes inside which a backslash escapes nothing (TOML and YAML `'`, Go `` ` ``).
    pub(crate) literal_quotes: &'static [u8],
    /// `"""` and `'''` open strings that close only with the same three.
    pub(crate) triple_quotes: bool,
    /// Rust: `'a` is a lifetime unless a character literal, `r#"…"#` is a raw string.
    pub(crate) rust: bool,
    /// `#include` and the like at the start of a line are keywords (C, C++).
    pub(crate) directives: bool,
    /// `$` may be part of an identifier (JavaScript).
    pub(crate) dollar_ident: bool,
    /// YAML: `key:` at the start of a line (after `- `) is a key, drawn as a keyword.
    pub(crate) yaml_keys: bool,
    /// TOML: `[table]` at the start of a line is a header, drawn as a keyword.
    pub(crate) table_headers: bool,
}

fn is_ident(b: u8, dollar: bool) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || (dollar && b == b'$')
}

/// The tokens of `text` under `syntax`.
pub(super) fn lex(text: &str, syntax: &Syntax) -> Spans {
    let b = text.as_bytes();
    let mut spans = Spans::default();
    let mut i = 0;
    let mut line_start = true;
    while i < b.len() {
        let c = b[i];
        let rest = &b[i..];
        if c == b'\n' {
            line_start = true;
            i += 1;
            continue;
        }
        if c == b' ' || c == b'\t' {
            i += 1;
            continue;
        }
        let at_line_start = line_start;
        line_start = false;
        let after_space = i == 0 || b[i - 1].is_ascii_whitespace();
        if at_line_start {
            if let Some(end) = line_start_token(b, i, syntax) {
                spans.mark(Kind::Keyword, i, end);
                i = end;
                continue;
            }
            if syntax.yaml_keys {
                let (key, key_end) = yaml_key(b, i);
                if let Some(key_end) = key_end {
                    spans.mark(Kind::Keyword, key, key_end);
                    i = key_end;
                    continue;
                }
            }
        }
        if (!syntax.comment_after_space || after_space)
            && syntax
                .line_comments
                .iter()
                .any(|m| rest.starts_with(m.as_bytes()))
        {
            let end = line_end(b, i);
            spans.mark(Kind::Comment, i, end);
            i = end;
            continue;
        }
        if let Some((open, close)) = syntax.block_comment
            && rest.starts_with(open.as_bytes())
        {
            let end = find(b, i + open.len(), close.as_bytes()).unwrap_or(b.len());
            spans.mark(Kind::Comment, i, end);
            i = end;
            continue;
        }
        if syntax.triple_quotes && (rest.starts_with(b"\"\"\"") || rest.starts_with(b"'''")) {
            let end = find(b, i + 3, &rest[..3]).unwrap_or(b.len());
            spans.mark(Kind::Str, i, end);
            i = end;
            continue;
        }
        if syntax.quotes.contains(&c) {
            if syntax.rust && c == b'\'' && !is_char_literal(&text[i..]) {
                i += 1;
                continue;
            }
            let end = string_end(b, i, syntax);
            spans.mark(Kind::Str, i, end);
            i = end;
            continue;
        }
        let ident_before = i > 0 && is_ident(b[i - 1], syntax.dollar_ident);
        if c.is_ascii_digit() && !ident_before {
            let end = number_end(b, i);
            spans.mark(Kind::Number, i, end);
            i = end;
            continue;
        }
        if is_ident(c, syntax.dollar_ident) {
            let mut end = i;
            while end < b.len() && is_ident(b[end], syntax.dollar_ident) {
                end += 1;
            }
            let word = &text[i..end];
            if syntax.rust
                && (word == "r" || word == "br")
                && let Some(raw_end) = raw_string_end(b, end)
            {
                spans.mark(Kind::Str, i, raw_end);
                i = raw_end;
                continue;
            }
            if syntax.keywords.contains(&word) {
                spans.mark(Kind::Keyword, i, end);
            }
            i = end;
            continue;
        }
        i += 1;
    }
    spans
}

/// The end of a `#directive` (C) or a `[table]` header (TOML) starting at `i`, if one does.
fn line_start_token(b: &[u8], i: usize, syntax: &Syntax) -> Option<usize> {
    if syntax.directives && b[i] == b'#' {
        let mut end = i + 1;
        while end < b.len() && (b[end] == b' ' || b[end] == b'\t') {
            end += 1;
        }
        let word = end;
        while end < b.len() && b[end].is_ascii_alphabetic() {
            end += 1;
        }
        return (end > word).then_some(end);
    }
    if syntax.table_headers && b[i] == b'[' {
        let end = line_end(b, i);
        let close = b[i..end].iter().rposition(|x| *x == b']')?;
        return Some(i + close + 1);
    }
    None
}

/// YAML: after an optional `- `, the end of a `key` followed by `:` and white space or the end
/// of the line; returns where the key starts and, if there is one, where it ends.
fn yaml_key(b: &[u8], mut i: usize) -> (usize, Option<usize>) {
    while b[i..].starts_with(b"- ") {
        i += 2;
        while i < b.len() && b[i] == b' ' {
            i += 1;
        }
    }
    let start = i;
    if i >= b.len() || matches!(b[i], b'#' | b'\'' | b'"' | b'-' | b'[' | b'{' | b'\n') {
        return (start, None);
    }
    let end = line_end(b, i);
    let mut j = i;
    while j < end {
        if b[j] == b':' && (j + 1 == b.len() || b[j + 1].is_ascii_whitespace()) {
            return (start, (j > start).then_some(j));
        }
        if b[j] == b'#' && b[j - 1] == b' ' {
            break;
        }
        j += 1;
    }
    (start, None)
}

/// Where the line holding byte `i` ends (its `\n`, or the end of the text).
fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|x| *x == b'\n')
        .map_or(b.len(), |n| i + n)
}

/// The end of the first `needle` at or after `from`.
fn find(b: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    if from > b.len() {
        return None;
    }
    b[from..]
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|n| from + n + needle.len())
}

/// The end of the string opened by the quote at `i`: after its closing quote, or at the end
/// of the line (of the text, for a multi-line quote) when it is not closed.
fn string_end(b: &[u8], i: usize, syntax: &Syntax) -> usize {
    let quote = b[i];
    let escapes = !syntax.literal_quotes.contains(&quote);
    let multiline = syntax.multiline_quotes.contains(&quote);
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' if escapes => {
                // An escaped line break still ends a one-line string at the line's end.
                if b.get(j + 1) == Some(&b'\n') && !multiline {
                    return j + 1;
                }
                j += 2;
                continue;
            }
            b'\n' if !multiline => return j,
            x if x == quote => return j + 1,
            _ => {}
        }
        j += 1;
    }
    b.len()
}

/// Rust: whether the `'` starting `rest` opens a character literal rather than a lifetime.
fn is_char_literal(rest: &str) -> bool {
    let after = &rest[1..];
    let mut chars = after.chars();
    match chars.next() {
        Some('\\') => true,
        Some(c) => after[c.len_utf8()..].starts_with('\''),
        None => false,
    }
}

/// Rust: the end of a raw string whose `#`s or `"` start at `i`, right after `r` or `br`.
fn raw_string_end(b: &[u8], i: usize) -> Option<usize> {
    let mut j = i;
    while j < b.len() && b[j] == b'#' {
        j += 1;
    }
    if b.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', j - i));
    Some(find(b, j + 1, &close).unwrap_or(b.len()))
}

/// The end of the number starting at `i`: digits, letters (`0x1f`, `10u8`, `1e9`), `_`, and
/// a `.` followed by a digit.
fn number_end(b: &[u8], i: usize) -> usize {
    let mut j = i;
    while j < b.len() {
        let x = b[j];
        let dot = x == b'.' && b.get(j + 1).is_some_and(u8::is_ascii_digit);
        if !(x.is_ascii_alphanumeric() || x == b'_' || dot) {
            break;
        }
        j += 1;
    }
    j
}
