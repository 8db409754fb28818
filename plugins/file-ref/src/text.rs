//! Text checks and cuts: NUL and UTF-8 validation, cutting at a character boundary, and the
//! truncation marker.

/// Bytes read past a cap: enough to tell a cut character from an invalid one.
pub const MARGIN: usize = 4;

/// The marker that ends truncated content (shared with the host).
pub use warden_defaults::truncation_marker;

/// Append the truncation marker on a line of its own.
pub fn append_marker(content: &mut String, total_bytes: u64) {
    if !content.is_empty() && !content.ends_with('\n') {
        content.push('\n');
    }
    content.push_str(&truncation_marker(total_bytes));
}

/// Why bytes are not text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotText {
    /// A NUL byte at this offset.
    Nul(usize),
    /// Invalid UTF-8 at this offset.
    InvalidUtf8(usize),
}

impl NotText {
    /// For a person.
    pub fn describe(self) -> String {
        match self {
            Self::Nul(at) => format!("contains a NUL byte at offset {at}"),
            Self::InvalidUtf8(at) => format!("is not valid UTF-8 (at offset {at})"),
        }
    }
}

/// Check `bytes` and return the text of at most `cap` bytes, cut at a character boundary.
///
/// `more_follows` says that `bytes` is a prefix of something longer: an incomplete character
/// at its very end is then a cut, not an error. Returns the text and whether it was cut.
pub fn checked_prefix(
    bytes: &[u8],
    cap: usize,
    more_follows: bool,
) -> Result<(String, bool), NotText> {
    // `contains` scans a word at a time; find the offset only when there is one.
    if bytes.contains(&0) {
        return Err(NotText::Nul(
            bytes.iter().position(|&b| b == 0).unwrap_or(0),
        ));
    }
    let valid = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let incomplete_tail = e.error_len().is_none();
            if !(incomplete_tail && more_follows) {
                return Err(NotText::InvalidUtf8(e.valid_up_to()));
            }
            // Sound: `valid_up_to` is the length of a valid prefix.
            std::str::from_utf8(&bytes[..e.valid_up_to()])
                .map_err(|e| NotText::InvalidUtf8(e.valid_up_to()))?
        }
    };
    let mut end = valid.len().min(cap);
    while !valid.is_char_boundary(end) {
        end -= 1;
    }
    Ok((valid[..end].to_owned(), more_follows || end < valid.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_text_is_not_cut() {
        assert_eq!(checked_prefix(b"abc", 10, false), Ok(("abc".into(), false)));
    }

    #[test]
    fn cut_at_cap_respects_char_boundary() {
        let text = "aé€"; // 1 + 2 + 3 bytes
        for cap in 0..=6 {
            let (out, cut) = checked_prefix(text.as_bytes(), cap, false).unwrap_or_default();
            assert!(out.len() <= cap);
            assert!(text.starts_with(&out));
            assert_eq!(cut, cap < 6);
        }
        assert_eq!(
            checked_prefix(text.as_bytes(), 2, false),
            Ok(("a".into(), true))
        );
    }

    #[test]
    fn incomplete_tail_is_a_cut_only_when_more_follows() {
        let bytes = &"a€".as_bytes()[..3];
        assert_eq!(checked_prefix(bytes, 10, true), Ok(("a".into(), true)));
        assert_eq!(
            checked_prefix(bytes, 10, false),
            Err(NotText::InvalidUtf8(1))
        );
    }

    #[test]
    fn nul_and_invalid_bytes_are_not_text() {
        assert_eq!(checked_prefix(b"a\0b", 10, false), Err(NotText::Nul(1)));
        assert_eq!(
            checked_prefix(b"a\xffb", 10, true),
            Err(NotText::InvalidUtf8(1))
        );
    }

    #[test]
    fn marker_on_its_own_line() {
        let mut s = "abc".to_owned();
        append_marker(&mut s, 99);
        assert_eq!(
            s,
            "abc\n[...truncated, 99 bytes total — use read_file for the rest]"
        );
        let mut s = "abc\n".to_owned();
        append_marker(&mut s, 99);
        assert!(s.starts_with("abc\n[...truncated"));
    }
}
