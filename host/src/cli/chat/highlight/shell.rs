//! Tokenizers for shell scripts (the command word, flags, variables, quoted strings and
//! comments), console sessions (the commands after a `$ ` prompt; the output stays plain) and
//! diffs (whole added, removed, hunk and header lines). Like the code tokenizer they scan
//! bytes and cut only at ASCII delimiters, so every boundary is a character boundary.

use super::{Kind, Spans};

const KEYWORDS: &[&str] = &[
    "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac",
    "in", "function", "select", "time", "!", "return", "local", "export",
];

/// Keywords after which the next word is again a command.
const LEAD_COMMAND: &[&str] = &[
    "if", "then", "else", "elif", "do", "while", "until", "!", "time",
];

/// Bytes that end a shell word.
fn ends_word(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b';' | b'|' | b'&' | b'(' | b')' | b'<' | b'>' | b'"' | b'\'' | b'$' | b'`'
        )
}

/// The tokens of a shell script.
pub(super) fn lex(text: &str) -> Spans {
    let b = text.as_bytes();
    let mut spans = Spans::default();
    let mut command = true;
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let word_start = i == 0 || ends_word(b[i - 1]);
        match c {
            b'\n' => {
                // A line ending in `\` continues the same command.
                command = command || i == 0 || b[i - 1] != b'\\';
                i += 1;
            }
            b' ' | b'\t' | b')' | b'<' | b'>' => i += 1,
            b';' | b'|' | b'&' | b'(' | b'`' => {
                command = true;
                i += 1;
            }
            b'#' if word_start => {
                let end = line_end(b, i);
                spans.mark(Kind::Comment, i, end);
                i = end;
            }
            b'\'' => {
                let end = b[i + 1..]
                    .iter()
                    .position(|x| *x == b'\'')
                    .map_or(b.len(), |n| i + n + 2);
                spans.mark(Kind::Str, i, end);
                command = false;
                i = end;
            }
            b'"' => {
                let end = double_quoted_end(b, i);
                spans.mark(Kind::Str, i, end);
                command = false;
                i = end;
            }
            b'$' => {
                if b.get(i + 1) == Some(&b'(') {
                    command = true;
                    i += 2;
                    continue;
                }
                let end = variable_end(b, i);
                if end > i + 1 {
                    spans.mark(Kind::Variable, i, end);
                    command = false;
                }
                i = end;
            }
            _ => {
                let mut end = i;
                while end < b.len() && !ends_word(b[end]) {
                    end += 1;
                }
                let word = &text[i..end];
                if command {
                    if KEYWORDS.contains(&word) {
                        spans.mark(Kind::Keyword, i, end);
                        command = LEAD_COMMAND.contains(&word);
                    } else if !is_assignment(word) {
                        spans.mark(Kind::Command, i, end);
                        command = false;
                    }
                } else if word.starts_with('-') && word_start {
                    spans.mark(Kind::Flag, i, end);
                } else if word_start && word.bytes().all(|x| x.is_ascii_digit()) {
                    spans.mark(Kind::Number, i, end);
                }
                i = end.max(i + 1);
            }
        }
    }
    spans
}

/// `NAME=value`: a variable set for the command that follows.
fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.bytes().all(|x| x.is_ascii_alphanumeric() || x == b'_')
    })
}

/// The end of the `"…"` string at `i` (the end of the text when it is not closed).
fn double_quoted_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    while j < b.len() {
        match b[j] {
            b'\\' => j += 2,
            b'"' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The end of the parameter at `i` (`$name`, `${…}`, `$1`, `$?`); `i + 1` when `$` is alone.
fn variable_end(b: &[u8], i: usize) -> usize {
    let j = i + 1;
    match b.get(j) {
        Some(b'{') => b[j..]
            .iter()
            .position(|x| *x == b'}' || *x == b'\n')
            .map_or(b.len(), |n| j + n + usize::from(b[j + n] == b'}')),
        Some(x) if x.is_ascii_alphabetic() || *x == b'_' => {
            let mut end = j;
            while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
                end += 1;
            }
            end
        }
        Some(x)
            if x.is_ascii_digit()
                || matches!(*x, b'@' | b'?' | b'#' | b'$' | b'!' | b'*' | b'-') =>
        {
            j + 1
        }
        _ => j,
    }
}

fn line_end(b: &[u8], i: usize) -> usize {
    b[i..]
        .iter()
        .position(|x| *x == b'\n')
        .map_or(b.len(), |n| i + n)
}

/// A console session: each line after a `$ `, `% ` or `> ` prompt is a shell command; the
/// prompt and the output lines stay plain.
pub(super) fn console(text: &str) -> Spans {
    let mut spans = Spans::default();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let indent = body.len() - body.trim_start_matches(' ').len();
        let rest = &body[indent..];
        if ["$ ", "% ", "> "].iter().any(|p| rest.starts_with(p)) {
            let start = at + indent + 2;
            spans.append(lex(&rest[2..]), start);
        }
        at += line.len();
    }
    spans
}

/// A diff: file headers, hunk headers, added and removed lines.
pub(super) fn diff(text: &str) -> Spans {
    let mut spans = Spans::default();
    let mut at = 0;
    for line in text.split_inclusive('\n') {
        let body = line.trim_end_matches('\n');
        let kind = if ["+++", "---", "diff ", "index "]
            .iter()
            .any(|p| body.starts_with(p))
        {
            Some(Kind::Header)
        } else if body.starts_with("@@") {
            Some(Kind::Hunk)
        } else if body.starts_with('+') {
            Some(Kind::Added)
        } else if body.starts_with('-') {
            Some(Kind::Removed)
        } else {
            None
        };
        if let Some(kind) = kind {
            spans.mark(kind, at, at + body.len());
        }
        at += line.len();
    }
    spans
}
