//! `warden session list | show ID | export [--as-sent] ID`.

use super::common::home;
use super::exit::{CliError, EXIT_OK};
use super::out::outln;
use crate::store::{self, StoreError};
use crate::worker::preview::ShownItem;

fn not_found(err: StoreError) -> CliError {
    CliError::failure(err.to_string())
}

/// List sessions, oldest first.
pub(crate) fn list(json: bool) -> Result<u8, CliError> {
    let home = home()?;
    let sessions = store::list(&home).map_err(not_found)?;
    let created = |t: std::time::SystemTime| humantime::format_rfc3339_seconds(t).to_string();
    if json {
        let value: Vec<serde_json::Value> = sessions
            .iter()
            .map(|s| {
                serde_json::json!({
                    "id": s.id,
                    "workspace": s.workspace,
                    "created": created(s.created),
                    "items": s.items,
                    "parent": s.parent,
                    "problem": s.problem,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(value));
    } else if sessions.is_empty() {
        outln!("no sessions under {}", home.root().display());
    } else {
        for s in &sessions {
            let problem = s
                .problem
                .as_deref()
                .map(|p| format!("  ({p})"))
                .unwrap_or_default();
            outln!(
                "{}  {}  {:>5} items  {}{problem}",
                s.id,
                created(s.created),
                s.items,
                s.workspace.display()
            );
        }
    }
    Ok(EXIT_OK)
}

fn loaded(id: &str) -> Result<store::Loaded, CliError> {
    let home = home()?;
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
        outln!("{}", record.item.text());
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
