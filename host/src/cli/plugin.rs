//! `warden plugin check FILE.wasm`.

use super::out::outln;
use std::path::Path;

use super::exit::{CliError, EXIT_OK};
use crate::plugin::{EngineOptions, MAX_COMPONENT_BYTES, PluginEngine, inspect, read_component};

/// Print the component's world, API version, sha256, imports and exports; exit 2 with one
/// line saying why when it is not a plugin warden can run.
pub(crate) fn check(file: &Path, json: bool) -> Result<u8, CliError> {
    let bytes = read_component(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let engine = PluginEngine::new(EngineOptions::default())
        .map_err(|err| CliError::failure(err.to_string()))?;
    let what = file.display().to_string();
    let (info, _) =
        inspect(&engine, &what, &bytes).map_err(|err| CliError::usage(err.to_string()))?;
    if json {
        let value = serde_json::json!({
            "file": what,
            "world": info.world.as_str(),
            "api_version": info.version,
            "sha256": info.sha256,
            "size": info.size,
            "imports": info.imports,
            "exports": info.exports,
        });
        outln!("{value}");
    } else {
        outln!("file:     {what}");
        outln!("world:    {}", info.world);
        outln!("api:      warden:plugin@{}", info.version);
        outln!("sha256:   {}", info.sha256);
        outln!("size:     {} bytes", info.size);
        outln!("exports:  {}", info.exports.join(", "));
        outln!("imports:");
        for import in &info.imports {
            outln!("  {import}");
        }
    }
    Ok(EXIT_OK)
}
