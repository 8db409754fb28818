//! `warden session list [--json] [--all]`: every session, oldest first, with its last activity,
//! item count and title; a child session (`--parent`) follows its parent, marked `└`.

use super::not_found;
use super::pick::title_and_turns;
use super::prune::last_activity;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store::{self, Home, SessionSummary};

/// The first line of the session's first prompt, shortened.
fn title(home: &Home, id: &str) -> String {
    store::load(home, id)
        .map(|loaded| title_and_turns(&loaded).0)
        .unwrap_or_default()
}

/// The listed sessions whose header names `id` as parent.
fn children<'a>(sessions: &'a [SessionSummary], id: &str) -> Vec<&'a SessionSummary> {
    sessions
        .iter()
        .filter(|s| s.parent.as_deref() == Some(id))
        .collect()
}

/// `sessions` in display order, each with its depth: a session whose parent is listed comes
/// right after it (and its earlier siblings); the rest keep their order.
fn tree(sessions: &[SessionSummary]) -> Vec<(usize, &SessionSummary)> {
    fn push<'a>(
        sessions: &'a [SessionSummary],
        s: &'a SessionSummary,
        depth: usize,
        out: &mut Vec<(usize, &'a SessionSummary)>,
    ) {
        // A parent cycle cannot be written by warden, but a hand-edited header could hold one.
        if out.iter().any(|(_, seen)| seen.id == s.id) {
            return;
        }
        out.push((depth, s));
        for child in children(sessions, &s.id) {
            push(sessions, child, depth + 1, out);
        }
    }
    let mut out = Vec::with_capacity(sessions.len());
    let listed = |id: &str| sessions.iter().any(|s| s.id == id);
    for s in sessions {
        if s.parent.as_deref().is_none_or(|p| !listed(p)) {
            push(sessions, s, 0, &mut out);
        }
    }
    // Sessions only reachable through a cycle.
    for s in sessions {
        if !out.iter().any(|(_, seen)| seen.id == s.id) {
            out.push((0, s));
        }
    }
    out
}

/// List sessions, oldest first; those with no committed group only with `all`.
pub(crate) fn list(json: bool, all: bool) -> Result<u8, CliError> {
    let home = home()?;
    let sessions: Vec<SessionSummary> = store::list(&home)
        .map_err(not_found)?
        .into_iter()
        .filter(|s| all || s.items > 0 || s.problem.is_some())
        .collect();
    let ts = |t: std::time::SystemTime| humantime::format_rfc3339_seconds(t).to_string();
    let activity = |s: &SessionSummary| ts(last_activity(&home, &s.id).unwrap_or(s.created));
    if json {
        let value: Vec<serde_json::Value> = sessions
            .iter()
            .map(|s| {
                let children: Vec<&str> = children(&sessions, &s.id)
                    .into_iter()
                    .map(|c| c.id.as_str())
                    .collect();
                serde_json::json!({
                    "id": s.id,
                    "workspace": s.workspace,
                    "created": ts(s.created),
                    "last_activity": activity(s),
                    "items": s.items,
                    "title": title(&home, &s.id),
                    "parent": s.parent,
                    "children": children,
                    "problem": s.problem,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(value));
    } else if sessions.is_empty() {
        outln!("no sessions under {}", home.root().display());
    } else {
        let shown = tree(&sessions);
        let label = |depth: usize, id: &str| {
            if depth == 0 {
                id.to_owned()
            } else {
                format!("{}└ {id}", "  ".repeat(depth - 1))
            }
        };
        let width = shown
            .iter()
            .map(|(depth, s)| label(*depth, &s.id).chars().count())
            .max()
            .unwrap_or(2)
            .max(2);
        outln!(
            "{:<width$}  {:<20}  {:>5}  TITLE",
            "ID",
            "LAST ACTIVITY",
            "ITEMS"
        );
        for (depth, s) in shown {
            let problem = s
                .problem
                .as_deref()
                .map(|p| format!("  ({p})"))
                .unwrap_or_default();
            let id = label(depth, &s.id);
            let pad = width.saturating_sub(id.chars().count());
            outln!(
                "{id}{:pad$}  {:<20}  {:>5}  {}{problem}",
                "",
                activity(s),
                s.items,
                title(&home, &s.id),
            );
        }
    }
    Ok(EXIT_OK)
}
