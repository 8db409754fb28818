//! "Did you mean": the paths closest to a reference that was not found, offered in its alert.
//!
//! Cheap on purpose: the candidates are what the resolver lists of the workspace root and of
//! the nearest existing parent of the missing path (two listings, each capped by the resolver's
//! `max_entries`, through the same deny check as every other request, so a denied path is never
//! offered). A candidate qualifies when it has the same file name elsewhere in the tree, or
//! when its name or whole path is within a few edits (insertions, deletions, substitutions and
//! swaps of neighbours) of what was typed. At most [`MAX_SUGGESTIONS`] are named, closest first,
//! for at most [`MAX_REFS`] references of a prompt.

use crate::domain::{EntryKind, Resolve, ResolveRequest};

/// Paths named at most.
pub const MAX_SUGGESTIONS: usize = 3;

/// References of one prompt that get suggestions (each costs a few listings).
pub const MAX_REFS: usize = 5;

/// Directories above a missing path tried for its nearest existing parent.
const MAX_PARENTS: usize = 4;

/// Bytes asked for each listing.
const LISTING_BYTES: u64 = 32 * 1024;

/// Names longer than this are not compared (the distance is quadratic).
const LONGEST: usize = 256;

/// `; did you mean @a, @b or @c?` for the missing `path`, or `None` when nothing is close.
pub fn hint<R: Resolve + ?Sized>(resolver: &mut R, path: &str) -> Option<String> {
    let wanted = path.trim_end_matches('/').trim_start_matches("./");
    if wanted.is_empty() || wanted.len() > LONGEST {
        return None;
    }
    let mut candidates = listing(resolver, "");
    // The nearest existing directory above the missing path, if it is not the root.
    let mut parent = wanted;
    let mut tried = 0;
    while let Some((up, _)) = parent.rsplit_once('/')
        && tried < MAX_PARENTS
    {
        tried += 1;
        parent = up;
        if parent.is_empty() {
            break;
        }
        let found = listing(resolver, parent);
        if !found.is_empty() {
            candidates.extend(found);
            break;
        }
    }
    let chosen = closest(wanted, &candidates);
    if chosen.is_empty() {
        return None;
    }
    let named: Vec<String> = chosen.iter().map(|p| mention(p)).collect();
    let list = match named.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        _ => named.join(""),
    };
    Some(format!("; did you mean {list}?"))
}

/// A path as a mention the prompt parser reads back (quoted when it holds a blank), escaped to
/// one line (a resolver's listing is not trusted to have done it).
fn mention(path: &str) -> String {
    let path = super::placement::printable(path);
    if path.chars().any(char::is_whitespace) {
        format!("@\"{path}\"")
    } else {
        format!("@{path}")
    }
}

/// The entries of the resolver's listing of `dir` ("" is the root), as root-relative paths
/// (directories end with `/`); nothing when it cannot be listed.
fn listing<R: Resolve + ?Sized>(resolver: &mut R, dir: &str) -> Vec<String> {
    let request = ResolveRequest {
        path: if dir.is_empty() {
            ".".to_owned()
        } else {
            dir.to_owned()
        },
        range: None,
        max_bytes: LISTING_BYTES,
    };
    let Ok(resolved) = resolver.resolve(&request) else {
        return Vec::new();
    };
    if resolved.kind != EntryKind::Directory {
        return Vec::new();
    }
    resolved
        .content
        .lines()
        .filter(|line| !is_note(line))
        .map(|line| {
            if dir.is_empty() {
                line.to_owned()
            } else {
                format!("{dir}/{line}")
            }
        })
        .collect()
}

/// The lines of a listing that are not entries.
fn is_note(line: &str) -> bool {
    line.is_empty()
        || line == "(empty directory)"
        || (line.starts_with("[... ") && line.ends_with(" more entries not listed]"))
        || line.starts_with("[...truncated")
}

/// At most [`MAX_SUGGESTIONS`] of `candidates` close to `wanted`, closest first.
fn closest(wanted: &str, candidates: &[String]) -> Vec<String> {
    let wanted_lower = wanted.to_lowercase();
    let (wanted_dir, wanted_name) = split(&wanted_lower);
    // A few edits, more for longer names: `mian.rs` is one swap from `main.rs`.
    let limit = 1 + wanted_name.chars().count() / 4;
    let mut scored: Vec<(usize, &str)> = Vec::new();
    for candidate in candidates {
        let path = candidate.trim_end_matches('/');
        if path.is_empty() || path.len() > LONGEST {
            continue;
        }
        let lower = path.to_lowercase();
        if lower == wanted_lower {
            continue;
        }
        let (dir, name) = split(&lower);
        let name_edits = distance(wanted_name, name);
        let score = if name_edits == 0 {
            // The same name elsewhere.
            1
        } else {
            let moved = usize::from(dir != wanted_dir);
            distance(&wanted_lower, &lower).min(name_edits + moved * 2)
        };
        if name_edits == 0 || score <= limit {
            scored.push((score, candidate.as_str()));
        }
    }
    scored.sort_by(|a, b| {
        a.0.cmp(&b.0)
            .then(a.1.len().cmp(&b.1.len()))
            .then(a.1.cmp(b.1))
    });
    scored.dedup_by(|a, b| a.1 == b.1);
    scored
        .into_iter()
        .take(MAX_SUGGESTIONS)
        .map(|(_, p)| p.to_owned())
        .collect()
}

/// `(directory, name)` of a `/`-separated path.
fn split(path: &str) -> (&str, &str) {
    path.rsplit_once('/').unwrap_or(("", path))
}

/// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`.
fn distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let width = b.len() + 1;
    let mut d = vec![0usize; (a.len() + 1) * width];
    for (i, cell) in d.iter_mut().step_by(width).enumerate() {
        *cell = i;
    }
    for (j, cell) in d.iter_mut().take(width).enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[(i - 1) * width + j] + 1)
                .min(d[i * width + j - 1] + 1)
                .min(d[(i - 1) * width + j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[(i - 2) * width + j - 2] + 1);
            }
            d[i * width + j] = best;
        }
    }
    d[a.len() * width + b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fileref::testing::MapResolver;

    #[test]
    fn distances() {
        assert_eq!(distance("main.rs", "main.rs"), 0);
        assert_eq!(distance("mian.rs", "main.rs"), 1);
        assert_eq!(distance("readmee.md", "readme.md"), 1);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(distance("kitten", "sitting"), 3);
    }

    #[test]
    fn closest_first_at_most_three() {
        let candidates: Vec<String> = [
            "src/",
            "src/main.rs",
            "src/man.rs",
            "lib/main.rs",
            "tests/main.rs",
            "other/main.rs",
            "zzz.toml",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        assert_eq!(
            closest("src/mian.rs", &candidates),
            vec!["src/man.rs", "src/main.rs"]
        );
        assert_eq!(
            closest("main.rs", &candidates),
            vec!["lib/main.rs", "src/main.rs", "other/main.rs"]
        );
        assert!(closest("nothing.like.it", &candidates).is_empty());
    }

    #[test]
    fn hint_lists_through_the_resolver() {
        let mut resolver = MapResolver::with(&[
            ("src/main.rs", "x"),
            ("notes.md", "y"),
            ("./", "notes.md\nsrc/\n[... 9 more entries not listed]\n"),
            ("src/", "main.rs\n"),
        ]);
        assert_eq!(
            hint(&mut resolver, "src/mian.rs").as_deref(),
            Some("; did you mean @src/main.rs?")
        );
        assert_eq!(hint(&mut resolver, "qqqqqq.zz"), None);
        // A name a resolver lists with a control character is shown escaped, on one line.
        let mut resolver = MapResolver::with(&[("./", "notes\u{1b}.md\n")]);
        assert_eq!(
            hint(&mut resolver, "notes\u{1b}.mdx").as_deref(),
            Some("; did you mean @notes\\u{1b}.md?")
        );
    }
}
