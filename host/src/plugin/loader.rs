//! Reading, pinning and checking a component before it is instantiated.

use std::path::Path;

use wasmtime::component::Component;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::{ComponentInfo, World, inspect, sha256_hex};

/// Read `path`, check its sha256 against `pin`, compile it and check it implements `world`.
pub(crate) fn load_file(
    engine: &PluginEngine,
    name: &str,
    path: &Path,
    pin: Option<&str>,
    world: World,
) -> Result<(ComponentInfo, Component), PluginError> {
    let bytes = std::fs::read(path).map_err(|source| PluginError::Read {
        path: path.to_owned(),
        source,
    })?;
    load_bytes(engine, name, &bytes, pin, world)
}

/// Like [`load_file`], for bytes already in memory.
pub(crate) fn load_bytes(
    engine: &PluginEngine,
    name: &str,
    bytes: &[u8],
    pin: Option<&str>,
    world: World,
) -> Result<(ComponentInfo, Component), PluginError> {
    if let Some(expected) = pin {
        let found = sha256_hex(bytes);
        if !found.eq_ignore_ascii_case(expected.trim()) {
            return Err(PluginError::DigestMismatch {
                plugin: name.to_owned(),
                expected: expected.trim().to_owned(),
                found,
            });
        }
    }
    let (info, component) = inspect(engine, &format!("plugin {name}"), bytes)?;
    if info.world != world {
        return Err(PluginError::Refused {
            what: format!("plugin {name}"),
            reason: format!(
                "is a {} component but is configured as a {world}",
                info.world
            ),
        });
    }
    Ok((info, component))
}
