//! A session id as typed on the command line or in `/resume`: the full id or a unique prefix
//! of one. An ambiguous prefix lists the candidates; an unknown id names the closest ones.
//! Both are usage errors (exit 2), on every command.

use crate::cli::exit::CliError;
use crate::store::{self, Home};

/// Candidates listed for an ambiguous prefix.
const SHOWN_CANDIDATES: usize = 8;

/// The id of the session `asked` names: itself when it exists, else the one session whose id
/// starts with it.
pub(crate) fn resolve(home: &Home, asked: &str) -> Result<String, CliError> {
    store::validate_id(asked).map_err(|err| CliError::usage(err.to_string()))?;
    if home
        .session_exists(asked)
        .map_err(|err| CliError::usage(err.to_string()))?
    {
        return Ok(asked.to_owned());
    }
    let ids: Vec<String> = store::list(home)
        .map(|all| all.into_iter().map(|s| s.id).collect())
        .unwrap_or_default();
    match by_prefix(&ids, asked) {
        Prefix::One(id) => Ok(id),
        Prefix::Many(candidates) => {
            let more = candidates.len().saturating_sub(SHOWN_CANDIDATES);
            let mut shown = candidates
                .into_iter()
                .take(SHOWN_CANDIDATES)
                .collect::<Vec<_>>()
                .join(", ");
            if more > 0 {
                shown.push_str(&format!(" and {more} more"));
            }
            Err(CliError::usage(format!(
                "session prefix {asked:?} is ambiguous: {shown}; type more of the id"
            )))
        }
        Prefix::None => {
            let near = closest(&ids, asked);
            let hint = if near.is_empty() {
                "`warden session list --all` shows the sessions there are".to_owned()
            } else {
                format!("did you mean {}?", near.join(", "))
            };
            Err(CliError::usage(format!("no session {asked:?}; {hint}")))
        }
    }
}

enum Prefix {
    One(String),
    Many(Vec<String>),
    None,
}

fn by_prefix(ids: &[String], asked: &str) -> Prefix {
    let mut found: Vec<String> = ids
        .iter()
        .filter(|id| id.starts_with(asked))
        .cloned()
        .collect();
    match found.len() {
        0 => Prefix::None,
        1 => Prefix::One(found.remove(0)),
        _ => {
            found.sort();
            Prefix::Many(found)
        }
    }
}

/// Up to three ids nearest to `id` (edit distance, or sharing its start).
fn closest(ids: &[String], id: &str) -> Vec<String> {
    let limit = (id.chars().count() / 2).max(2);
    let mut scored: Vec<(usize, &String)> = ids
        .iter()
        .map(|candidate| {
            let distance = if candidate.starts_with(id) || id.starts_with(candidate.as_str()) {
                1
            } else {
                edit_distance(candidate, id)
            };
            (distance, candidate)
        })
        .filter(|(d, _)| *d <= limit)
        .collect();
    scored.sort();
    scored.into_iter().take(3).map(|(_, c)| c.clone()).collect()
}

fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = if ca == *cb {
                prev
            } else {
                1 + prev.min(row[j]).min(here)
            };
            prev = here;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn closest_ids_by_distance_and_prefix() {
        let ids = ids(&["my-work", "other", "0193a1b2-aaaa", "my-word"]);
        assert_eq!(closest(&ids, "my-wrok"), ["my-work", "my-word"]);
        assert_eq!(closest(&ids, "0193a1b2"), ["0193a1b2-aaaa"]);
        assert!(closest(&ids, "zzzzzzzz").is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }

    #[test]
    fn a_prefix_names_one_session_or_lists_the_candidates() {
        let ids = ids(&["01a2-x", "01a3-y", "02b4-z"]);
        assert!(matches!(by_prefix(&ids, "02"), Prefix::One(id) if id == "02b4-z"));
        assert!(matches!(by_prefix(&ids, "01a"), Prefix::Many(c) if c == ["01a2-x", "01a3-y"]));
        assert!(matches!(by_prefix(&ids, "03"), Prefix::None));
    }

    #[test]
    fn resolves_exact_ids_and_prefixes_against_a_home() -> Result<(), Box<dyn std::error::Error>> {
        let dir = tempfile::tempdir()?;
        let home = Home::new(dir.path().join("home"));
        let ws = dir.path().join("ws");
        let _a = store::SessionWriter::create(&home, Some("abc"), &ws)?;
        let _b = store::SessionWriter::create(&home, Some("abcdef"), &ws)?;
        assert_eq!(resolve(&home, "abc").map_err(|e| e.message)?, "abc");
        assert_eq!(resolve(&home, "abcd").map_err(|e| e.message)?, "abcdef");
        let err = resolve(&home, "ab").err().map(|e| (e.code, e.message));
        assert!(
            matches!(&err, Some((2, m)) if m.contains("ambiguous") && m.contains("abcdef")),
            "{err:?}"
        );
        let err = resolve(&home, "xyz").err().map(|e| e.code);
        assert_eq!(err, Some(2));
        Ok(())
    }
}
