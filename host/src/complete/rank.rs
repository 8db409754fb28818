//! The fuzzy ranker: a query against every indexed path, case-insensitive.
//!
//! Tiers, best first: the whole path; the exact name (last component); a name starting with
//! the query; a name containing it; a path starting with it; a path containing it; the query's
//! characters in order (a fuzzy match, scored by runs and word starts). At equal score the
//! shorter path wins, then the byte-wise smaller one.
//!
//! A query whose part before its last `/` names an indexed directory (`src/`, `src/ma`)
//! completes inside that directory; with nothing after the `/` its entries come top first.
//! An empty query lists the top of the tree.
//!
//! How it stays within a frame on a million paths: the index is split in one chunk per core,
//! each scanned on its own thread into its best `limit` candidates (pruned as it goes), and
//! the chunks' bests are merged. Without a directory scope, a chunk is ranked with one
//! vectorised search (`memchr::memmem`) over its part of the lower-cased arena rather than one
//! per entry (`arena_scan`): an entry without an occurrence can only be a fuzzy match. Once
//! `limit` matches of some tier are seen (in any chunk: the floor is shared), the searches that
//! could only give a lower tier are skipped, the fuzzy one (the costliest, and at most
//! [`FUZZY_MAX`]) first (`keep`). An ASCII query is matched byte-wise, which gives the same
//! points as matching characters. [`Ranker`] narrows keystroke by keystroke: a query that
//! extends the previous one is matched only against the entries the previous one could match.

use std::cmp::Ordering;
use std::ops::Range;
use std::sync::atomic::AtomicU32;

use memchr::memmem::Finder;

use super::arena_scan::{self, Run};
use super::index::{Entry, Index, lowercase};
use super::keep::{Chunk, Keep};
use super::order::{by_depth, by_score};
use super::score::score;
use super::walk;

/// Score of a match on the whole path.
pub const EXACT_PATH: u32 = 1000;
/// Score of an exact name match.
pub const EXACT_NAME: u32 = 900;
/// Score of a name starting with the query.
pub const NAME_PREFIX: u32 = 800;
/// Score of a name containing the query.
pub const NAME_CONTAINS: u32 = 700;
/// Score of a path starting with the query.
pub const PATH_PREFIX: u32 = 650;
/// Score of a path containing the query.
pub const PATH_CONTAINS: u32 = 600;
/// Highest score of a fuzzy (in-order characters) match.
pub const FUZZY_MAX: u32 = 500;

/// Below this many entries one thread ranks them all (starting threads costs more; tests
/// split small indexes too, to exercise it).
const PARALLEL_FROM: usize = if cfg!(test) { 16 } else { 32 * 1024 };

/// One ranked candidate.
#[derive(Debug, Clone, Copy)]
pub struct Match<'a> {
    /// The indexed path.
    pub entry: Entry<'a>,
    /// Its score (higher is better; 0 when listing without a query).
    pub score: u32,
}

pub(super) type Order = fn(&Match<'_>, &Match<'_>) -> Ordering;

/// What one query asks of every entry.
struct Plan<'a, 'q> {
    index: &'a Index,
    /// The directory the query completes inside (lower case), if any.
    scope: Option<&'q str>,
    /// Bytes of a path before the part matched (the scope and its `/`).
    skip: usize,
    /// The lower-case query to match (after the scope).
    rest: &'q str,
    finder: Finder<'q>,
    limit: usize,
    order: Order,
}

/// The best `limit` entries of `index` for `query`, best first.
pub fn rank<'a>(index: &'a Index, query: &str, limit: usize) -> Vec<Match<'a>> {
    ranked(index, query, limit, None)
}

/// Ranks queries typed keystroke by keystroke: when a query extends the previous one (same
/// index, same directory scope), only the entries that matched the previous one can match, so
/// only those are examined. The results are [`rank`]'s.
#[derive(Debug, Default)]
pub struct Ranker {
    last: Option<Narrowed>,
}

/// The entries a query may have matched.
#[derive(Debug)]
struct Narrowed {
    index: u64,
    scope: Option<String>,
    rest: String,
    /// Every entry that matched `rest`, or was not examined far enough to know.
    ids: Vec<u32>,
}

impl Ranker {
    /// The best `limit` entries of `index` for `query`, best first, as [`rank`] gives them.
    pub fn rank<'a>(&mut self, index: &'a Index, query: &str, limit: usize) -> Vec<Match<'a>> {
        ranked(index, query, limit, Some(&mut self.last))
    }
}

fn ranked<'a>(
    index: &'a Index,
    query: &str,
    limit: usize,
    narrowing: Option<&mut Option<Narrowed>>,
) -> Vec<Match<'a>> {
    if limit == 0 {
        return Vec::new();
    }
    let query = lowercase(query.trim_start_matches("./"));
    let (scope, rest) = scope_of(index, &query);
    let plan = Plan {
        index,
        scope,
        skip: scope.map_or(0, |dir| dir.len() + 1),
        rest,
        finder: Finder::new(rest.as_bytes()),
        limit,
        order: if rest.is_empty() { by_depth } else { by_score },
    };
    let (mut found, recorded) = match narrowing {
        // Listing a directory (or the top) examines no query: nothing to narrow.
        Some(last) if !rest.is_empty() => {
            let previous = last.take().filter(|n| {
                n.index == index.id() && n.scope.as_deref() == scope && rest.starts_with(&n.rest)
            });
            let (found, ids) = match &previous {
                Some(n) => plan.run(Among::Some(&n.ids), true),
                None => plan.run(Among::All(index.len()), true),
            };
            (found, Some((last, ids)))
        }
        _ => (plan.run(Among::All(index.len()), false).0, None),
    };
    if let Some((last, ids)) = recorded {
        *last = Some(Narrowed {
            index: index.id(),
            scope: scope.map(str::to_owned),
            rest: rest.to_owned(),
            ids,
        });
    }
    if found.len() > limit {
        found.select_nth_unstable_by(limit - 1, plan.order);
        found.truncate(limit);
    }
    found.sort_by(plan.order);
    found
}

/// The entries to examine.
#[derive(Clone, Copy)]
enum Among<'c> {
    /// Every entry, `0..n`.
    All(usize),
    /// These.
    Some(&'c [u32]),
}

impl Among<'_> {
    fn len(self) -> usize {
        match self {
            Self::All(n) => n,
            Self::Some(ids) => ids.len(),
        }
    }

    /// The entry at position `at`.
    fn id(self, at: usize) -> usize {
        match self {
            Self::All(_) => at,
            Self::Some(ids) => ids.get(at).map_or(usize::MAX, |&id| id as usize),
        }
    }
}

impl<'a> Plan<'a, '_> {
    /// The best of `among` (cut to about `limit`), one chunk per core when there are many;
    /// with `record`, also the entries not ruled out.
    fn run(&self, among: Among<'_>, record: bool) -> Chunk<'a> {
        let n = among.len();
        let threads = if n >= PARALLEL_FROM {
            walk::threads()
        } else {
            1
        };
        // The lowest score still worth finding, raised by every chunk as it finds matches.
        let wanted = AtomicU32::new(0);
        let wanted = &wanted;
        if threads <= 1 {
            return self.best(among, 0..n, record, wanted);
        }
        let chunk = n.div_ceil(threads);
        let range = |t: usize| (t * chunk).min(n)..((t + 1) * chunk).min(n);
        std::thread::scope(|scope| {
            let started: Vec<_> = (1..threads)
                .map(|t| {
                    let spawned = std::thread::Builder::new()
                        .name("warden-complete-rank".into())
                        .spawn_scoped(scope, move || self.best(among, range(t), record, wanted));
                    (t, spawned.ok())
                })
                .collect();
            let (mut found, mut ids) = self.best(among, range(0), record, wanted);
            for (t, handle) in started {
                let (theirs, their_ids) = match handle {
                    Some(handle) => match handle.join() {
                        Ok(theirs) => theirs,
                        Err(panic) => std::panic::resume_unwind(panic),
                    },
                    // A thread that could not start: its chunk is ranked here.
                    None => self.best(among, range(t), record, wanted),
                };
                found.extend(theirs);
                ids.extend(their_ids);
            }
            (found, ids)
        })
    }

    /// The best `limit` (or a few more) of the entries at positions `range` of `among`, in no
    /// order; with `record`, the entries not ruled out.
    fn best(
        &self,
        among: Among<'_>,
        range: Range<usize>,
        record: bool,
        wanted: &AtomicU32,
    ) -> Chunk<'a> {
        let mut keep = Keep::new(self.limit, self.order, record, wanted);
        // Every entry or most of a run of them, no scope: one search over the arena.
        let run = match among {
            _ if self.scope.is_some() || self.rest.is_empty() => None,
            Among::All(_) => Some(Run::Every {
                from: range.start,
                to: range.end,
            }),
            Among::Some(ids) => ids
                .get(range.clone())
                .filter(|ids| match (ids.first(), ids.last()) {
                    (Some(&first), Some(&last)) => ids.len() * 4 >= (last - first) as usize,
                    _ => false,
                })
                .map(Run::Listed),
        };
        match run {
            Some(run) => arena_scan::scan(self.index, run, self.rest, &self.finder, &mut keep),
            None => {
                for at in range {
                    let id = among.id(at);
                    let Some(entry) = self.index.entry(id) else {
                        continue;
                    };
                    if self.scope.is_some_and(|dir| !in_dir(&entry, dir)) {
                        continue;
                    }
                    if self.rest.is_empty() {
                        keep.consider(Match { entry, score: 0 });
                    } else {
                        let wanted = keep.wanted();
                        let scored = score(&entry, self.skip, self.rest, &self.finder, wanted);
                        keep.offer(id, entry, scored);
                    }
                }
            }
        }
        keep.finish()
    }
}

/// `Some(dir)` when the query's part before its last `/` is an indexed directory; the rest of
/// the query is then matched inside it.
fn scope_of<'q>(index: &Index, query: &'q str) -> (Option<&'q str>, &'q str) {
    match query.rsplit_once('/') {
        Some((dir, rest)) if !dir.is_empty() && index.is_dir_lower(dir) => (Some(dir), rest),
        _ => (None, query),
    }
}

fn in_dir(entry: &Entry<'_>, dir: &str) -> bool {
    entry
        .lower
        .strip_prefix(dir)
        .is_some_and(|r| r.starts_with('/'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn top(entries: &[&str], query: &str) -> Vec<String> {
        let index = Index::from_listed(entries);
        rank(&index, query, 10)
            .iter()
            .map(|m| m.entry.display())
            .collect()
    }

    #[test]
    fn exact_name_beats_fuzzy_match() {
        let ranked = top(
            &["a/main_rs_helper.txt", "b/main.rs", "mxaxixn.rs"],
            "main.rs",
        );
        assert_eq!(ranked[0], "b/main.rs");
        let ranked = top(&["src/mod_a_i_n.rs", "deep/down/below/main"], "main");
        assert_eq!(ranked[0], "deep/down/below/main");
    }

    #[test]
    fn shorter_path_beats_longer_at_equal_score() {
        let ranked = top(
            &["very/long/path/lib.rs", "src/lib.rs", "x/lib.rs"],
            "lib.rs",
        );
        assert_eq!(
            ranked,
            vec!["x/lib.rs", "src/lib.rs", "very/long/path/lib.rs"]
        );
    }

    #[test]
    fn case_insensitive() {
        assert_eq!(top(&["docs/README.md"], "readme"), vec!["docs/README.md"]);
        assert_eq!(top(&["docs/readme.md"], "README"), vec!["docs/readme.md"]);
        assert_eq!(
            top(&["Ünïcode/Straße.txt"], "strasse"),
            Vec::<String>::new()
        );
        assert_eq!(
            top(&["Ünïcode/STRASSE.txt"], "ünïcode/str"),
            vec!["Ünïcode/STRASSE.txt"]
        );
    }

    #[test]
    fn tiers_in_order() {
        let ranked = top(
            &[
                "x/notes",
                "x/notes.md",
                "x/my-notes.md",
                "notes/a.md",
                "n/o/t/e/s",
                "zz",
            ],
            "notes",
        );
        assert_eq!(
            ranked,
            vec![
                "x/notes",
                "x/notes.md",
                "x/my-notes.md",
                "notes/a.md",
                "n/o/t/e/s"
            ]
        );
    }

    #[test]
    fn no_match_is_left_out() {
        assert!(top(&["src/main.rs"], "zq").is_empty());
    }

    #[test]
    fn empty_query_lists_the_top_of_the_tree() {
        let ranked = top(&["b/", "b/c/", "b/c/d.rs", "a.md", "z.md"], "");
        assert_eq!(ranked, vec!["b/", "a.md", "z.md", "b/c/", "b/c/d.rs"]);
    }

    #[test]
    fn a_directory_query_completes_inside_it() {
        let entries = [
            "src/",
            "src/main.rs",
            "src/cli/",
            "src/cli/run.rs",
            "srcx.rs",
            "main.rs",
        ];
        assert_eq!(
            top(&entries, "src/"),
            vec!["src/cli/", "src/main.rs", "src/cli/run.rs"]
        );
        assert_eq!(top(&entries, "SRC/ma")[0], "src/main.rs");
        assert!(!top(&entries, "src/ma").contains(&"main.rs".to_owned()));
    }

    #[test]
    fn limit_keeps_the_best() {
        let index = Index::from_listed(&["aaa/x", "x", "bb/x"]);
        let ranked: Vec<String> = rank(&index, "x", 2)
            .iter()
            .map(|m| m.entry.display())
            .collect();
        assert_eq!(ranked, vec!["x", "bb/x"]);
    }
}
