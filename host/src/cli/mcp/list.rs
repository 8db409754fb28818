//! `warden mcp list [-C DIR] [--json]`: every `[[mcp]]` server of the workspace's
//! configuration (the project's only in a trusted workspace), started as a turn starts them,
//! with its transport, confinement, state and tools. `/mcp` in the chat shows the same rows.

use std::path::Path;

use serde_json::json;

use crate::cli::common::{env, home};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::front::workspace::Workspace;
use crate::mcp::{McpSet, ServerRow};

pub(super) fn list(dir: Option<&Path>, json: bool) -> Result<u8, CliError> {
    let root = Workspace::find(dir)?.root;
    let home = home()?;
    let loaded = load_config_trusted(&root, &home, WhenWaiting::Refuse)?;
    let options = crate::setup::mcp_options(&loaded.config, &root);
    // A diagnostic: every server started now, whatever listing a session keeps.
    let set = McpSet::start_now(&loaded.config.mcp, &options, &env).map_err(CliError::failure)?;
    let rows = set.rows();
    if json {
        outln!("{}", json!({"workspace": root, "servers": rows}));
    } else {
        print_rows(&rows);
    }
    Ok(EXIT_OK)
}

/// The rows as lines of text.
pub(crate) fn rows_text(rows: &[ServerRow]) -> Vec<String> {
    if rows.is_empty() {
        return vec!["no MCP servers configured (add `[[mcp]]` entries; see docs/mcp.md)".into()];
    }
    let mut lines = Vec::new();
    for row in rows {
        let state = match &row.error {
            Some(why) => format!("failed: {why}"),
            None => row.state.to_owned(),
        };
        lines.push(format!(
            "{}  {} {} ({}, {} layer)  {state}",
            row.name, row.transport, row.target, row.confinement, row.origin
        ));
        for tool in &row.tools {
            lines.push(format!("  {tool}"));
        }
        if !row.resources.is_empty() {
            lines.push(format!(
                "  resources: {}",
                row.resources
                    .iter()
                    .map(|uri| format!("@{}:{uri}", row.name))
                    .collect::<Vec<_>>()
                    .join(" ")
            ));
        }
    }
    lines
}

/// Print the rows.
fn print_rows(rows: &[ServerRow]) {
    for line in rows_text(rows) {
        outln!("{}", crate::domain::escape::terminal(&line));
    }
}
