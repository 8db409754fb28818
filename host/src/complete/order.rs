//! The orders of ranked candidates: by score (a query), by depth (a listing), then the
//! shorter path, then the byte-wise smaller one.

use std::cmp::Ordering;

use super::index::Entry;
use super::rank::Match;

/// Listing order: shallower first.
pub(super) fn by_depth(a: &Match<'_>, b: &Match<'_>) -> Ordering {
    a.entry
        .depth
        .cmp(&b.entry.depth)
        .then_with(|| tie(&a.entry, &b.entry))
}

/// Query order: higher score first.
pub(super) fn by_score(a: &Match<'_>, b: &Match<'_>) -> Ordering {
    b.score.cmp(&a.score).then_with(|| tie(&a.entry, &b.entry))
}

fn tie(a: &Entry<'_>, b: &Entry<'_>) -> Ordering {
    a.path
        .len()
        .cmp(&b.path.len())
        .then_with(|| same_length_cmp(a.path.as_bytes(), b.path.as_bytes()))
}

/// `a.cmp(b)` for byte strings of the same length, eight bytes at a time: most ranked paths
/// differ within their first few bytes, where a call to `memcmp` would cost more than the
/// comparison itself.
fn same_length_cmp(a: &[u8], b: &[u8]) -> Ordering {
    let (mut a8, mut b8) = (a.chunks_exact(8), b.chunks_exact(8));
    for (x, y) in (&mut a8).zip(&mut b8) {
        let word = |w: &[u8]| <[u8; 8]>::try_from(w).map_or(0, u64::from_be_bytes);
        match word(x).cmp(&word(y)) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    a8.remainder().iter().cmp(b8.remainder().iter())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_length_cmp_is_the_byte_order() {
        let words = [
            "",
            "a",
            "b",
            "pkg0420/mod3/file_077.rs",
            "pkg0420/mod3/file_078.rs",
            "pkg0420/mod3/file_07.rs",
            "pkg0421/mod3/file_077.rs",
            "abcdefgh",
            "abcdefgi",
            "abcdefghabcdefgh",
            "abcdefghabcdefgg",
            "\u{e9}\u{e9}\u{e9}\u{e9}",
            "zzzzzzzz",
        ];
        for a in words {
            for b in words.iter().filter(|b| b.len() == a.len()) {
                assert_eq!(
                    same_length_cmp(a.as_bytes(), b.as_bytes()),
                    a.cmp(b),
                    "{a:?} {b:?}"
                );
            }
        }
    }
}
