//! `warden session show ID` and `warden session export [--as-sent] ID`: a session's history,
//! for a person or as `history.json`.

use super::not_found;
use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::escape::terminal;
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
    for record in &loaded.records {
        outln!(
            "── #{} {} ({})",
            record.seq,
            record.item.role(),
            record.source
        );
        outln!("{}", terminal(record.item.text()));
    }
    if crate::cli::usage::session_totals(&loaded.records).1 > 0 {
        outln!("── tokens");
        let costing = session_costing(&loaded);
        for line in crate::cli::usage::cost_lines(&loaded.records, &costing) {
            outln!("{line}");
        }
    }
    Ok(EXIT_OK)
}

/// The prices of the model the session's workspace configures (read without the project's
/// code, as `warden config show` reads it); the built-in defaults when it cannot be read.
fn session_costing(loaded: &store::Loaded) -> crate::cli::usage::Costing {
    let sources = crate::cli::common::sources(&loaded.header.workspace);
    let config = crate::config::load_without_project_code(&sources)
        .map(|l| l.config.model)
        .unwrap_or_default();
    crate::cli::usage::Costing::of(&config)
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
