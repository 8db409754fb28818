//! The best candidates of one chunk, cut to about `limit` as they come, with the lowest score
//! still worth finding; and (for [`super::Ranker`]) every entry a keystroke could not rule out.

use std::cmp::Ordering;

use super::index::Entry;
use super::rank::{Match, Order};
use super::score::Scored;

/// Candidates of one chunk, and (when recording) every entry it could not rule out.
pub(super) type Chunk<'a> = (Vec<Match<'a>>, Vec<u32>);

/// What one chunk keeps.
pub(super) struct Keep<'a> {
    limit: usize,
    order: Order,
    /// `kept` is cut to the best `limit` when it reaches this length.
    cap: usize,
    kept: Vec<Match<'a>>,
    /// The lowest score kept once `kept` was cut to the best `limit`.
    floor: Option<u32>,
    /// The worst of those `limit`: whatever orders after it cannot be among the best.
    worst: Option<Match<'a>>,
    record: bool,
    ids: Vec<u32>,
}

/// Below this many candidates a chunk is not cut (tests cut much sooner, to exercise it).
const MIN_CAP: usize = if cfg!(test) { 4 } else { 256 };

impl<'a> Keep<'a> {
    /// Nothing kept yet; with `record`, the entries not ruled out are noted.
    pub(super) fn new(limit: usize, order: Order, record: bool) -> Self {
        let cap = limit.saturating_mul(2).max(MIN_CAP);
        Self {
            limit,
            order,
            cap,
            kept: Vec::with_capacity(cap.min(4096)),
            floor: None,
            worst: None,
            record,
            ids: Vec::new(),
        }
    }

    /// The lowest score that could still be among the best (an equal one may win on the
    /// shorter path): the tiers below it need not be searched.
    pub(super) fn wanted(&self) -> u32 {
        self.floor.unwrap_or(0)
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
            self.consider(Match { entry, score });
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
            self.floor = self.kept.iter().map(|m| m.score).min();
            self.worst = self.kept.iter().copied().max_by(self.order);
        }
    }

    /// The candidates (the best `limit` among them, in no order) and the entries noted.
    pub(super) fn finish(self) -> Chunk<'a> {
        (self.kept, self.ids)
    }
}
