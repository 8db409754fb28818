//! The best candidates of one chunk, cut to about `limit` as they come, with the lowest score
//! still worth finding; and (for [`super::Ranker`]) every entry a keystroke could not rule out.

use std::cmp::Ordering;
use std::sync::atomic::{AtomicU32, Ordering as AtomicOrdering};

use super::index::Entry;
use super::rank::{
    EXACT_NAME, EXACT_PATH, Match, NAME_CONTAINS, NAME_PREFIX, Order, PATH_CONTAINS, PATH_PREFIX,
};
use super::score::Scored;

/// The substring tiers, best first.
const TIERS: [u32; 6] = [
    EXACT_PATH,
    EXACT_NAME,
    NAME_PREFIX,
    NAME_CONTAINS,
    PATH_PREFIX,
    PATH_CONTAINS,
];

/// Candidates of one chunk, and (when recording) every entry it could not rule out.
pub(super) type Chunk<'a> = (Vec<Match<'a>>, Vec<u32>);

/// What one chunk keeps.
pub(super) struct Keep<'a, 's> {
    limit: usize,
    order: Order,
    /// `kept` is cut to the best `limit` when it reaches this length.
    cap: usize,
    kept: Vec<Match<'a>>,
    /// The worst of those `limit`: whatever orders after it cannot be among the best.
    worst: Option<Match<'a>>,
    /// Matches seen in each of [`TIERS`] (kept or not).
    seen: [usize; TIERS.len()],
    /// The best tier with `limit` matches seen in it or above (0 before).
    tier_floor: u32,
    /// The highest floor any chunk of the same query reached: once one chunk holds `limit`
    /// matches of some score or more, nothing below that score is among the best anywhere.
    shared: &'s AtomicU32,
    record: bool,
    ids: Vec<u32>,
}

/// Below this many candidates a chunk is not cut (tests cut much sooner, to exercise it).
const MIN_CAP: usize = if cfg!(test) { 4 } else { 256 };

impl<'a, 's> Keep<'a, 's> {
    /// Nothing kept yet; with `record`, the entries not ruled out are noted. `shared` is the
    /// floor shared by every chunk of the query.
    pub(super) fn new(limit: usize, order: Order, record: bool, shared: &'s AtomicU32) -> Self {
        let cap = limit.saturating_mul(2).max(MIN_CAP);
        Self {
            limit,
            order,
            cap,
            kept: Vec::with_capacity(cap.min(4096)),
            worst: None,
            seen: [0; TIERS.len()],
            tier_floor: 0,
            shared,
            record,
            ids: Vec::new(),
        }
    }

    /// The lowest score that could still be among the best (an equal one may win on the
    /// shorter path): the tiers below it need not be searched.
    pub(super) fn wanted(&self) -> u32 {
        self.shared.load(AtomicOrdering::Relaxed)
    }

    /// Whether the entries not ruled out are noted.
    pub(super) fn records(&self) -> bool {
        self.record
    }

    /// Entry `id` fared `scored` (offered in increasing `id` order).
    pub(super) fn offer(&mut self, id: usize, entry: Entry<'a>, scored: Scored) {
        if self.record && scored != Scored::Miss {
            // Fits: ids come from an index of at most u32::MAX bytes of paths.
            self.ids.push(id as u32);
        }
        if let Scored::Hit(score) = scored {
            if score > self.tier_floor
                && let Some(tier) = TIERS.iter().position(|&t| t == score)
            {
                self.seen[tier] += 1;
                self.raise_tier_floor();
            }
            self.consider(Match { entry, score });
        }
    }

    /// The best tier with at least `limit` matches seen in it or above.
    fn raise_tier_floor(&mut self) {
        let mut count = 0;
        for (tier, seen) in TIERS.iter().zip(self.seen) {
            count += seen;
            if count >= self.limit {
                self.tier_floor = *tier;
                self.shared.fetch_max(*tier, AtomicOrdering::Relaxed);
                return;
            }
        }
    }

    /// Keep `candidate` unless it orders after the worst of the best `limit` held.
    pub(super) fn consider(&mut self, candidate: Match<'a>) {
        if self
            .worst
            .is_some_and(|w| (self.order)(&candidate, &w) != Ordering::Less)
        {
            return;
        }
        self.kept.push(candidate);
        if self.kept.len() >= self.cap {
            self.kept.select_nth_unstable_by(self.limit - 1, self.order);
            self.kept.truncate(self.limit);
            if let Some(floor) = self.kept.iter().map(|m| m.score).min() {
                self.shared.fetch_max(floor, AtomicOrdering::Relaxed);
            }
            self.worst = self.kept.iter().copied().max_by(self.order);
        }
    }

    /// The candidates (the best `limit` among them, in no order) and the entries noted.
    pub(super) fn finish(self) -> Chunk<'a> {
        (self.kept, self.ids)
    }
}
