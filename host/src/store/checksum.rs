//! The checksum that seals each line of `history.jsonl`: the first 64 bits of the SHA-256 of
//! the line as serialized without its `sum` field, written as 16 lowercase hex digits in a
//! `"sum"` field that is always the last one of the line.
//!
//! Because the sum covers the line's bytes as written, every field of the record is covered,
//! including fields added by later versions. A line that ends with anything other than a
//! well-formed `,"sum":"<16 hex>"}` carries no checksum.

use sha2::{Digest, Sha256};

/// The text between the covered bytes and the digest.
const PREFIX: &[u8] = b",\"sum\":\"";
/// Hex digits of the digest.
const DIGITS: usize = 16;
/// Everything the sum adds to a line: prefix, digits, closing quote and brace.
const SUFFIX_LEN: usize = PREFIX.len() + DIGITS + 2;

/// What checking one line found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Seal {
    /// The line carries a sum, and it matches.
    Valid,
    /// The line carries no sum (written before checksums, or the sum itself is damaged).
    Missing,
    /// The line carries a sum that does not match its content.
    Mismatch {
        /// The sum the line carries.
        found: String,
        /// The sum of the line's content.
        computed: String,
    },
}

/// Appends the sum to `line`, a JSON object without a trailing newline. Returns `false` (and
/// leaves the line unchanged) if it does not end with `}`.
pub(crate) fn seal(line: &mut Vec<u8>) -> bool {
    seal_from(line, 0)
}

/// [`seal`] for the line that starts at byte `start` of `buf` and runs to its end.
pub(crate) fn seal_from(line: &mut Vec<u8>, start: usize) -> bool {
    if line.len() <= start || line.last() != Some(&b'}') {
        return false;
    }
    let digest = digest(&line[start..]);
    line.pop();
    line.extend_from_slice(PREFIX);
    line.extend_from_slice(digest.as_bytes());
    line.extend_from_slice(b"\"}");
    true
}

/// Checks the sum of `line` (without its newline).
pub(crate) fn check(line: &[u8]) -> Seal {
    let Some(start) = line.len().checked_sub(SUFFIX_LEN) else {
        return Seal::Missing;
    };
    let (body, suffix) = line.split_at(start);
    let Some(rest) = suffix.strip_prefix(PREFIX) else {
        return Seal::Missing;
    };
    let (digits, close) = rest.split_at(DIGITS);
    if close != b"\"}"
        || !digits
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
    {
        return Seal::Missing;
    }
    // The covered bytes are the body and the closing brace, hashed without copying the line.
    let computed = hex(&Sha256::new()
        .chain_update(body)
        .chain_update(b"}")
        .finalize());
    if computed.as_bytes() == digits {
        Seal::Valid
    } else {
        Seal::Mismatch {
            found: String::from_utf8_lossy(digits).into_owned(),
            computed,
        }
    }
}

fn digest(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// The first [`DIGITS`] hex digits of `hash`.
fn hex(hash: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(DIGITS);
    for b in &hash[..DIGITS / 2] {
        out.push(char::from(HEX[usize::from(b >> 4)]));
        out.push(char::from(HEX[usize::from(b & 0xf)]));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_line_checks_and_stays_json() -> Result<(), serde_json::Error> {
        let mut line = br#"{"seq":1,"item":{"role":"user","text":"hi"}}"#.to_vec();
        assert!(seal(&mut line));
        assert_eq!(check(&line), Seal::Valid);
        let v: serde_json::Value = serde_json::from_slice(&line)?;
        assert_eq!(v["sum"].as_str().map(str::len), Some(16));
        assert_eq!(v["item"]["text"], "hi");
        Ok(())
    }

    #[test]
    fn any_flipped_letter_is_a_mismatch_or_missing_sum() {
        let mut line = br#"{"seq":1,"item":{"role":"user","text":"hello"}}"#.to_vec();
        assert!(seal(&mut line));
        for i in 0..line.len() {
            let mut bad = line.clone();
            bad[i] ^= 0x01;
            assert_ne!(check(&bad), Seal::Valid, "flip at byte {i}");
        }
    }

    #[test]
    fn unsealed_lines_have_no_sum() {
        assert_eq!(check(br#"{"seq":1}"#), Seal::Missing);
        assert_eq!(check(b""), Seal::Missing);
        assert_eq!(check(br#"{"a":1,"sum":"XYZ"}"#), Seal::Missing);
    }
}
