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

use std::cmp::Ordering;

use super::index::{Entry, Index, lowercase};

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

/// One ranked candidate.
#[derive(Debug, Clone, Copy)]
pub struct Match<'a> {
    /// The indexed path.
    pub entry: &'a Entry,
    /// Its score (higher is better; 0 when listing without a query).
    pub score: u32,
}

/// The best `limit` entries of `index` for `query`, best first.
pub fn rank<'a>(index: &'a Index, query: &str, limit: usize) -> Vec<Match<'a>> {
    let query = lowercase(query.trim_start_matches("./"));
    let (scope, rest) = scope_of(index, &query);
    let candidates = index
        .entries()
        .iter()
        .filter(|e| scope.is_none_or(|dir| in_dir(e, dir)));
    let mut found: Vec<Match<'a>> = if rest.is_empty() {
        candidates.map(|entry| Match { entry, score: 0 }).collect()
    } else {
        let skip = scope.map_or(0, |dir| dir.len() + 1);
        candidates
            .filter_map(|entry| {
                let score = score(entry, skip, rest)?;
                Some(Match { entry, score })
            })
            .collect()
    };
    let order = if rest.is_empty() { by_depth } else { by_score };
    if found.len() > limit && limit > 0 {
        found.select_nth_unstable_by(limit - 1, order);
    }
    found.truncate(limit);
    found.sort_by(order);
    found
}

/// `Some(dir)` when the query's part before its last `/` is an indexed directory; the rest of
/// the query is then matched inside it.
fn scope_of<'q>(index: &Index, query: &'q str) -> (Option<&'q str>, &'q str) {
    match query.rsplit_once('/') {
        Some((dir, rest)) if !dir.is_empty() => {
            let known = index
                .entries()
                .iter()
                .any(|e| e.kind == super::Kind::Dir && e.lower == dir);
            if known {
                (Some(dir), rest)
            } else {
                (None, query)
            }
        }
        _ => (None, query),
    }
}

fn in_dir(entry: &Entry, dir: &str) -> bool {
    entry
        .lower
        .strip_prefix(dir)
        .is_some_and(|r| r.starts_with('/'))
}

fn by_depth(a: &Match<'_>, b: &Match<'_>) -> Ordering {
    a.entry
        .depth
        .cmp(&b.entry.depth)
        .then_with(|| tie(a.entry, b.entry))
}

fn by_score(a: &Match<'_>, b: &Match<'_>) -> Ordering {
    b.score.cmp(&a.score).then_with(|| tie(a.entry, b.entry))
}

fn tie(a: &Entry, b: &Entry) -> Ordering {
    a.path
        .len()
        .cmp(&b.path.len())
        .then_with(|| a.path.cmp(&b.path))
}

/// Score of `entry` for the lower-case `query`, matched against the path from byte `skip` on.
fn score(entry: &Entry, skip: usize, query: &str) -> Option<u32> {
    let path = entry.lower.get(skip..)?;
    let name = entry.lower.get(entry.name_at.max(skip)..)?;
    if path == query {
        return Some(EXACT_PATH);
    }
    if name == query {
        return Some(EXACT_NAME);
    }
    if name.starts_with(query) {
        return Some(NAME_PREFIX);
    }
    if name.contains(query) {
        return Some(NAME_CONTAINS);
    }
    if path.starts_with(query) {
        return Some(PATH_PREFIX);
    }
    if path.contains(query) {
        return Some(PATH_CONTAINS);
    }
    fuzzy(path, query)
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
