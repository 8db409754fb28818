//! Reading, pinning and checking a component before it is instantiated.

use std::path::Path;

use wasmtime::component::Component;

use super::component_file::sha256_hex;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::inspect_digested;
use super::world::{ComponentInfo, World};

/// Read `path` (a regular file within the size cap), check its sha256 against `pin`, compile it and check it implements `world`.
pub(crate) fn load_file(
    engine: &PluginEngine,
    name: &str,
    path: &Path,
    pin: Option<&str>,
    world: World,
) -> Result<(ComponentInfo, Component), PluginError> {
    let bytes = super::builtin::read(path, engine.max_component_bytes())?;
    // A sample the binary carries is as trusted as the binary; `policy.allowed_sources` still
    // decides whether it may load at all.
    if super::builtin::builtin_name(path).is_none() {
        super::signature::enforce(engine.signing(), name, path, &bytes)?;
    }
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
    let digest = sha256_hex(bytes);
    if let Some(expected) = pin
        && !digest.eq_ignore_ascii_case(expected.trim())
    {
        return Err(PluginError::DigestMismatch {
            plugin: name.to_owned(),
            expected: expected.trim().to_owned(),
            found: digest,
        });
    }
    let (info, component) = inspect_digested(engine, &format!("plugin {name}"), bytes, digest)?;
    if info.world != world {
        return Err(PluginError::Refused {
            what: format!("plugin {name}"),
            reason: format!(
                "implements the `{}` world but is configured as kind `{world}`",
                info.world
            ),
        });
    }
    Ok((info, component))
}
