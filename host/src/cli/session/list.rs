//! `warden session list [--json] [--all] [-C|--workspace DIR] [--grep TEXT]`: every session
//! (or those of one workspace, or whose prompts contain a text), oldest first, with its last
//! activity, item count, workspace and title; a child session (`--parent`) follows its parent,
//! marked `└`.

use std::path::Path;

use super::not_found;
use super::pick::title_and_turns;
use super::prune::last_activity;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Item;
use crate::domain::escape::terminal;
use crate::front::workspace::Workspace;
use crate::store::{self, Home, SessionSummary};

/// What `session list` was asked.
pub(super) struct ListArgs<'a> {
    /// `--json`.
    pub json: bool,
    /// `--all`: also sessions with nothing committed.
    pub all: bool,
    /// `-C`/`--workspace`: only the sessions of the workspace holding this directory.
    pub workspace: Option<&'a Path>,
    /// `--grep`: only the sessions whose prompts contain this text, in any case.
    pub grep: Option<&'a str>,
}

/// The first line of the session's first prompt, shortened.
fn title(home: &Home, id: &str) -> String {
    store::load(home, id)
        .map(|loaded| title_and_turns(&loaded).0)
        .unwrap_or_default()
}

/// Whether one of the session's prompts contains `needle` (already lowercase).
fn prompts_contain(home: &Home, id: &str, needle: &str) -> bool {
    store::load(home, id).is_ok_and(|loaded| {
        loaded.records.iter().any(|r| match &r.item {
            Item::User { text } => text.to_lowercase().contains(needle),
            _ => false,
        })
    })
}

/// A workspace as shown: under the home directory as `~/…`.
fn shown_workspace(path: &Path) -> String {
    let home = std::env::var_os("HOME").map(std::path::PathBuf::from);
    match home.as_deref().and_then(|h| path.strip_prefix(h).ok()) {
        Some(rest) if !rest.as_os_str().is_empty() => format!("~/{}", rest.display()),
        _ => path.display().to_string(),
    }
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
pub(super) fn list(args: &ListArgs<'_>) -> Result<u8, CliError> {
    let ListArgs { json, all, .. } = *args;
    let home = home()?;
    let workspace = args
        .workspace
        .map(|dir| Workspace::find(Some(dir)).map(|w| w.root))
        .transpose()?;
    let needle = args.grep.map(str::to_lowercase);
    let sessions: Vec<SessionSummary> = store::list(&home)
        .map_err(not_found)?
        .into_iter()
        .filter(|s| all || s.items > 0 || s.problem.is_some())
        .filter(|s| workspace.as_ref().is_none_or(|w| same_dir(&s.workspace, w)))
        .filter(|s| {
            needle
                .as_deref()
                .is_none_or(|n| prompts_contain(&home, &s.id, n))
        })
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
        outln!(
            "no sessions under {}{}",
            home.root().display(),
            filtered(args)
        );
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
        let places: Vec<String> = shown
            .iter()
            .map(|(_, s)| shown_workspace(&s.workspace))
            .collect();
        let place_width = places
            .iter()
            .map(|p| p.chars().count())
            .max()
            .unwrap_or(0)
            .max("WORKSPACE".len());
        outln!(
            "{:<width$}  {:<20}  {:>5}  {:<place_width$}  TITLE",
            "ID",
            "LAST ACTIVITY",
            "ITEMS",
            "WORKSPACE"
        );
        for ((depth, s), place) in shown.into_iter().zip(&places) {
            let problem = s
                .problem
                .as_deref()
                .map(|p| format!("  ({p})"))
                .unwrap_or_default();
            let id = label(depth, &s.id);
            let pad = width.saturating_sub(id.chars().count());
            let place_pad = place_width.saturating_sub(place.chars().count());
            outln!(
                "{id}{:pad$}  {:<20}  {:>5}  {}{:place_pad$}  {}{problem}",
                "",
                activity(s),
                s.items,
                terminal(place),
                "",
                title(&home, &s.id),
            );
        }
    }
    Ok(EXIT_OK)
}

/// Whether two directories are the same (compared canonical when both exist).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// What an empty list was filtered by, for its line.
fn filtered(args: &ListArgs<'_>) -> String {
    let mut by = Vec::new();
    if let Some(dir) = args.workspace {
        by.push(format!("in the workspace of {}", dir.display()));
    }
    if let Some(text) = args.grep {
        by.push(format!("with a prompt containing {:?}", terminal(text)));
    }
    if by.is_empty() {
        String::new()
    } else {
        format!(" {}", by.join(" "))
    }
}
