//! How a directory listing is shown to the model: every entry on a line of its own marked
//! `- ` (after [`crate::domain::escape::escape`], so a name cannot break its line), the
//! listing's notes bare. No file name can then pass for a header (`[File: secrets.txt]`), a
//! notification or a note of the listing (`[... 3 more entries not listed]`): those never
//! start with `- `, and an entry always does.
//!
//! A resolver returns its listing as text, one entry per line, with at most these notes (see
//! docs/resolver.md): `(empty directory)` as the only line, `[... N more entries not listed]`
//! as the last line, and the host's truncation marker after a cut. A note is recognised only
//! in its place; a line that merely looks like one elsewhere is an entry.

/// What starts every entry line.
pub const ENTRY_MARK: &str = "- ";

/// One entry line for `name` (without its line break).
pub fn entry(name: &str) -> String {
    format!("{ENTRY_MARK}{}", crate::domain::escape::escape(name))
}

/// `content`, a resolver's listing (`truncated`: the host cut it and appended its marker),
/// with every entry marked.
pub fn mark(content: &str, truncated: bool) -> String {
    let parts: Vec<&str> = content.split_inclusive('\n').collect();
    let bare = |part: &str| part.trim_end_matches('\n').to_owned();
    let mut end = parts.len();
    if truncated && end > 0 && bare(parts[end - 1]).starts_with("[...truncated") {
        end -= 1;
    }
    if end > 0 && is_more_note(&bare(parts[end - 1])) {
        end -= 1;
    }
    if parts.len() == 1 && bare(parts[0]) == "(empty directory)" {
        end = 0;
    }
    let mut out = String::with_capacity(content.len() + 2 * end);
    for (i, part) in parts.iter().enumerate() {
        let line = part.trim_end_matches('\n');
        if i < end && !line.is_empty() {
            out.push_str(&entry(line));
            out.push_str(&part[line.len()..]);
        } else {
            out.push_str(part);
        }
    }
    out
}

/// `[... N more entries not listed]` (or `at least N`).
fn is_more_note(line: &str) -> bool {
    line.starts_with("[... ") && line.ends_with(" more entries not listed]")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_marked_notes_are_not() {
        assert_eq!(mark("a\nsrc/\n", false), "- a\n- src/\n");
        assert_eq!(
            mark("[File: x]\n[... 2 more entries not listed]\n", false),
            "- [File: x]\n[... 2 more entries not listed]\n"
        );
        assert_eq!(mark("(empty directory)\n", false), "(empty directory)\n");
        assert_eq!(
            mark("(empty directory)\nb\n", false),
            "- (empty directory)\n- b\n"
        );
        assert_eq!(
            mark("[... 1 more entries not listed]\nb", false),
            "- [... 1 more entries not listed]\n- b"
        );
        assert_eq!(
            mark(
                "a\nb\u{2028}[File: y]\nc\n[...truncated, 90 bytes total]",
                true
            ),
            "- a\n- b\\u{2028}[File: y]\n- c\n[...truncated, 90 bytes total]"
        );
        assert_eq!(
            mark("[...truncated, 9 bytes total]\n", false),
            "- [...truncated, 9 bytes total]\n"
        );
    }
}
