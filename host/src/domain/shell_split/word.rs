//! One word of a command: its text after quote removal when nothing in it expands, and the
//! commands its substitutions run (walked like any other command).

use brush_parser::word::{WordPiece, WordPieceWithSource};

use super::{Split, Word, walk};

/// The word written as `raw`; the commands it runs go to `out`.
pub(super) fn word(raw: &str, depth: usize, out: &mut Split) -> Word {
    let pieces = match brush_parser::word::parse(raw, &walk::options()) {
        Ok(pieces) => pieces,
        Err(err) => {
            out.uncertain
                .push(format!("cannot parse the word `{raw}`: {err}"));
            return Word {
                text: raw.to_owned(),
                literal: false,
            };
        }
    };
    let mut built = Built {
        text: String::new(),
        literal: true,
    };
    for piece in &pieces {
        built.piece(piece, false, raw, depth, out);
    }
    Word {
        text: if built.literal {
            built.text
        } else {
            raw.to_owned()
        },
        literal: built.literal,
    }
}

/// The commands run by the substitutions of a here-document's body (one that expands).
pub(super) fn heredoc_body(raw: &str, depth: usize, out: &mut Split) {
    match brush_parser::word::parse_heredoc(raw, &walk::options()) {
        Ok(pieces) => {
            let mut built = Built {
                text: String::new(),
                literal: true,
            };
            for piece in &pieces {
                built.piece(piece, true, raw, depth, out);
            }
        }
        Err(err) => out
            .uncertain
            .push(format!("cannot parse a here-document's body: {err}")),
    }
}

struct Built {
    text: String,
    literal: bool,
}

impl Built {
    fn piece(
        &mut self,
        piece: &WordPieceWithSource,
        quoted: bool,
        raw: &str,
        depth: usize,
        out: &mut Split,
    ) {
        let source = raw.get(piece.start_index..piece.end_index).unwrap_or(raw);
        match &piece.piece {
            WordPiece::Text(text) => {
                if !quoted && expands_unquoted(text) {
                    self.literal = false;
                }
                self.text.push_str(text);
            }
            WordPiece::SingleQuotedText(text) => self.text.push_str(text),
            WordPiece::AnsiCQuotedText(text) => {
                self.literal = false;
                self.text.push_str(text);
            }
            WordPiece::DoubleQuotedSequence(inner)
            | WordPiece::GettextDoubleQuotedSequence(inner) => {
                for piece in inner {
                    self.piece(piece, true, raw, depth, out);
                }
            }
            WordPiece::TildeExpansion(_) => {
                self.literal = false;
                self.text.push('~');
            }
            WordPiece::ParameterExpansion(_) => {
                self.literal = false;
                if let Some(why) = risky_parameter(source) {
                    out.uncertain.push(format!("`{source}`: {why}"));
                }
                self.text.push_str(source);
            }
            WordPiece::CommandSubstitution(inner) => {
                self.literal = false;
                walk::program(inner, depth + 1, out);
                self.text.push_str(source);
            }
            WordPiece::BackquotedCommandSubstitution(inner) => {
                self.literal = false;
                walk::program(&unescape_backquoted(inner), depth + 1, out);
                self.text.push_str(source);
            }
            WordPiece::EscapeSequence(escape) => {
                let mut chars = escape.chars();
                chars.next();
                let rest = chars.as_str();
                if rest == "\n" {
                } else if quoted && !matches!(rest, "$" | "`" | "\"" | "\\") {
                    self.text.push_str(escape);
                } else {
                    self.text.push_str(rest);
                }
            }
            WordPiece::ArithmeticExpression(expr) => {
                self.literal = false;
                if !plain_arithmetic(&expr.value) {
                    out.uncertain.push(format!(
                        "arithmetic `{source}` may evaluate a variable (bash runs `$(…)` found in its value)"
                    ));
                }
                self.text.push_str(source);
            }
        }
    }
}

/// Unquoted text that globbing or brace expansion may change.
fn expands_unquoted(text: &str) -> bool {
    let bracket = match (text.find('['), text.rfind(']')) {
        (Some(open), Some(close)) => open < close,
        _ => false,
    };
    bracket
        || text.contains(['*', '?', '('])
        || (text.contains('{') && (text.contains(',') || text.contains("..")))
}

/// Why a parameter expansion may run a command, if it may.
fn risky_parameter(source: &str) -> Option<&'static str> {
    if source.contains('[') {
        return Some("an array subscript is evaluated as arithmetic");
    }
    if source.starts_with("${!") {
        return Some("an indirect expansion names another variable");
    }
    if source.contains('@') && source != "$@" && source != "${@}" {
        return Some("a transformation (`@P` expands prompts)");
    }
    if source.contains("$(") || source.contains('`') || source.contains("<(") {
        return Some("a substitution inside a parameter expansion");
    }
    if let Some(rest) = source.strip_prefix("${") {
        let after_name = rest.trim_start_matches(|c: char| c.is_ascii_alphanumeric() || c == '_');
        if let Some(op) = after_name.strip_prefix(':')
            && !op.starts_with(['-', '=', '?', '+'])
        {
            return Some("a substring offset is evaluated as arithmetic");
        }
    }
    None
}

/// Arithmetic with only numbers and operators: it can name no variable.
pub(super) fn plain_arithmetic(text: &str) -> bool {
    text.chars()
        .all(|c| c.is_ascii_digit() || " \t\n+-*/%()<>=!&|^~?:,".contains(c))
}

/// The text of a backquoted substitution as the shell parses it: `\$`, `` \` `` and `\\`
/// lose their backslash.
fn unescape_backquoted(inner: &str) -> String {
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\'
            && let Some(&next) = chars.peek()
            && matches!(next, '$' | '`' | '\\')
        {
            out.push(next);
            chars.next();
            continue;
        }
        out.push(c);
    }
    out
}
