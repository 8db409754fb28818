//! `warden session list | show ID | export [--as-sent] ID | verify [ID] | salvage ID`.

use super::prune::last_activity;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Item;
use crate::domain::escape::terminal;
use crate::store::{self, Home, StoreError};
use crate::worker::preview::ShownItem;

fn not_found(err: StoreError) -> CliError {
    CliError::failure(err.to_string())
}

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

fn loaded(id: &str) -> Result<store::Loaded, CliError> {
    let home = home()?;
    super::target::existing(&home, id)?;
    let loaded = store::load(&home, id).map_err(not_found)?;
    for warning in &loaded.warnings {
        eprintln!("warning [store]: {warning}");
    }
    Ok(loaded)
}

/// Print a session's parent and children, then its history, for a person.
pub(crate) fn show(id: &str) -> Result<u8, CliError> {
    let loaded = loaded(id)?;
    if let Some(parent) = &loaded.header.parent {
        outln!("parent: {parent}");
    }
    let children: Vec<String> = store::list(&home()?)
        .map_err(not_found)?
        .into_iter()
        .filter(|s| s.parent.as_deref() == Some(id))
        .map(|s| s.id)
        .collect();
    if !children.is_empty() {
        outln!("children: {}", children.join(", "));
    }
    for record in &loaded.records {
        outln!(
            "── #{} {} ({})",
            record.seq,
            record.item.role(),
            record.source
        );
        outln!("{}", terminal(record.item.text()));
    }
    Ok(EXIT_OK)
}

/// Print `history.json`: an array of items shaped as `preview --json` items; with `as_sent`,
/// only those the next request would contain.
pub(crate) fn export(id: &str, as_sent: bool) -> Result<u8, CliError> {
    let loaded = loaded(id)?;
    let records = if as_sent {
        store::as_sent(&loaded.records)
    } else {
        &loaded.records
    };
    let items: Vec<ShownItem> = records
        .iter()
        .map(|r| ShownItem {
            item: r.item.clone(),
            source: r.source.clone(),
        })
        .collect();
    let text = serde_json::to_string_pretty(&items)
        .map_err(|err| CliError::failure(format!("cannot encode the history: {err}")))?;
    outln!("{text}");
    Ok(EXIT_OK)
}

/// Check one session, or all: one line each, exit 1 if any is damaged.
pub(crate) fn verify(id: Option<&str>) -> Result<u8, CliError> {
    let home = home()?;
    let ids: Vec<String> = match id {
        Some(id) => vec![id.to_owned()],
        None => store::list(&home)
            .map_err(not_found)?
            .into_iter()
            .map(|s| s.id)
            .collect(),
    };
    let mut damaged = 0;
    for id in &ids {
        match store::verify(&home, id) {
            Ok(v) => {
                let sums = match v.unsealed {
                    0 => "all checksummed".to_owned(),
                    n => format!("{n} without checksum, written before checksums"),
                };
                let torn = v
                    .torn
                    .map(|t| format!("; would drop: {t}"))
                    .unwrap_or_default();
                outln!("{id}: ok ({} records, {sums}{torn})", v.records);
            }
            Err(err) => {
                damaged += 1;
                outln!("{id}: damaged: {err}");
            }
        }
    }
    if damaged > 0 {
        return Err(CliError::failure(format!(
            "{damaged} of {} sessions damaged; `warden session salvage ID` copies the valid \
             part of one into a new session",
            ids.len()
        )));
    }
    Ok(EXIT_OK)
}

/// Copy the valid prefix of a session into a new session and print its id.
pub(crate) fn salvage(id: &str) -> Result<u8, CliError> {
    let home = home()?;
    let saved = store::salvage(&home, id).map_err(not_found)?;
    match &saved.problem {
        Some(problem) => eprintln!(
            "warden: session {id}: kept {} records ({} groups) before: {problem}",
            saved.records, saved.groups
        ),
        None => eprintln!(
            "warden: session {id} has no damage; copied all {} records ({} groups)",
            saved.records, saved.groups
        ),
    }
    outln!("{}", saved.id);
    Ok(EXIT_OK)
}
