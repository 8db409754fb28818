//! One entry against one query: the ranking tiers of [`super::rank`], best first, and the
//! fuzzy match's points.

use memchr::memmem::Finder;

use super::index::Entry;
use super::rank::{
    EXACT_NAME, EXACT_PATH, FUZZY_MAX, NAME_CONTAINS, NAME_PREFIX, PATH_CONTAINS, PATH_PREFIX,
};

/// How an entry fared against a query.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Scored {
    /// It matches, with this score.
    Hit(u32),
    /// It does not match.
    Miss,
    /// No substring tier matches, and the fuzzy one was not tried.
    NotTried,
}

/// Score of `entry` for the lower-case `query` (whose byte search is `finder`), matched
/// against the path from byte `skip` on. Only scores of at least `wanted` matter: the tiers
/// below it are not searched (the entry is then [`Scored::NotTried`] unless a higher tier
/// matched), and the fuzzy one only when `wanted` is at most [`FUZZY_MAX`].
pub(super) fn score(
    entry: &Entry<'_>,
    skip: usize,
    query: &str,
    finder: &Finder<'_>,
    wanted: u32,
) -> Scored {
    scored(tiers(entry, skip, query, finder, wanted, None))
}

/// [`score`] from byte 0, for an entry whose lower-case path holds `query` first at byte
/// `first` (a search over the arena found it), or whose name starts with it ([`name_begins`]:
/// `first` is then not read).
pub(super) fn score_found(
    entry: &Entry<'_>,
    query: &str,
    finder: &Finder<'_>,
    first: usize,
    wanted: u32,
) -> Scored {
    scored(tiers(entry, 0, query, finder, wanted, Some(first)))
}

fn scored(tiers: Option<Option<u32>>) -> Scored {
    match tiers {
        Some(Some(score)) => Scored::Hit(score),
        Some(None) => Scored::NotTried,
        None => Scored::Miss,
    }
}

/// The fuzzy tier alone (from byte 0), for an entry whose lower-case path is known not to
/// contain the lower-case `query` (no substring tier can match it) and to hold the query's
/// first byte first at byte `first_at`; `ascii` says whether the query is ASCII.
pub(super) fn score_fuzzy(entry: &Entry<'_>, query: &str, ascii: bool, first_at: usize) -> Scored {
    let found = if ascii {
        fuzzy_ascii_from(entry.lower.as_bytes(), query.as_bytes(), first_at)
    } else {
        fuzzy(entry.lower, query)
    };
    found.map_or(Scored::Miss, Scored::Hit)
}

/// [`score`]: `None` no match, `Some(None)` not tried far enough to know; `known` is where
/// the query first occurs in the path, when the caller found it already.
fn tiers(
    entry: &Entry<'_>,
    skip: usize,
    query: &str,
    finder: &Finder<'_>,
    wanted: u32,
    known: Option<usize>,
) -> Option<Option<u32>> {
    let path = entry.lower.get(skip..)?;
    let name = entry.lower.get(entry.name_at.max(skip)..)?;
    if path == query {
        return Some(Some(EXACT_PATH));
    }
    if name == query {
        return Some(Some(EXACT_NAME));
    }
    if begins_with(name.as_bytes(), query.as_bytes()) {
        return Some(Some(NAME_PREFIX));
    }
    if wanted > NAME_CONTAINS {
        return Some(None);
    }
    // Both are valid UTF-8, so a byte match is a match of whole characters.
    if wanted > PATH_CONTAINS {
        // Only a name containing the query, or (above PATH_CONTAINS) a path starting with it,
        // could still be kept: the path's other occurrences are not looked for.
        let name_from = path.len() - name.len();
        if known.is_some_and(|f| f >= name_from) || finder.find(name.as_bytes()).is_some() {
            return Some(Some(NAME_CONTAINS));
        }
        if wanted <= PATH_PREFIX && begins_with(path.as_bytes(), query.as_bytes()) {
            return Some(Some(PATH_PREFIX));
        }
        return Some(None);
    }
    match known.or_else(|| finder.find(path.as_bytes())) {
        Some(first) => {
            // `name` is the end of `path`.
            let name_from = path.len() - name.len();
            Some(Some(
                if first >= name_from || finder.find(name.as_bytes()).is_some() {
                    NAME_CONTAINS
                } else if first == 0 {
                    PATH_PREFIX
                } else {
                    PATH_CONTAINS
                },
            ))
        }
        None if wanted > FUZZY_MAX => Some(None),
        None if query.is_ascii() => fuzzy_ascii(path.as_bytes(), query.as_bytes()).map(Some),
        None => fuzzy(path, query).map(Some),
    }
}

/// Whether the lower-case name of `entry` starts with the lower-case `query` (then the path
/// holds it, and [`score_found`] decides its tier before looking where).
pub(super) fn name_begins(entry: &Entry<'_>, query: &str) -> bool {
    entry
        .lower
        .get(entry.name_at..)
        .is_some_and(|name| begins_with(name.as_bytes(), query.as_bytes()))
}

/// `s.starts_with(prefix)`, compared inline: a query is short and most entries differ in its
/// first bytes, where a call to `memcmp` would cost more than the comparison.
pub(super) fn begins_with(s: &[u8], prefix: &[u8]) -> bool {
    s.len() >= prefix.len() && s.iter().zip(prefix).all(|(a, b)| a == b)
}

/// The query's characters in order in `path` (leftmost match): 100, plus points for each
/// character that continues a run or starts a word, capped below the substring tiers.
fn fuzzy(path: &str, query: &str) -> Option<u32> {
    let mut rest = path.char_indices().peekable();
    let mut previous: Option<char> = None;
    let mut last_hit: Option<usize> = None;
    let mut points = 0u32;
    for wanted in query.chars() {
        loop {
            let (at, c) = rest.next()?;
            let here_prev = previous;
            previous = Some(c);
            if c != wanted {
                continue;
            }
            if last_hit.is_some_and(|l| path[l..at].chars().count() == 1) {
                points += 8;
            }
            if here_prev.is_none_or(|p| matches!(p, '/' | '_' | '-' | '.' | ' ')) {
                points += 12;
            }
            last_hit = Some(at);
            break;
        }
    }
    Some((100 + points).min(FUZZY_MAX))
}

/// [`fuzzy`] for an ASCII query, byte by byte: an ASCII byte in UTF-8 is always that
/// character, a hit is one byte long (so a run is the next byte), and the byte before a hit
/// that is part of a longer character is never a word separator, as that character is not.
fn fuzzy_ascii(path: &[u8], query: &[u8]) -> Option<u32> {
    let Some(&first) = query.first() else {
        return Some(100);
    };
    // Most paths that do not match lack the first character: one vectorised search says so.
    fuzzy_ascii_from(path, query, memchr::memchr(first, path)?)
}

/// [`fuzzy_ascii`] for a non-empty query whose first byte is first in `path` at `start`: each
/// next query byte is the next occurrence after the previous hit.
fn fuzzy_ascii_from(path: &[u8], query: &[u8], start: usize) -> Option<u32> {
    let word_start = |at: usize| {
        at.checked_sub(1)
            .and_then(|p| path.get(p))
            .is_none_or(|p| matches!(p, b'/' | b'_' | b'-' | b'.' | b' '))
    };
    let mut points = if word_start(start) { 12 } else { 0 };
    let mut last = start;
    for &wanted in query.get(1..).unwrap_or_default() {
        let from = last + 1;
        let run = path.get(from..)?.iter().position(|&c| c == wanted)?;
        let at = from + run;
        if run == 0 {
            points += 8;
        }
        if word_start(at) {
            points += 12;
        }
        last = at;
    }
    Some((100 + points).min(FUZZY_MAX))
}
