//! The ranker against a plain reference of its rules (one `String` per path, every entry
//! scored character by character, everything sorted): the same results in the same order
//! over random path sets and queries, including upper case, non-ASCII names whose lower case
//! is longer, directory scopes and limits.

use std::cmp::Ordering;

use proptest::prelude::*;

use super::index::{Index, lowercase};
use super::rank::{
    EXACT_NAME, EXACT_PATH, FUZZY_MAX, NAME_CONTAINS, NAME_PREFIX, PATH_CONTAINS, PATH_PREFIX,
    Ranker, rank,
};

/// One path as the reference sees it.
struct Plain {
    shown: String,
    path: String,
    is_dir: bool,
    lower: String,
    name_at: usize,
    depth: usize,
}

fn plain(listed: &str) -> Plain {
    let (path, is_dir) = match listed.strip_suffix('/') {
        Some(dir) => (dir.to_owned(), true),
        None => (listed.to_owned(), false),
    };
    let lower = lowercase(&path);
    let name_at = if lower.len() == path.len() {
        path.rfind('/').map_or(0, |i| i + 1)
    } else {
        0
    };
    Plain {
        shown: listed.to_owned(),
        depth: path.matches('/').count(),
        path,
        is_dir,
        lower,
        name_at,
    }
}

fn reference_score(e: &Plain, skip: usize, query: &str) -> Option<u32> {
    let path = e.lower.get(skip..)?;
    let name = e.lower.get(e.name_at.max(skip)..)?;
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
    let chars: Vec<(usize, char)> = path.char_indices().collect();
    let mut i = 0;
    let mut last: Option<usize> = None;
    let mut points = 0u32;
    for wanted in query.chars() {
        loop {
            let &(_, c) = chars.get(i)?;
            i += 1;
            if c != wanted {
                continue;
            }
            let at = i - 1;
            if last == Some(at.wrapping_sub(1)) {
                points += 8;
            }
            if at == 0 || matches!(chars[at - 1].1, '/' | '_' | '-' | '.' | ' ') {
                points += 12;
            }
            last = Some(at);
            break;
        }
    }
    Some((100 + points).min(FUZZY_MAX))
}

fn reference(listed: &[String], query: &str, limit: usize) -> Vec<(String, u32)> {
    let entries: Vec<Plain> = listed.iter().map(|l| plain(l)).collect();
    let query = lowercase(query.trim_start_matches("./"));
    let (scope, rest) = match query.rsplit_once('/') {
        Some((dir, rest))
            if !dir.is_empty() && entries.iter().any(|e| e.is_dir && e.lower == dir) =>
        {
            (Some(dir), rest)
        }
        _ => (None, query.as_str()),
    };
    let skip = scope.map_or(0, |d| d.len() + 1);
    let mut found: Vec<(&Plain, u32)> = entries
        .iter()
        .filter(|e| {
            scope.is_none_or(|d| e.lower.strip_prefix(d).is_some_and(|r| r.starts_with('/')))
        })
        .filter_map(|e| {
            if rest.is_empty() {
                Some((e, 0))
            } else {
                reference_score(e, skip, rest).map(|s| (e, s))
            }
        })
        .collect();
    let tie = |a: &Plain, b: &Plain| a.path.len().cmp(&b.path.len()).then(a.path.cmp(&b.path));
    found.sort_by(|a, b| -> Ordering {
        if rest.is_empty() {
            a.0.depth.cmp(&b.0.depth).then_with(|| tie(a.0, b.0))
        } else {
            b.1.cmp(&a.1).then_with(|| tie(a.0, b.0))
        }
    });
    found
        .into_iter()
        .take(limit)
        .map(|(e, s)| (e.shown.clone(), s))
        .collect()
}

fn ranked(listed: &[String], query: &str, limit: usize) -> Vec<(String, u32)> {
    let index = Index::from_listed(listed);
    rank(&index, query, limit)
        .iter()
        .map(|m| (m.entry.display(), m.score))
        .collect()
}

/// A component from a small alphabet, so that queries hit often: separators, upper case,
/// `İ` (whose lower case is longer) and `ß`.
fn component() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('b'),
            Just('c'),
            Just('A'),
            Just('B'),
            Just('.'),
            Just('_'),
            Just('-'),
            Just(' '),
            Just('é'),
            Just('İ'),
            Just('ß'),
        ],
        1..5,
    )
    .prop_map(|c| c.into_iter().collect())
}

/// A listing: paths of one to three components, each directory on the way listed too.
fn listing() -> impl Strategy<Value = Vec<String>> {
    proptest::collection::vec(proptest::collection::vec(component(), 1..4), 1..40).prop_map(
        |paths| {
            let mut listed = std::collections::BTreeSet::new();
            for parts in paths {
                for end in 1..parts.len() {
                    listed.insert(format!("{}/", parts[..end].join("/")));
                }
                let full = parts.join("/");
                if !listed.contains(&format!("{full}/")) {
                    listed.insert(full);
                }
            }
            listed
                .iter()
                .filter(|p| p.ends_with('/') || !listed.contains(&format!("{p}/")))
                .cloned()
                .collect()
        },
    )
}

fn query() -> impl Strategy<Value = String> {
    proptest::collection::vec(
        prop_oneof![
            Just('a'),
            Just('b'),
            Just('A'),
            Just('/'),
            Just('.'),
            Just('_'),
            Just(' '),
            Just('é'),
            Just('i'),
            Just('ß'),
        ],
        0..6,
    )
    .prop_map(|c| c.into_iter().collect())
}

/// The same queries through one [`Ranker`], in order, as a person types, deletes and types.
fn ranked_in_turn(listed: &[String], queries: &[String], limit: usize) -> Vec<Vec<(String, u32)>> {
    let index = Index::from_listed(listed);
    let mut ranker = Ranker::default();
    queries
        .iter()
        .map(|q| {
            ranker
                .rank(&index, q, limit)
                .iter()
                .map(|m| (m.entry.display(), m.score))
                .collect()
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn keystroke_by_keystroke_as_the_reference(listed in listing(), typed in query(), more in query(), limit in 1usize..6) {
        // Every prefix of `typed`, then back to its half, then on with `more`.
        let mut queries: Vec<String> = (0..=typed.chars().count())
            .map(|n| typed.chars().take(n).collect())
            .collect();
        let half: String = typed.chars().take(typed.chars().count() / 2).collect();
        queries.push(half.clone());
        for n in 1..=more.chars().count() {
            queries.push(format!("{half}{}", more.chars().take(n).collect::<String>()));
        }
        let expected: Vec<Vec<(String, u32)>> =
            queries.iter().map(|q| reference(&listed, q, limit)).collect();
        prop_assert_eq!(ranked_in_turn(&listed, &queries, limit), expected);
    }

    #[test]
    fn same_results_as_the_reference(listed in listing(), query in query(), limit in 1usize..8) {
        prop_assert_eq!(ranked(&listed, &query, limit), reference(&listed, &query, limit));
    }

    #[test]
    fn a_directory_typed_from_the_listing(listed in listing(), pick in any::<prop::sample::Index>(), tail in query()) {
        let dirs: Vec<&String> = listed.iter().filter(|p| p.ends_with('/')).collect();
        let query = if dirs.is_empty() { tail } else { format!("{}{tail}", pick.get(&dirs)) };
        prop_assert_eq!(ranked(&listed, &query, 5), reference(&listed, &query, 5));
    }
}

/// Enough entries for the ranker to split them among threads and cut each thread's
/// candidates as it goes; every query prefix as typed.
#[test]
fn a_large_index_ranks_as_the_reference() {
    let mut listed = Vec::new();
    for top in 0..60 {
        listed.push(format!("Pkg{top:02}/"));
        for sub in 0..6 {
            listed.push(format!("Pkg{top:02}/mod{sub}/"));
            for file in 0..100 {
                listed.push(format!("Pkg{top:02}/mod{sub}/file_{file:03}.rs"));
            }
        }
    }
    listed.push("file_007.rs".to_owned());
    assert!(listed.len() > 32 * 1024);
    for typed in [
        "pkg07/mod3/file_077.rs",
        "file07",
        "p4m3f7",
        "FILE",
        "zz",
        "pkg59/",
    ] {
        for end in 0..=typed.len() {
            let query = &typed[..end];
            for limit in [1, 12] {
                assert_eq!(
                    ranked(&listed, query, limit),
                    reference(&listed, query, limit),
                    "{query:?} limit {limit}"
                );
            }
        }
    }
}
