//! `warden session show ID` and `warden session export [--as-sent] ID`: a session's history,
//! for a person (each tool call under the answer that asked for it, `→ read_file a.txt (call
//! c1)`, and each result headed by the call it answers) or as `history.json`.

use std::collections::HashMap;

use super::not_found;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Item;
use crate::domain::escape::{escape, terminal};
use crate::front::transcript::target;
use crate::store;
use crate::worker::preview::ShownItem;

fn loaded(id: &str) -> Result<store::Loaded, CliError> {
    let home = home()?;
    let id = super::resolve(&home, id)?;
    let loaded = store::load(&home, &id).map_err(not_found)?;
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
        .filter(|s| s.parent.as_deref() == Some(loaded.id.as_str()))
        .map(|s| s.id)
        .collect();
    if !children.is_empty() {
        outln!("children: {}", children.join(", "));
    }
    // The calls asked for so far, by id: a result names the call it answers.
    let mut calls: HashMap<&str, &str> = HashMap::new();
    for record in &loaded.records {
        let about = match &record.item {
            Item::ToolResult {
                call_id, is_error, ..
            } => {
                let name = calls.get(call_id.as_str()).copied().unwrap_or("?");
                let error = if *is_error { ", error" } else { "" };
                let from = if record.source == crate::domain::Source::Tool {
                    String::new()
                } else {
                    format!(", from {}", escape(&record.source.to_string()))
                };
                format!("{} {}{error}{from}", escape(name), escape(call_id))
            }
            _ => record.source.to_string(),
        };
        outln!("── #{} {} ({about})", record.seq, record.item.role());
        if !(record.item.text().is_empty() && matches!(record.item, Item::Assistant { .. })) {
            outln!("{}", terminal(record.item.text()));
        }
        if let Item::Assistant { tool_calls, .. } = &record.item {
            for call in tool_calls {
                calls.insert(&call.id, &call.name);
                let target = target(&call.arguments);
                let space = if target.is_empty() { "" } else { " " };
                outln!(
                    "  → {}{space}{target} (call {})",
                    escape(&call.name),
                    escape(&call.id)
                );
            }
        }
    }
    if crate::front::usage::session_totals(&loaded.records).1 > 0 {
        outln!("── tokens");
        let costing = session_costing(&loaded);
        for line in crate::front::usage::cost_lines(&loaded.records, &costing) {
            outln!("{line}");
        }
    }
    Ok(EXIT_OK)
}

/// The prices of the model the session's workspace configures (read without the project's
/// code, as `warden config show` reads it); the built-in defaults when it cannot be read.
fn session_costing(loaded: &store::Loaded) -> crate::front::usage::Costing {
    let sources = crate::cli::common::sources(&loaded.header.workspace);
    let config = crate::config::load_without_project_code(&sources)
        .map(|l| l.config.model)
        .unwrap_or_default();
    crate::front::usage::Costing::of(&config)
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
