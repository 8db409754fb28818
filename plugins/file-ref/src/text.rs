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
    let (end, cut) = text_end(bytes, cap, more_follows)?;
    Ok((proven_text(bytes[..end].to_vec(), end), cut))
}

/// [`checked_prefix`] of bytes the caller owns: the text is made in place, without a copy.
pub fn checked_prefix_owned(
    mut bytes: Vec<u8>,
    cap: usize,
    more_follows: bool,
) -> Result<(String, bool), NotText> {
    let (end, cut) = text_end(&bytes, cap, more_follows)?;
    bytes.truncate(end);
    Ok((proven_text(bytes, end), cut))
}

/// Where the text of at most `cap` bytes of `bytes` ends (a character boundary), and whether
/// that is a cut; or why `bytes` is not text. Plain ASCII (no NUL, no byte above 127) is
/// checked 256 bytes at a time in one pass; only from the first block holding anything else are
/// NUL and UTF-8 checked byte by byte.
fn text_end(bytes: &[u8], cap: usize, more_follows: bool) -> Result<(usize, bool), NotText> {
    let plain = plain_ascii_len(bytes);
    let rest = &bytes[plain..];
    if let Some(at) = rest.iter().position(|&b| b == 0) {
        return Err(NotText::Nul(plain + at));
    }
    let valid = match std::str::from_utf8(rest) {
        Ok(text) => text,
        Err(e) => {
            let incomplete_tail = e.error_len().is_none();
            if !(incomplete_tail && more_follows) {
                return Err(NotText::InvalidUtf8(plain + e.valid_up_to()));
            }
            // Sound: `valid_up_to` is the length of a valid prefix.
            std::str::from_utf8(&rest[..e.valid_up_to()])
                .map_err(|e| NotText::InvalidUtf8(plain + e.valid_up_to()))?
        }
    };
    let valid_len = plain + valid.len();
    let mut end = valid_len.min(cap);
    // Bytes before `plain` are ASCII: every offset there is a boundary.
    while end > plain && !valid.is_char_boundary(end - plain) {
        end -= 1;
    }
    Ok((end, more_follows || end < valid_len))
}

/// Bytes of a block checked at once by [`plain_ascii_len`].
const BLOCK: usize = 256;

/// The length of the longest prefix of `bytes`, in whole blocks, made only of bytes 1 to 127:
/// ASCII without NUL, valid UTF-8 as it stands.
fn plain_ascii_len(bytes: &[u8]) -> usize {
    let mut len = 0;
    for block in bytes.chunks_exact(BLOCK) {
        if !plain_block(block) {
            break;
        }
        len += BLOCK;
    }
    len
}

/// Whether every byte of a block is between 1 and 127, with 128-bit vectors: as signed bytes,
/// the smallest of them is above 0 (one test per block keeps the loop short).
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn plain_block(block: &[u8]) -> bool {
    use core::arch::wasm32::{i8x16_all_true, i8x16_gt, i8x16_min, i8x16_splat, v128, v128_load};
    let mut least = i8x16_splat(i8::MAX);
    for chunk in block.chunks_exact(16) {
        // SAFETY: `chunk` holds 16 readable bytes; wasm loads need no alignment.
        #[allow(unsafe_code)]
        let v = unsafe { v128_load(chunk.as_ptr().cast::<v128>()) };
        least = i8x16_min(least, v);
    }
    i8x16_all_true(i8x16_gt(least, i8x16_splat(0)))
}

/// Whether every byte of a block is between 1 and 127, eight bytes at a time: for such bytes,
/// neither a byte nor the byte minus one (with the borrow of a lower 0 byte) has its high bit
/// set, so one OR over the block tells both checks at once.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn plain_block(block: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut seen = 0u64;
    for chunk in block.chunks_exact(8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let word = u64::from_le_bytes(word);
        seen |= word | word.wrapping_sub(ONES);
    }
    seen & HIGH == 0
}

/// `bytes` as a `String`, without checking them a second time.
///
/// Only [`checked_prefix`] and [`checked_prefix_owned`] call it, with `bytes` of length `end`
/// as returned by [`text_end`]: a prefix of plain ASCII followed by bytes `from_utf8` accepted,
/// cut at a character boundary. The debug assertion re-checks in tests.
#[allow(unsafe_code)]
fn proven_text(bytes: Vec<u8>, end: usize) -> String {
    debug_assert_eq!(bytes.len(), end);
    debug_assert!(std::str::from_utf8(&bytes).is_ok());
    // SAFETY: `text_end` proved `bytes` valid UTF-8 (see above).
    unsafe { String::from_utf8_unchecked(bytes) }
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

    /// The one-pass check against the plain definition: NUL first, then `from_utf8`, then the
    /// cut at a boundary, on many random inputs of ASCII, NUL, multi-byte and invalid bytes at
    /// every position around the blocks.
    #[test]
    fn one_pass_check_agrees_with_the_definition() {
        fn reference(bytes: &[u8], cap: usize, more: bool) -> Result<(String, bool), NotText> {
            if let Some(at) = bytes.iter().position(|&b| b == 0) {
                return Err(NotText::Nul(at));
            }
            let valid = match std::str::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) if e.error_len().is_none() && more => {
                    std::str::from_utf8(&bytes[..e.valid_up_to()]).unwrap_or_default()
                }
                Err(e) => return Err(NotText::InvalidUtf8(e.valid_up_to())),
            };
            let mut end = valid.len().min(cap);
            while !valid.is_char_boundary(end) {
                end -= 1;
            }
            Ok((valid[..end].to_owned(), more || end < valid.len()))
        }
        let pieces: [&[u8]; 8] = [
            b"a",
            b"\n",
            "é".as_bytes(),
            "€".as_bytes(),
            "𝄞".as_bytes(),
            b"\0",
            b"\xff",
            b"\x7f",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let len = (next() % (3 * BLOCK as u64 + 20)) as usize;
            let mut bytes = vec![b'x'; len];
            // Mostly ASCII, with a few other pieces at random places.
            for _ in 0..(next() % 4) {
                let piece = pieces[(next() % pieces.len() as u64) as usize];
                let at = (next() % (len as u64 + 1)) as usize;
                bytes.splice(at..at, piece.iter().copied());
            }
            if next() % 3 == 0 {
                let cut = (next() % (bytes.len() as u64 + 1)) as usize;
                bytes.truncate(cut);
            }
            let cap = (next() % (bytes.len() as u64 + 2)) as usize;
            let more = next() % 2 == 0;
            let expected = reference(&bytes, cap, more);
            assert_eq!(
                checked_prefix(&bytes, cap, more),
                expected,
                "{bytes:?} cap {cap}"
            );
            assert_eq!(checked_prefix_owned(bytes.clone(), cap, more), expected);
        }
    }

    #[test]
    fn plain_ascii_stops_at_the_first_block_with_anything_else() {
        let mut bytes = vec![b'a'; BLOCK * 3 + 10];
        assert_eq!(plain_ascii_len(&bytes), BLOCK * 3);
        for (at, byte) in [
            (0, 0u8),
            (BLOCK - 1, 0x80),
            (BLOCK, 0),
            (BLOCK + 70, 0xc3),
            (3 * BLOCK - 1, 0),
        ] {
            let saved = bytes[at];
            bytes[at] = byte;
            assert_eq!(
                plain_ascii_len(&bytes),
                at / BLOCK * BLOCK,
                "byte {byte:#x} at {at}"
            );
            bytes[at] = saved;
        }
        // 0x01 and 0x7f are plain; a 0x00 after a 0x01 is still seen (borrow across bytes).
        let mut edge = vec![0x7fu8; BLOCK];
        edge[8] = 1;
        assert_eq!(plain_ascii_len(&edge), BLOCK);
        edge[9] = 0;
        assert_eq!(plain_ascii_len(&edge), 0);
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
