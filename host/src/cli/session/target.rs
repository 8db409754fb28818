//! Which session a command continues or creates, and the workspace it runs in: a session
//! always runs in the workspace it records; an unknown id is an error naming the closest ones.

use std::path::Path;

use crate::cli::exit::CliError;
use crate::cli::workspace::Workspace;
use crate::store::{self, Home, StoreError};

/// What `--session` / `--new-session` asked for.
#[derive(Debug, Clone, Copy)]
pub(crate) enum SessionChoice<'a> {
    /// A fresh session with a generated id.
    Fresh,
    /// Continue this existing session.
    Existing(&'a str),
    /// Create a session with this name.
    Named(&'a str),
}

/// The workspace and session id (if any) a turn runs with.
pub(crate) fn target(
    home: &Home,
    dir: Option<&Path>,
    choice: SessionChoice<'_>,
) -> Result<(Workspace, Option<String>), CliError> {
    match choice {
        SessionChoice::Fresh => Ok((Workspace::find(dir)?, None)),
        SessionChoice::Named(name) => {
            store::validate_id(name).map_err(usage)?;
            if home.session_exists(name).map_err(usage)? {
                return Err(CliError::usage(format!(
                    "session {name:?} already exists; continue it with --session {name}"
                )));
            }
            Ok((Workspace::find(dir)?, Some(name.to_owned())))
        }
        SessionChoice::Existing(id) => {
            let recorded = recorded_workspace(home, id)?;
            let workspace = Workspace::recorded(&recorded)?;
            if let Some(dir) = dir {
                let asked = Workspace::find(Some(dir))?.root;
                if asked != workspace.root {
                    return Err(CliError::usage(format!(
                        "session {id} belongs to the workspace {}, but -C names {}; \
                         a session always runs in its own workspace",
                        workspace.root.display(),
                        asked.display()
                    )));
                }
            }
            Ok((workspace, Some(id.to_owned())))
        }
    }
}

/// The workspace session `id` records; an unknown or invalid id is a usage error.
pub(crate) fn recorded_workspace(home: &Home, id: &str) -> Result<std::path::PathBuf, CliError> {
    existing(home, id)?;
    let loaded = store::load(home, id).map_err(|err| CliError::failure(err.to_string()))?;
    Ok(loaded.header.workspace)
}

/// Check that session `id` exists: an invalid or unknown id is a usage error (exit 2) naming
/// the closest existing ids.
pub(crate) fn existing(home: &Home, id: &str) -> Result<(), CliError> {
    store::validate_id(id).map_err(usage)?;
    if home.session_exists(id).map_err(usage)? {
        return Ok(());
    }
    let ids: Vec<String> = store::list(home)
        .map(|all| all.into_iter().map(|s| s.id).collect())
        .unwrap_or_default();
    let near = closest(&ids, id);
    let hint = if near.is_empty() {
        "`warden session list --all` shows the sessions there are".to_owned()
    } else {
        format!("did you mean {}?", near.join(", "))
    };
    Err(CliError::usage(format!("no session {id:?}; {hint}")))
}

fn usage(err: StoreError) -> CliError {
    CliError::usage(err.to_string())
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

    #[test]
    fn closest_ids_by_distance_and_prefix() {
        let ids: Vec<String> = ["my-work", "other", "0193a1b2-aaaa", "my-word"]
            .iter()
            .map(|s| (*s).to_owned())
            .collect();
        assert_eq!(closest(&ids, "my-wrok"), ["my-work", "my-word"]);
        assert_eq!(closest(&ids, "0193a1b2"), ["0193a1b2-aaaa"]);
        assert!(closest(&ids, "zzzzzzzz").is_empty());
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
