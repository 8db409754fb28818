//! A model's JSON that holds a lone UTF-16 surrogate escape — `"\ud800"` without its low half
//! after it, or a low half (`"\udc00"`) alone — is refused whole by `serde_json`, which failed
//! the turn over one character. Each lone half is replaced by `\ufffd` (U+FFFD, the
//! replacement character) before the text is parsed, as a lossy UTF-8 decoder replaces a
//! broken byte; a well-formed pair, and an escaped backslash followed by `u` (`"\\ud800"`,
//! six characters of text), are left as they are.

use std::borrow::Cow;

/// `text` with every lone surrogate escape replaced (see the module documentation).
pub(crate) fn replaced_in_str(text: &str) -> Cow<'_, str> {
    match replaced(text.as_bytes()) {
        // Only ASCII escapes are replaced by ASCII escapes: still UTF-8.
        Some(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()),
        ),
        None => Cow::Borrowed(text),
    }
}

/// `body` with every lone surrogate escape replaced.
pub(crate) fn replaced_in_bytes(body: &[u8]) -> Cow<'_, [u8]> {
    match replaced(body) {
        Some(bytes) => Cow::Owned(bytes),
        None => Cow::Borrowed(body),
    }
}

/// The value of the `\uXXXX` escape at `at` (which starts with the backslash), if it is one.
fn escape_at(bytes: &[u8], at: usize) -> Option<u16> {
    let rest = bytes.get(at..at + 6)?;
    if rest[0] != b'\\' || rest[1] != b'u' {
        return None;
    }
    let hex = std::str::from_utf8(&rest[2..]).ok()?;
    u16::from_str_radix(hex, 16).ok()
}

const HIGH: std::ops::RangeInclusive<u16> = 0xd800..=0xdbff;
const LOW: std::ops::RangeInclusive<u16> = 0xdc00..=0xdfff;

/// The bytes with the lone halves replaced, or `None` when there is none.
fn replaced(bytes: &[u8]) -> Option<Vec<u8>> {
    if !bytes.windows(2).any(|w| w == b"\\u") {
        return None;
    }
    let mut out: Option<Vec<u8>> = None;
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] != b'\\' {
            if let Some(out) = out.as_mut() {
                out.push(bytes[i]);
            }
            i += 1;
            continue;
        }
        let (keep, lone) = match escape_at(bytes, i) {
            Some(high) if HIGH.contains(&high) => {
                match escape_at(bytes, i + 6).filter(|low| LOW.contains(low)) {
                    Some(_) => (12, false),
                    None => (6, true),
                }
            }
            Some(low) if LOW.contains(&low) => (6, true),
            Some(_) => (6, false),
            // Any other escape (`\\`, `\"`, `\n` …) is two bytes, copied as they are.
            None => (2, false),
        };
        let end = (i + keep).min(bytes.len());
        if lone {
            let out = out.get_or_insert_with(|| bytes[..i].to_vec());
            out.extend_from_slice(b"\\ufffd");
        } else if let Some(out) = out.as_mut() {
            out.extend_from_slice(&bytes[i..end]);
        }
        i = end;
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use proptest::prelude::*;

    use super::*;

    fn parsed(text: &str) -> String {
        serde_json::from_str::<String>(&replaced_in_str(text)).unwrap()
    }

    #[test]
    fn a_lone_half_is_replaced_and_a_pair_kept() {
        assert_eq!(parsed(r#""a\ud800b""#), "a\u{fffd}b");
        assert_eq!(parsed(r#""a\udc00b""#), "a\u{fffd}b");
        assert_eq!(parsed(r#""\ud800""#), "\u{fffd}");
        assert_eq!(parsed(r#""\ud800\ud800\udc00""#), "\u{fffd}\u{10000}");
        assert_eq!(parsed(r#""\ud83d\ude00""#), "😀");
        assert_eq!(parsed(r#""\\ud800""#), "\\ud800");
        assert_eq!(parsed(r#""\u00e9\n""#), "é\n");
        assert!(matches!(
            replaced_in_str(r#""plain \"text\"""#),
            Cow::Borrowed(_)
        ));
        assert_eq!(
            replaced_in_bytes(br#"{"t":"\udfff"}"#).as_ref(),
            br#"{"t":"\ufffd"}"#
        );
    }

    proptest! {
        /// Any sequence of `\uXXXX` escapes and text inside a string parses once replaced,
        /// and a text that parsed before is left exactly as it was.
        #[test]
        fn every_string_of_escapes_parses_once_replaced(
            parts in prop::collection::vec(
                prop_oneof![
                    (0u16..=u16::MAX).prop_map(|u| format!("\\u{u:04x}")),
                    "[a-z ]{0,3}",
                    // An escaped backslash: `\\` in the JSON text.
                    Just("\\\\".to_owned()),
                ],
                0..12,
            )
        ) {
            let text = format!("\"{}\"", parts.concat());
            let before = serde_json::from_str::<String>(&text);
            let after = serde_json::from_str::<String>(&replaced_in_str(&text));
            prop_assert!(after.is_ok(), "{text}");
            if let Ok(before) = before {
                prop_assert_eq!(before, after.unwrap());
            }
        }
    }
}
