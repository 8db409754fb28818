//! The `@path` parser: typed text → [`Segment`]s, with the exact byte span of every mention.
//!
//! Forms: `@path`, `@"path with spaces"` (inside quotes `\"` and `\\` are escapes),
//! `@path\ with\ escapes` (a backslash takes the next character literally), optional line
//! ranges `#L10` and `#L10-20` right after the path (or after the closing quote). Rules:
//!
//! - `\@` is a literal at-sign; an `@` preceded by a letter, digit or `_` (an e-mail address) is
//!   not a mention; an `@` with no path after it is text.
//! - An unquoted path ends at whitespace (but not at a no-break space) and at any unescaped
//!   `, ; ! ? ( ) [ ] { }`, as in gemini-cli. Trailing `: " ' ` and `.` are stripped too
//!   (a `.` is kept when it ends a component made of dots only, as in `@..`); a `.` inside a
//!   name is kept. Escaped characters are never stripped (`@f\(1\).txt`).
//! - `#L0` and reversed ranges (`#L20-10`) still parse; the resolver reports them. A range
//!   whose numbers overflow `u32` is not a range and stays part of the path.
//! - Directories are named by their path; a trailing `/` is kept as typed.
//! - Text segments hold the input exactly as typed (a `\@` stays `\@`): concatenating the text
//!   segments and the raw mentions gives the input back.

use std::ops::Range;

use crate::domain::{LineRange, Segment};

/// Characters that end an unquoted path wherever they appear (unless escaped).
const TERMINATORS: &[char] = &[',', ';', '!', '?', '(', ')', '[', ']', '{', '}'];

/// Characters that end an unquoted path when they trail it.
const TRAILING: &[char] = &[':', '"', '\'', '`'];

/// Spaces that do not break a line also do not end a path: they occur in file names
/// (macOS writes U+202F in screenshot names).
const NO_BREAK_SPACES: &[char] = &['\u{a0}', '\u{2007}', '\u{202f}'];

/// One mention in typed text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mention {
    /// Byte span of the whole mention (from `@` to the end of the range) in the input.
    pub span: Range<usize>,
    /// The path, unquoted and unescaped.
    pub path: String,
    /// The line range, if one was written.
    pub range: Option<LineRange>,
}

impl Mention {
    /// The mention exactly as typed.
    pub fn raw<'a>(&self, input: &'a str) -> &'a str {
        input.get(self.span.clone()).unwrap_or_default()
    }
}

/// Parsed text: segments in order, and the mentions with their spans (one per
/// [`Segment::FileRef`], in the same order).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Parsed {
    /// Text and file-ref segments covering the whole input.
    pub segments: Vec<Segment>,
    /// The mentions.
    pub mentions: Vec<Mention>,
}

/// Parse typed text into segments.
pub fn parse(input: &str) -> Parsed {
    let mut parsed = Parsed::default();
    let mut text_start = 0;
    let mut search = 0;
    while let Some(offset) = input[search..].find('@') {
        let at = search + offset;
        search = at + 1;
        match mention_at(input, at, true) {
            Some(mention) => {
                if text_start < at {
                    parsed.segments.push(Segment::Text {
                        text: input[text_start..at].to_owned(),
                    });
                }
                parsed.segments.push(Segment::FileRef {
                    raw: mention.raw(input).to_owned(),
                    path: mention.path.clone(),
                    range: mention.range,
                });
                text_start = mention.span.end;
                search = mention.span.end;
                parsed.mentions.push(mention);
            }
            None => continue,
        }
    }
    if text_start < input.len() {
        parsed.segments.push(Segment::Text {
            text: input[text_start..].to_owned(),
        });
    }
    parsed
}

/// For an unquoted mention with a line range, the path it would name if the `#L…` suffix were
/// part of the file name (a file literally named `x#L10` wins over `x` with a range).
pub fn literal_path(raw: &str) -> Option<String> {
    if !raw.starts_with('@') || raw.starts_with("@\"") {
        return None;
    }
    let with_range = mention_at(raw, 0, true)?;
    with_range.range?;
    let literal = mention_at(raw, 0, false)?;
    (literal.span.end == raw.len()).then_some(literal.path)
}

/// The mention starting at the `@` at byte `at`, if there is one.
fn mention_at(input: &str, at: usize, split_range: bool) -> Option<Mention> {
    if let Some(prev) = input[..at].chars().next_back()
        && (prev == '\\' || prev.is_alphanumeric() || prev == '_')
    {
        return None;
    }
    let body = at + 1;
    match input[body..].chars().next()? {
        '"' => quoted(input, at, body + 1),
        c if c.is_whitespace() || c == '@' => None,
        _ => unquoted(input, at, body, split_range),
    }
}

fn quoted(input: &str, at: usize, start: usize) -> Option<Mention> {
    let mut path = String::new();
    let mut chars = input[start..].char_indices();
    let close = loop {
        let (i, c) = chars.next()?;
        match c {
            '"' => break start + i + 1,
            '\\' => match input[start + i + 1..].chars().next() {
                Some(next @ ('"' | '\\')) => {
                    path.push(next);
                    chars.next();
                }
                _ => path.push('\\'),
            },
            _ => path.push(c),
        }
    };
    if path.is_empty() {
        return None;
    }
    let (range, end) = match range_at(&input[close..]) {
        Some((range, len)) => (Some(range), close + len),
        None => (None, close),
    };
    Some(Mention {
        span: at..end,
        path,
        range,
    })
}

/// A `#L10` or `#L10-20` at the very start of `s`, with its length.
fn range_at(s: &str) -> Option<(LineRange, usize)> {
    let rest = s.strip_prefix("#L")?;
    let digits = |t: &str| t.bytes().take_while(u8::is_ascii_digit).count();
    let n1 = digits(rest);
    let start: u32 = rest.get(..n1)?.parse().ok()?;
    let after = &rest[n1..];
    if let Some(second) = after.strip_prefix('-') {
        let n2 = digits(second);
        if n2 > 0 {
            let end: u32 = second[..n2].parse().ok()?;
            return Some((LineRange { start, end }, 2 + n1 + 1 + n2));
        }
    }
    Some((LineRange { start, end: start }, 2 + n1))
}

/// One character of an unquoted path: the character, whether it was escaped, and the byte
/// offset just after it in the input.
struct PathChar {
    c: char,
    escaped: bool,
    end: usize,
}

fn unquoted(input: &str, at: usize, start: usize, split_range: bool) -> Option<Mention> {
    let mut chars: Vec<PathChar> = Vec::new();
    let mut iter = input[start..].char_indices().peekable();
    while let Some((i, c)) = iter.next() {
        if (c.is_whitespace() && !NO_BREAK_SPACES.contains(&c)) || TERMINATORS.contains(&c) {
            break;
        }
        if c == '\\' {
            match iter.peek() {
                Some(&(j, next)) => {
                    iter.next();
                    chars.push(PathChar {
                        c: next,
                        escaped: true,
                        end: start + j + next.len_utf8(),
                    });
                }
                None => break,
            }
            continue;
        }
        chars.push(PathChar {
            c,
            escaped: false,
            end: start + i + c.len_utf8(),
        });
    }
    strip_trailing(&mut chars);

    let mut range = None;
    if split_range && let Some(split) = range_split(&chars) {
        let suffix: String = chars[split..].iter().map(|p| p.c).collect();
        if let Some((r, len)) = range_at(&suffix)
            && len == suffix.len()
        {
            range = Some(r);
            let end = chars.last().map(|p| p.end)?;
            chars.truncate(split);
            let path: String = chars.iter().map(|p| p.c).collect();
            return Some(Mention {
                span: at..end,
                path,
                range,
            });
        }
    }
    let end = chars.last().map(|p| p.end)?;
    let path: String = chars.iter().map(|p| p.c).collect();
    Some(Mention {
        span: at..end,
        path,
        range,
    })
}

/// Index where an unescaped `#L…` suffix starts, leaving a non-empty path before it.
fn range_split(chars: &[PathChar]) -> Option<usize> {
    let hash = chars.iter().rposition(|p| p.c == '#' && !p.escaped)?;
    let tail_unescaped = chars[hash..].iter().all(|p| !p.escaped);
    (hash > 0 && tail_unescaped).then_some(hash)
}

fn strip_trailing(chars: &mut Vec<PathChar>) {
    while let Some(last) = chars.last() {
        if last.escaped {
            return;
        }
        let strip = if last.c == '.' {
            !last_component_is_dots(chars)
        } else {
            TRAILING.contains(&last.c)
        };
        if !strip {
            return;
        }
        chars.pop();
    }
}

/// The last `/`-separated component consists of dots only (`.`, `..`).
fn last_component_is_dots(chars: &[PathChar]) -> bool {
    chars
        .iter()
        .rev()
        .take_while(|p| p.escaped || p.c != '/')
        .all(|p| p.c == '.' && !p.escaped)
}

#[cfg(test)]
#[path = "parser_tests.rs"]
mod tests;
