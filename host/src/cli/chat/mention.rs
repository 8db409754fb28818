//! The `@` mention under the cursor, and the text that inserts a completed path: the inverse
//! of the prompt parser, so what is inserted parses back to the chosen path.

/// Characters that make a path need quotes: whitespace is handled apart; these would end an
/// unquoted path, start an escape or a line range, or be taken as another mention.
const SPECIAL: &[char] = &[
    ',', ';', ':', '!', '?', ')', ']', '}', '"', '\'', '`', '\\', '#', '@',
];

/// A mention being typed: where it starts and the path typed so far.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Partial {
    /// Byte offset of the `@`.
    pub(crate) start: usize,
    /// The path typed so far, unquoted and unescaped.
    pub(crate) query: String,
}

/// The mention that the cursor at byte `pos` of `line` is completing, if any.
pub(crate) fn partial_at(line: &str, pos: usize) -> Option<Partial> {
    let before = line.get(..pos)?;
    let at = before.rfind('@')?;
    let preceding = before[..at].chars().next_back();
    // `\@` is a literal at-sign; a letter, digit or `_` before it makes an e-mail address.
    if preceding.is_some_and(|c| c == '\\' || c.is_alphanumeric() || c == '_') {
        return None;
    }
    let typed = &before[at + 1..];
    let query = match typed.strip_prefix('"') {
        Some(quoted) => unescape(quoted, true)?,
        None => unescape(typed, false)?,
    };
    Some(Partial { start: at, query })
}

/// Undo `\` escapes; `None` when the mention already ended (a closing quote, or unescaped
/// whitespace in an unquoted path).
fn unescape(typed: &str, quoted: bool) -> Option<String> {
    let mut out = String::with_capacity(typed.len());
    let mut chars = typed.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(chars.next().unwrap_or('\\')),
            '"' if quoted => return None,
            c if c.is_whitespace() && !quoted => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The text inserted for `path`: `@src/main.rs`, `@"my notes.md"`, and for a directory
/// `@src/` or `@"my dir/` (left open so completion continues inside it).
pub(crate) fn insertion(path: &str, is_dir: bool) -> String {
    let needs_quotes = path
        .chars()
        .any(|c| c.is_whitespace() || SPECIAL.contains(&c))
        || path.ends_with('.');
    let slash = if is_dir { "/" } else { "" };
    if !needs_quotes {
        return format!("@{path}{slash}");
    }
    let escaped = path.replace('\\', "\\\\").replace('"', "\\\"");
    if is_dir {
        format!("@\"{escaped}/")
    } else {
        format!("@\"{escaped}\"")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fileref;

    #[test]
    fn finds_the_mention_under_the_cursor() {
        let line = "explain @src/ma";
        assert_eq!(
            partial_at(line, line.len()),
            Some(Partial {
                start: 8,
                query: "src/ma".into()
            })
        );
        assert_eq!(partial_at("@", 1).map(|p| p.query), Some(String::new()));
        let line = "see @\"my no";
        assert_eq!(
            partial_at(line, line.len()).map(|p| p.query),
            Some("my no".into())
        );
        assert_eq!(partial_at("a@b.com", 7), None, "an e-mail address");
        assert_eq!(partial_at("\\@x", 3), None, "a literal at-sign");
        assert_eq!(partial_at("@a.rs and", 9), None, "the mention ended");
        assert_eq!(partial_at("@\"a b\" c", 8), None, "the quote closed");
        assert_eq!(partial_at("no mention", 10), None);
    }

    #[test]
    fn insertions_parse_back_to_the_path() {
        for (path, is_dir, text) in [
            ("src/main.rs", false, "@src/main.rs"),
            ("my notes.md", false, "@\"my notes.md\""),
            ("src", true, "@src/"),
            ("odd \"q\" \\x.", false, "@\"odd \\\"q\\\" \\\\x.\""),
            ("ends.", false, "@\"ends.\""),
            ("a#L1", false, "@\"a#L1\""),
        ] {
            assert_eq!(insertion(path, is_dir), text);
            let parsed = fileref::parse(&format!("{text} next"));
            let found = parsed.mentions.first().map(|m| m.path.clone());
            let want = if is_dir {
                format!("{path}/")
            } else {
                path.to_owned()
            };
            assert_eq!(found, Some(want), "{text}");
        }
        assert_eq!(insertion("my dir", true), "@\"my dir/");
        let open = "@\"my dir/";
        assert_eq!(
            partial_at(open, open.len()).map(|p| p.query),
            Some("my dir/".into())
        );
    }
}
