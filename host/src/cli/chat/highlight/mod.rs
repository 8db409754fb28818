//! Fenced code in answers coloured by language: a small tokenizer per language family marks
//! keywords, strings, comments and numbers (and for shell the command word, flags and
//! variables; for a diff its added, removed and hunk lines). A language without a tokenizer is
//! drawn in one colour, as before.
//!
//! The code is escaped with the one terminal escaping function before it is cut into tokens,
//! so every token is escaped text: colouring only wraps pieces of it in SGR codes, and taking
//! those codes out gives back exactly the escaped text. A painted piece never spans a line, so
//! the renderer can put its indentation in front of each line.

mod code;
mod languages;
mod shell;

use super::style::Style;
use crate::domain::escape::terminal;

/// What a token is, which decides its colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Keyword,
    Str,
    Comment,
    Number,
    /// The command word of a shell line.
    Command,
    /// A shell word starting with `-`.
    Flag,
    /// A shell variable or parameter.
    Variable,
    Added,
    Removed,
    Hunk,
    /// A diff's file header line.
    Header,
    /// Code in a language without a tokenizer.
    Other,
}

impl Kind {
    /// The SGR code a token of this kind is painted with.
    fn sgr(self) -> &'static str {
        match self {
            Kind::Keyword => "35",
            Kind::Str => "32",
            Kind::Comment => "2",
            Kind::Number => "33",
            Kind::Command => "1;34",
            Kind::Flag => "36",
            Kind::Variable => "33",
            Kind::Added => "32",
            Kind::Removed => "31",
            Kind::Hunk => "36",
            Kind::Header => "1",
            Kind::Other => "36",
        }
    }
}

/// The tokens of one text: `(kind, start, end)` byte ranges in order; text between them is
/// plain. Every range starts and ends on a character boundary.
#[derive(Debug, Default)]
pub(super) struct Spans {
    spans: Vec<(Kind, usize, usize)>,
    /// Where the last token ended.
    at: usize,
}

impl Spans {
    /// Mark `start..end` as a token of `kind`; ranges come in order and do not overlap.
    pub(super) fn mark(&mut self, kind: Kind, start: usize, end: usize) {
        if start >= self.at && end > start {
            self.spans.push((kind, start, end));
            self.at = end;
        }
    }

    /// The tokens of a piece of the text that starts at byte `offset`.
    pub(super) fn append(&mut self, other: Spans, offset: usize) {
        for (kind, start, end) in other.spans {
            self.mark(kind, start + offset, end + offset);
        }
    }
}

/// A language family, chosen by a fence's info string.
#[derive(Debug, Clone, Copy)]
enum Family {
    Code(&'static code::Syntax),
    Shell,
    Console,
    Diff,
}

/// The family of a fence's language (its first word, before any `,` or `{`), if it has one.
fn family(lang: &str) -> Option<Family> {
    let word = lang
        .split(|c: char| c.is_whitespace() || c == ',' || c == '{')
        .next()
        .unwrap_or("")
        .to_ascii_lowercase();
    let syntax = match word.as_str() {
        "rust" | "rs" => &languages::RUST,
        "python" | "py" | "python3" | "py3" => &languages::PYTHON,
        "javascript" | "js" | "jsx" | "mjs" | "cjs" | "typescript" | "ts" | "tsx" => {
            &languages::JAVASCRIPT
        }
        "json" | "jsonc" | "json5" => &languages::JSON,
        "toml" => &languages::TOML,
        "yaml" | "yml" => &languages::YAML,
        "c" | "h" => &languages::C,
        "cpp" | "c++" | "cc" | "cxx" | "hpp" | "hh" => &languages::CPP,
        "go" | "golang" => &languages::GO,
        "java" => &languages::JAVA,
        "sh" | "bash" | "shell" | "zsh" | "shellscript" => return Some(Family::Shell),
        "console" | "shell-session" | "terminal" => return Some(Family::Console),
        "diff" | "patch" => return Some(Family::Diff),
        _ => return None,
    };
    Some(Family::Code(syntax))
}

/// `code`, the body of a block fenced with language `lang`, escaped for the terminal and
/// coloured by its tokens when `style` has colour.
pub(crate) fn highlight(lang: &str, code: &str, style: Style) -> String {
    let text = terminal(code);
    let spans = match family(lang) {
        Some(Family::Code(syntax)) => code::lex(&text, syntax),
        Some(Family::Shell) => shell::lex(&text),
        Some(Family::Console) => shell::console(&text),
        Some(Family::Diff) => shell::diff(&text),
        None => {
            let mut all = Spans::default();
            all.mark(Kind::Other, 0, text.len());
            all
        }
    };
    let mut out = String::with_capacity(text.len() + text.len() / 2);
    let mut at = 0;
    for (kind, start, end) in spans.spans {
        out.push_str(text.get(at..start).unwrap_or(""));
        paint_lines(&mut out, kind, text.get(start..end).unwrap_or(""), style);
        at = end;
    }
    out.push_str(text.get(at..).unwrap_or(""));
    out
}

/// `piece` painted as `kind`, line by line, so that no colour spans a line break.
fn paint_lines(out: &mut String, kind: Kind, piece: &str, style: Style) {
    for (n, line) in piece.split('\n').enumerate() {
        if n > 0 {
            out.push('\n');
        }
        if !line.is_empty() {
            out.push_str(&style.paint(kind.sgr(), line));
        }
    }
}

#[cfg(test)]
mod tests;
