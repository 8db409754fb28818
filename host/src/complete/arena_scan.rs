//! A run of entries ranked with one vectorised pass over their part of the lower-case arena
//! instead of one search per entry.
//!
//! The entries' lower-case paths lie back to back in the arena, so a search for the query
//! from one entry's start finds the next entry that holds it; the entries passed over hold
//! no occurrence. An entry that does not hold the query can only be a fuzzy match (every
//! substring tier, the exact ones included, contains the query), and a fuzzy match needs the
//! query's first byte: one `memchr` pass over those entries finds the few that have it. A
//! query that matches nothing (`z`) thus costs two passes over the arena and nothing per
//! entry. An occurrence that runs over an entry's end into the next is no occurrence: the
//! search goes on from the next entry's start.

use std::ops::Range;

use memchr::memmem::Finder;

use super::index::Index;
use super::keep::Keep;
use super::rank::FUZZY_MAX;
use super::score::{Scored, score_fuzzy, score_found};

/// Rank the entries `ids` (a run of the index, none skipped: no directory scope) for the
/// non-empty lower-case `query`, whose byte search is `finder`, into `keep`.
pub(super) fn scan<'a>(
    index: &'a Index,
    ids: Range<usize>,
    query: &str,
    finder: &Finder<'_>,
    keep: &mut Keep<'a>,
) {
    let Some(&first_byte) = query.as_bytes().first() else {
        return;
    };
    let arena = index.lower_arena();
    let Some((mut from, _)) = index.lower_bounds(ids.start) else {
        return;
    };
    // The first entry not yet settled.
    let mut next = ids.start;
    while next < ids.end {
        let Some(at) = arena.get(from..).and_then(|rest| finder.find(rest)) else {
            break;
        };
        let at = from + at;
        // The entry holding `at`; the ones before it hold no occurrence.
        let mut holder = next;
        let mut bounds = index.lower_bounds(holder);
        while let Some((_, end)) = bounds
            && end <= at
            && holder < ids.end
        {
            holder += 1;
            bounds = index.lower_bounds(holder);
        }
        let Some((start, end)) = bounds.filter(|_| holder < ids.end) else {
            break;
        };
        absent(index, next..holder, query, first_byte, keep);
        if at + query.len() <= end {
            if let Some(entry) = index.entry(holder) {
                let scored = score_found(&entry, query, finder, at - start, keep.wanted());
                keep.offer(holder, entry, scored);
            }
        } else {
            absent(index, holder..holder + 1, query, first_byte, keep);
        }
        next = holder + 1;
        from = end;
    }
    absent(index, next..ids.end, query, first_byte, keep);
}

/// Settle the entries `gap`, none of which holds `query`: only a fuzzy match is left, and only
/// for an entry holding the query's first byte.
fn absent<'a>(index: &'a Index, gap: Range<usize>, query: &str, first_byte: u8, keep: &mut Keep<'a>) {
    if gap.is_empty() || (!keep.records() && keep.wanted() > FUZZY_MAX) {
        return;
    }
    let (Some((from, _)), Some((_, to))) = (
        index.lower_bounds(gap.start),
        index.lower_bounds(gap.end - 1),
    ) else {
        return;
    };
    let Some(bytes) = index.lower_arena().get(from..to) else {
        return;
    };
    let mut id = gap.start;
    // Bytes before this belong to entries already settled.
    let mut settled_to = from;
    for found in memchr::memchr_iter(first_byte, bytes) {
        let at = from + found;
        if at < settled_to {
            continue;
        }
        let mut bounds = index.lower_bounds(id);
        while let Some((_, end)) = bounds
            && end <= at
        {
            id += 1;
            bounds = index.lower_bounds(id);
        }
        let Some((_, end)) = bounds.filter(|_| id < gap.end) else {
            return;
        };
        if let Some(entry) = index.entry(id) {
            let scored = if keep.wanted() <= FUZZY_MAX {
                score_fuzzy(&entry, 0, query)
            } else {
                // Not searched: it may still match a longer query.
                Scored::NotTried
            };
            keep.offer(id, entry, scored);
        }
        settled_to = end;
        id += 1;
    }
}
