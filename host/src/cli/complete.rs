//! `warden complete [-C DIR] [--json] [--limit N] QUERY`: the chat's `@` completion for
//! scripts and editors.

use std::path::Path;

use super::common::load_config;
use super::exit::{CliError, EXIT_OK};
use super::out::outln;
use crate::complete::{Index, rank};

/// Print the best `limit` workspace paths for `query`, best first.
pub(crate) fn complete(
    dir: Option<&Path>,
    json: bool,
    limit: usize,
    query: &str,
) -> Result<u8, CliError> {
    let workspace = crate::front::workspace::Workspace::find(dir)?.root;
    let loaded = load_config(&workspace)?;
    let index = Index::build(&workspace, &loaded.config.fileref.deny)
        .map_err(|err| CliError::failure(err.to_string()))?;
    let query = query.strip_prefix('@').unwrap_or(query);
    let ranked = rank(&index, query, limit);
    if json {
        let value: Vec<serde_json::Value> = ranked
            .iter()
            .map(|m| {
                serde_json::json!({
                    "path": m.entry.display(),
                    "kind": m.entry.kind,
                    "score": m.score,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(value));
    } else {
        for m in &ranked {
            outln!("{}", m.entry.display());
        }
    }
    Ok(EXIT_OK)
}
