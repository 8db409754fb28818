//! Globs for tool names and paths: `*` matches within one path component, `**` across them,
//! `?` one character. Tool names have no `/`, so there `*` matches anything.

/// Whether `text` matches `pattern`.
pub fn glob_match(pattern: &str, text: &str) -> bool {
    matches(pattern.as_bytes(), text.as_bytes())
}

fn matches(pattern: &[u8], text: &[u8]) -> bool {
    match pattern.split_first() {
        None => text.is_empty(),
        Some((b'*', rest)) if rest.first() == Some(&b'*') => {
            let rest = &rest[1..];
            // `**/` also matches no directory at all.
            if let Some(after) = rest.strip_prefix(b"/")
                && matches(after, text)
            {
                return true;
            }
            (0..=text.len()).any(|at| matches(rest, &text[at..]))
        }
        Some((b'*', rest)) => {
            let mut at = 0;
            loop {
                if matches(rest, &text[at..]) {
                    return true;
                }
                match text.get(at) {
                    Some(b'/') | None => return false,
                    Some(_) => at += 1,
                }
            }
        }
        Some((b'?', rest)) => text
            .split_first()
            .is_some_and(|(c, tail)| *c != b'/' && matches(rest, tail)),
        Some((c, rest)) => text
            .split_first()
            .is_some_and(|(t, tail)| t == c && matches(rest, tail)),
    }
}
