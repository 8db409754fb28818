//! `warden plugin check FILE.wasm|oci://…`.

use crate::cli::out::outln;
use std::path::Path;

use crate::cli::exit::{CliError, EXIT_OK};
use crate::config::ToolGrants;
use crate::plugin::{
    Limits, MAX_COMPONENT_BYTES, PluginEngine, ToolLoad, ToolPlugin, World, inspect,
};

/// Print the component's world, API version, sha256, metadata, signature, imports and exports; exit 2 with one
/// line saying why when it is not a plugin warden can run.
pub(crate) fn check(file: &Path, json: bool) -> Result<u8, CliError> {
    let text = file.to_string_lossy();
    if text.starts_with(crate::config::OCI_SCHEME) {
        let fetched = super::oci_common::inspect_reference(&text)?;
        return report(&text, &fetched.bytes, &fetched.file, json);
    }
    let bytes = crate::plugin::builtin::read(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    report(&file.display().to_string(), &bytes, file, json)
}

/// Labels are padded to this width, so that every value starts in one column.
const LABEL: usize = 13;

/// Print what the component `bytes` (named `what`, kept at `file`) is.
fn report(what: &str, bytes: &[u8], file: &Path, json: bool) -> Result<u8, CliError> {
    // The compiled-code cache of the state root: what is checked here loads at once later.
    let engine = super::oci_common::engine(MAX_COMPONENT_BYTES)?;
    let (info, _) =
        inspect(&engine, what, bytes).map_err(|err| CliError::usage(err.to_string()))?;
    let tools = (info.world == World::Tool).then(|| tool_names(&engine, file));
    let http = info.imports.iter().any(|i| i.contains("/outgoing@"));
    let meta = crate::plugin::metadata::read(bytes).unwrap_or_default();
    let signed = crate::plugin::signature::signed_by(bytes);
    // The world's interface, apart from what a toolchain adds for itself (componentize-py's
    // `exports`, its start-up hook), which warden never calls.
    let (exports, toolchain): (Vec<&String>, Vec<&String>) = info
        .exports
        .iter()
        .partition(|e| e.starts_with("warden:plugin/"));
    if json {
        let value = serde_json::json!({
            "file": what,
            "world": info.world.as_str(),
            "api_version": info.version,
            "sha256": info.sha256,
            "size": info.size,
            "imports": info.imports,
            "exports": exports,
            "toolchain_exports": toolchain,
            "metadata": meta,
            "signature": signed.as_ref().map(|key| serde_json::json!({ "key_id": key })),
            "tools": tools.as_ref().map(|t| t.as_ref().map_or_else(|e| json_error(e), |t| serde_json::json!(t))),
        });
        outln!("{value}");
    } else {
        let line = |label: &str, value: &str| outln!("{:<LABEL$}{value}", format!("{label}:"));
        line("file", what);
        line("world", &info.world.to_string());
        line("api", &format!("warden:plugin@{}", info.version));
        line("sha256", &info.sha256);
        line("size", &format!("{} bytes", info.size));
        for (label, value) in meta.fields() {
            line(label, value);
        }
        match &signed {
            Some(key) => line(
                "signed",
                &format!(
                    "yes, key {} (`warden plugin verify` checks it)",
                    key.as_deref().unwrap_or("(not recorded)")
                ),
            ),
            None => line("signed", "no"),
        }
        let names = |list: &[&String]| {
            list.iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        line("exports", &names(&exports));
        if !toolchain.is_empty() {
            line(
                "toolchain",
                &format!(
                    "also exports {} (the build toolchain's own start-up; warden never calls it)",
                    names(&toolchain)
                ),
            );
        }
        outln!("imports:");
        for import in &info.imports {
            outln!("  {import}");
        }
        if let Some(tools) = &tools {
            match tools {
                Ok(names) => line("tools", &names.join(", ")),
                Err(err) => line("tools", &format!("(not described: {err})")),
            }
            line(
                "grants",
                &format!(
                    "its [[plugins]] entry sets them (nothing by default): fs = \"read\" or \"read-write\" to see the workspace, env = [...] for variables{}",
                    if http {
                        ", allowed_hosts = [...] for the outgoing HTTP it imports"
                    } else {
                        ""
                    }
                ),
            );
        }
    }
    Ok(EXIT_OK)
}

fn json_error(err: &str) -> serde_json::Value {
    serde_json::json!({ "error": err })
}

/// The tools a tool plugin describes, loaded with no grants and an empty config (the current
/// directory as its root), or why it could not be asked.
pub(super) fn tool_names(engine: &PluginEngine, file: &Path) -> Result<Vec<String>, String> {
    let root = std::env::current_dir()
        .and_then(std::fs::canonicalize)
        .map_err(|e| e.to_string())?;
    let plugin = ToolPlugin::load(
        engine,
        "check",
        ToolLoad {
            path: file,
            pin: None,
            limits: Limits::default(),
            grants: &ToolGrants::default(),
            roots: &[root],
            deny: &[],
        },
        Vec::new(),
        &|_| None,
    )
    .map_err(|e| e.to_string())?;
    Ok(plugin.specs().iter().map(|s| s.name.clone()).collect())
}
