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

use super::index::{Entry, Index};
use super::keep::Keep;
use super::rank::FUZZY_MAX;
use super::score::{Scored, begins_with, name_begins, score_found, score_fuzzy};

/// The entries a scan goes through, in increasing order.
#[derive(Clone, Copy)]
pub(super) enum Run<'c> {
    /// The entries `from..to`, every one.
    Every {
        /// The first.
        from: usize,
        /// Past the last.
        to: usize,
    },
    /// These (sorted) entries.
    Listed(&'c [u32]),
}

impl Run<'_> {
    fn len(self) -> usize {
        match self {
            Self::Every { from, to } => to - from,
            Self::Listed(ids) => ids.len(),
        }
    }

    /// The entry at position `at` (`0..len()`).
    fn id(self, at: usize) -> usize {
        match self {
            Self::Every { from, .. } => from + at,
            Self::Listed(ids) => ids.get(at).map_or(usize::MAX, |&id| id as usize),
        }
    }
}

/// The query as the fuzzy tier of an entry without an occurrence needs it.
#[derive(Clone, Copy)]
struct Needle<'q> {
    text: &'q str,
    first: u8,
    ascii: bool,
}

/// Rank the entries of `run` (no directory scope: whole paths) for the non-empty lower-case
/// `query`, whose byte search is `finder`, into `keep`.
pub(super) fn scan<'a>(
    index: &'a Index,
    run: Run<'_>,
    query: &str,
    finder: &Finder<'_>,
    keep: &mut Keep<'a, '_>,
) {
    let Some(&first) = query.as_bytes().first() else {
        return;
    };
    let needle = Needle {
        text: query,
        first,
        ascii: query.is_ascii(),
    };
    let run = match run {
        // A list without holes is a run of every entry.
        Run::Listed(ids) => match (ids.first(), ids.last()) {
            (Some(&from), Some(&last)) if (last - from) as usize + 1 == ids.len() => Run::Every {
                from: from as usize,
                to: last as usize + 1,
            },
            _ => run,
        },
        Run::Every { .. } => run,
    };
    let arena = index.lower_arena();
    let n = run.len();
    // The position in `run` of the first entry not yet settled.
    let mut at = 0;
    // Whether the last search found the query in the first entry it went through: the next
    // entry is then searched on its own first, as a search over the rest of the arena costs
    // more to start than it saves when nearly every entry holds the query.
    let mut dense = false;
    while at < n {
        let next = run.id(at);
        let Some((from, to)) = index.lower_bounds(next) else {
            break;
        };
        if dense {
            let entry = index.entry(next);
            // A name or a path starting with the query needs no search (a name's tiers are
            // decided first; a path's first occurrence is at its start).
            let own = match &entry {
                Some(entry) if name_begins(entry, query) => Some(entry.name_at),
                _ if arena
                    .get(from..to)
                    .is_some_and(|own| begins_with(own, query.as_bytes())) =>
                {
                    Some(0)
                }
                _ => arena.get(from..to).and_then(|own| finder.find(own)),
            };
            match (own, entry) {
                (Some(first), Some(entry)) => {
                    let scored = score_found(&entry, query, finder, first, keep.wanted());
                    keep.offer(next, entry, scored);
                }
                (None, _) => {
                    absent(index, run, at..at + 1, needle, keep);
                    dense = false;
                }
                (Some(_), None) => {}
            }
            at += 1;
            continue;
        }
        let Some(found) = arena.get(from..).and_then(|rest| finder.find(rest)) else {
            break;
        };
        let found = from + found;
        // The entry holding `found`; the ones before it hold no occurrence.
        let mut holder = next;
        let mut bounds = index.lower_bounds(holder);
        while let Some((_, end)) = bounds
            && end <= found
        {
            holder += 1;
            bounds = index.lower_bounds(holder);
        }
        let Some((start, end)) = bounds else {
            break;
        };
        let gap_end = (at..n).find(|&p| run.id(p) >= holder).unwrap_or(n);
        dense = gap_end == at;
        absent(index, run, at..gap_end, needle, keep);
        at = gap_end;
        if at < n && run.id(at) == holder {
            if found >= start && found + query.len() <= end {
                if let Some(entry) = index.entry(holder) {
                    let first = found - start;
                    let scored = score_found(&entry, query, finder, first, keep.wanted());
                    keep.offer(holder, entry, scored);
                }
            } else {
                absent(index, run, at..at + 1, needle, keep);
            }
            at += 1;
        }
    }
    absent(index, run, at..n, needle, keep);
}

/// Settle the entries at positions `gap` of `run`, none of which holds `query`: only a fuzzy
/// match is left, and only for an entry holding the query's first byte.
fn absent<'a>(
    index: &'a Index,
    run: Run<'_>,
    gap: Range<usize>,
    needle: Needle<'_>,
    keep: &mut Keep<'a, '_>,
) {
    if gap.is_empty() || (!keep.records() && keep.wanted() > FUZZY_MAX) {
        return;
    }
    match run {
        Run::Every { .. } => absent_run(
            index,
            run.id(gap.start)..run.id(gap.end - 1) + 1,
            needle,
            keep,
        ),
        Run::Listed(_) => {
            for at in gap {
                let id = run.id(at);
                if let Some(entry) = index.entry(id)
                    && let Some(first_at) = memchr::memchr(needle.first, entry.lower.as_bytes())
                {
                    keep.offer(id, entry, fuzzy_or_not(&entry, needle, first_at, keep));
                }
            }
        }
    }
}

/// The fuzzy tier of `entry` (holding the query's first byte first at `first_at`), if it
/// may still be among the best.
fn fuzzy_or_not(
    entry: &Entry<'_>,
    needle: Needle<'_>,
    first_at: usize,
    keep: &Keep<'_, '_>,
) -> Scored {
    if keep.wanted() <= FUZZY_MAX {
        score_fuzzy(entry, needle.text, needle.ascii, first_at)
    } else {
        // Not searched: it may still match a longer query.
        Scored::NotTried
    }
}

/// [`absent`] for the entries `gap`, every one: one `memchr` pass over them.
fn absent_run<'a>(
    index: &'a Index,
    gap: Range<usize>,
    needle: Needle<'_>,
    keep: &mut Keep<'a, '_>,
) {
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
    for found in memchr::memchr_iter(needle.first, bytes) {
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
        let Some((start, end)) = bounds.filter(|_| id < gap.end) else {
            return;
        };
        if let Some(entry) = index.entry(id) {
            keep.offer(id, entry, fuzzy_or_not(&entry, needle, at - start, keep));
        }
        settled_to = end;
        id += 1;
    }
}
