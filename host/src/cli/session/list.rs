//! `warden session list [--json] [--all]`: every session, oldest first, with its last activity,
//! item count and title.

use super::not_found;
use super::prune::last_activity;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Item;
use crate::store::{self, Home};

/// Longest title shown, in characters.
const TITLE_CHARS: usize = 60;

/// The first line of the session's first prompt, shortened.
fn title(home: &Home, id: &str) -> String {
    let Ok(loaded) = store::load(home, id) else {
        return String::new();
    };
    let first = loaded.records.iter().find_map(|r| match &r.item {
        Item::User { text } => Some(text.lines().find(|l| !l.trim().is_empty()).unwrap_or("")),
        _ => None,
    });
    let line = first.unwrap_or("").trim();
    if line.chars().count() > TITLE_CHARS {
        let cut: String = line.chars().take(TITLE_CHARS - 1).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// List sessions, oldest first; those with no committed group only with `all`.
pub(crate) fn list(json: bool, all: bool) -> Result<u8, CliError> {
    let home = home()?;
    let sessions: Vec<store::SessionSummary> = store::list(&home)
        .map_err(not_found)?
        .into_iter()
        .filter(|s| all || s.items > 0 || s.problem.is_some())
        .collect();
    let ts = |t: std::time::SystemTime| humantime::format_rfc3339_seconds(t).to_string();
    let activity = |s: &store::SessionSummary| ts(last_activity(&home, &s.id).unwrap_or(s.created));
    if json {
        let value: Vec<serde_json::Value> = sessions
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.id,
                    "workspace": s.workspace,
                    "created": ts(s.created),
                    "last_activity": activity(s),
                    "items": s.items,
                    "title": title(&home, &s.id),
                    "parent": s.parent,
                    "problem": s.problem,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(value));
    } else if sessions.is_empty() {
        outln!("no sessions under {}", home.root().display());
    } else {
        let width = sessions
            .iter()
            .map(|s| s.id.len())
            .max()
            .unwrap_or(2)
            .max(2);
        outln!(
            "{:<width$}  {:<20}  {:>5}  TITLE",
            "ID",
            "LAST ACTIVITY",
            "ITEMS"
        );
        for s in &sessions {
            let problem = s
                .problem
                .as_deref()
                .map(|p| format!("  ({p})"))
                .unwrap_or_default();
            outln!(
                "{:<width$}  {:<20}  {:>5}  {}{problem}",
                s.id,
                activity(s),
                s.items,
                title(&home, &s.id),
            );
        }
    }
    Ok(EXIT_OK)
}
