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
/// against the path from byte `skip` on; fuzzy matches only with `fuzzy_too`.
pub(super) fn score(
    entry: &Entry<'_>,
    skip: usize,
    query: &str,
    finder: &Finder<'_>,
    fuzzy_too: bool,
) -> Scored {
    match tiers(entry, skip, query, finder, fuzzy_too) {
        Some(Some(score)) => Scored::Hit(score),
        Some(None) => Scored::NotTried,
        None => Scored::Miss,
    }
}

/// [`score`]: `None` no match, `Some(None)` fuzzy not tried.
fn tiers(
    entry: &Entry<'_>,
    skip: usize,
    query: &str,
    finder: &Finder<'_>,
    fuzzy_too: bool,
) -> Option<Option<u32>> {
    let path = entry.lower.get(skip..)?;
    let name = entry.lower.get(entry.name_at.max(skip)..)?;
    if path == query {
        return Some(Some(EXACT_PATH));
    }
    if name == query {
        return Some(Some(EXACT_NAME));
    }
    if name.starts_with(query) {
        return Some(Some(NAME_PREFIX));
    }
    // Both are valid UTF-8, so a byte match is a match of whole characters.
    match finder.find(path.as_bytes()) {
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
        None if !fuzzy_too => Some(None),
        None if query.is_ascii() => fuzzy_ascii(path.as_bytes(), query.as_bytes()).map(Some),
        None => fuzzy(path, query).map(Some),
    }
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
    let mut wanted = query.iter();
    let Some(&first) = wanted.next() else {
        return Some(100);
    };
    let mut next = first;
    let mut last_hit: Option<usize> = None;
    let mut points = 0u32;
    // Most paths that do not match lack the first character: one vectorised search says so.
    let start = memchr::memchr(first, path)?;
    for (at, &c) in path.iter().enumerate().skip(start) {
        if c != next {
            continue;
        }
        if last_hit.is_some_and(|l| at == l + 1) {
            points += 8;
        }
        let word_start = at
            .checked_sub(1)
            .and_then(|p| path.get(p))
            .is_none_or(|p| matches!(p, b'/' | b'_' | b'-' | b'.' | b' '));
        if word_start {
            points += 12;
        }
        last_hit = Some(at);
        match wanted.next() {
            Some(&w) => next = w,
            None => return Some((100 + points).min(FUZZY_MAX)),
        }
    }
    None
}
