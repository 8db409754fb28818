//! `warden plugin list [--builtin] [--json] [-C DIR]`: the plugins the configuration declares
//! (name, kind, path, layer), or with `--builtin` the sample plugins this binary carries, which
//! an entry loads with `path = "builtin:NAME"`.

use std::path::Path;

use crate::cli::common::load_config;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::workspace::Workspace;
use crate::plugin::builtin::{BUILTIN_PREFIX, BUILTINS};

/// Print the list; one JSON array with `--json`.
pub(crate) fn list(builtin: bool, json: bool, dir: Option<&Path>) -> Result<u8, CliError> {
    if builtin {
        list_builtin(json);
        return Ok(EXIT_OK);
    }
    let workspace = Workspace::find(dir)?.root;
    let loaded = load_config(&workspace)?;
    let plugins = &loaded.config.plugins;
    if json {
        let rows: Vec<serde_json::Value> = plugins
            .iter()
            .map(|p| {
                serde_json::json!({
                    "name": p.name,
                    "kind": p.kind.name(),
                    "path": p.path.display().to_string(),
                    "sha256": p.sha256,
                    "origin": p.origin,
                    "declared_in": p.declared_in.as_ref().map(|d| d.display().to_string()),
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(rows));
        return Ok(EXIT_OK);
    }
    if plugins.is_empty() {
        outln!(
            "no plugins configured (`warden plugin list --builtin` lists those this binary carries)"
        );
        return Ok(EXIT_OK);
    }
    for p in plugins {
        outln!(
            "{:<20} {:<12} {:<8} {}",
            p.name,
            p.kind.name(),
            p.origin,
            p.path.display()
        );
    }
    Ok(EXIT_OK)
}

fn list_builtin(json: bool) {
    if json {
        let rows: Vec<serde_json::Value> = BUILTINS
            .iter()
            .map(|b| {
                serde_json::json!({
                    "name": b.name,
                    "path": format!("{BUILTIN_PREFIX}{}", b.name),
                    "world": b.world,
                    "api_version": b.wit,
                    "version": b.version,
                    "sha256": b.sha256,
                    "size": b.bytes.len(),
                    "description": b.description,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(rows));
        return;
    }
    outln!(
        "{:<24} {:<18} {:<8} {:<12} {:>9}  DESCRIPTION",
        "PATH",
        "WORLD",
        "VERSION",
        "SHA256",
        "SIZE"
    );
    for b in BUILTINS {
        let short: String = b.sha256.chars().take(12).collect();
        outln!(
            "{:<24} {:<18} {:<8} {:<12} {:>9}  {}",
            format!("{BUILTIN_PREFIX}{}", b.name),
            format!("{}@{}", b.world, b.wit),
            b.version,
            short,
            b.bytes.len(),
            b.description
        );
    }
    outln!(
        "use one as a [[plugins]] entry's `path = \"builtin:NAME\"` (with its `kind` and `config`); `--json` prints the full sha256 for a `sha256` pin"
    );
}
