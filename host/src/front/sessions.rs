//! The sessions a front end offers to continue (the chat's picker, an editor's
//! `session/list`): those of a workspace with something committed, most recent first, each with
//! its title (the first line of its first prompt) and its number of prompts.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::domain::Item;
use crate::store::{self, Home};

use super::error::FrontError;

/// Sessions offered at most.
pub const MAX_OFFERED: usize = 20;
/// Longest title, in characters.
pub const TITLE_CHARS: usize = 60;

/// When the history of session `id` was last written.
pub fn last_activity(home: &Home, id: &str) -> Option<SystemTime> {
    let path = home.history_path(id).ok()?;
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// One session offered.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// The session id.
    pub id: String,
    /// The workspace it records.
    pub workspace: PathBuf,
    /// When its history was last written.
    pub activity: SystemTime,
    /// Prompts the person typed.
    pub turns: usize,
    /// The first line of its first prompt, shortened.
    pub title: String,
}

/// The title (first line of the first prompt, shortened) and the number of prompts of a
/// loaded session.
pub fn title_and_turns(loaded: &store::Loaded) -> (String, usize) {
    let mut prompts = loaded.records.iter().filter_map(|r| match &r.item {
        Item::User { text } => Some(text.as_str()),
        _ => None,
    });
    let first = prompts.next();
    let turns = usize::from(first.is_some()) + prompts.count();
    let line = first
        .and_then(|t| t.lines().find(|l| !l.trim().is_empty()))
        .unwrap_or("")
        .trim();
    let title = if line.chars().count() > TITLE_CHARS {
        let cut: String = line.chars().take(TITLE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    };
    (title, turns)
}

/// The sessions with something committed, most recent first: of `workspace` only when given,
/// without `except`.
pub fn candidates(
    home: &Home,
    workspace: Option<&Path>,
    except: Option<&str>,
) -> Result<Vec<Candidate>, FrontError> {
    let mut found: Vec<Candidate> = store::list(home)
        .map_err(|err| FrontError::failure(err.to_string()))?
        .into_iter()
        .filter(|s| s.problem.is_none() && s.items > 0)
        .filter(|s| workspace.is_none_or(|w| s.workspace == w))
        .filter(|s| except != Some(s.id.as_str()))
        .map(|s| Candidate {
            activity: last_activity(home, &s.id).unwrap_or(s.created),
            id: s.id,
            workspace: s.workspace,
            turns: 0,
            title: String::new(),
        })
        .collect();
    found.sort_by(|a, b| b.activity.cmp(&a.activity).then_with(|| b.id.cmp(&a.id)));
    found.truncate(MAX_OFFERED);
    for candidate in &mut found {
        if let Ok(loaded) = store::load(home, &candidate.id) {
            (candidate.title, candidate.turns) = title_and_turns(&loaded);
        }
    }
    Ok(found)
}
