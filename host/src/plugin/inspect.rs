//! Identity and shape of a component: sha256, world, API version, imports and exports — or a
//! one-line reason why warden will not run it.

use wasmtime::component::Component;

use super::component_file::sha256_hex;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::version::{PACKAGE, WitVersion};
use super::world::{ComponentInfo, World};

fn refused(what: &str, reason: impl Into<String>) -> PluginError {
    PluginError::Refused {
        what: what.to_owned(),
        reason: reason.into(),
    }
}

/// Split `warden:plugin/intercept@0.1.0` into (`intercept`, `0.1.0`).
fn split_warden_name(name: &str) -> Option<(&str, &str)> {
    let rest = name.strip_prefix(PACKAGE)?.strip_prefix('/')?;
    let (iface, version) = rest.split_once('@').unwrap_or((rest, ""));
    Some((iface, version))
}

/// Check the binary header: a component, not a core module or garbage.
fn check_header(what: &str, bytes: &[u8]) -> Result<(), PluginError> {
    if bytes.len() < 8 || &bytes[..4] != b"\0asm" {
        return Err(refused(
            what,
            "not a WebAssembly binary (no `\\0asm` header)",
        ));
    }
    match [bytes[6], bytes[7]] {
        [1, 0] => Ok(()),
        [0, 0] => Err(refused(
            what,
            "is a core WebAssembly module, not a component; build it for wasm32-wasip2 or wrap it with `wasm-tools component new`",
        )),
        layer => Err(refused(
            what,
            format!("unknown WebAssembly layer {layer:?}"),
        )),
    }
}

/// Compile `bytes` and read its world, version, imports and exports. `what` names the file or
/// plugin in errors.
pub fn inspect(
    engine: &PluginEngine,
    what: &str,
    bytes: &[u8],
) -> Result<(ComponentInfo, Component), PluginError> {
    inspect_digested(engine, what, bytes, sha256_hex(bytes))
}

/// [`inspect`] for bytes whose sha256 (hex) the caller already computed.
pub(crate) fn inspect_digested(
    engine: &PluginEngine,
    what: &str,
    bytes: &[u8],
    sha256: String,
) -> Result<(ComponentInfo, Component), PluginError> {
    check_header(what, bytes)?;
    let component = engine
        .compile(what, bytes, &sha256)
        .map_err(|err| match err {
            PluginError::Load { message, .. } => {
                refused(what, format!("invalid component: {message}"))
            }
            other => other,
        })?;
    let ty = component.component_type();
    let wasm = engine.engine();
    let imports: Vec<String> = ty.imports(wasm).map(|(name, _)| name.to_owned()).collect();
    let exports: Vec<String> = ty.exports(wasm).map(|(name, _)| name.to_owned()).collect();

    let mut worlds = Vec::new();
    let mut versions: Vec<WitVersion> = Vec::new();
    for name in &exports {
        if let Some((iface, version)) = split_warden_name(name) {
            let Some(parsed) = WitVersion::parse(version) else {
                return Err(PluginError::UnsupportedVersion {
                    what: what.to_owned(),
                    version: if version.is_empty() {
                        "(unversioned)".to_owned()
                    } else {
                        version.to_owned()
                    },
                    export: name.clone(),
                });
            };
            match World::from_interface(iface, parsed) {
                Some(world) => worlds.push(world),
                None => return Err(refused(what, format!("exports unknown interface `{name}`"))),
            }
            if !versions.contains(&parsed) {
                versions.push(parsed);
            }
        }
    }
    let world = match worlds.as_slice() {
        [world] => *world,
        [] => {
            return Err(refused(
                what,
                format!(
                    "exports no warden world (expected one of {PACKAGE}/intercept, /observe, /resolve, /act; {}); exports: {}",
                    WitVersion::supported_packages(),
                    if exports.is_empty() {
                        "nothing".to_owned()
                    } else {
                        exports.join(", ")
                    }
                ),
            ));
        }
        many => {
            let names: Vec<&str> = many.iter().map(|w| w.as_str()).collect();
            return Err(refused(
                what,
                format!("exports more than one warden world: {}", names.join(", ")),
            ));
        }
    };
    let version = match versions.as_slice() {
        [version] => *version,
        _ => return Err(refused(what, "exports more than one warden:plugin version")),
    };
    for name in &imports {
        let ours = match split_warden_name(name) {
            Some((iface, v)) => {
                v == version.as_str()
                    && (matches!(iface, "host" | "types")
                        || (iface == "outgoing" && world == World::Tool)
                        || (iface == "prompts"
                            && world == World::Interceptor
                            && version >= WitVersion::V0_3))
            }
            None => name.starts_with("wasi:"),
        };
        if !ours {
            return Err(refused(
                what,
                format!("imports `{name}`, which warden does not provide to a {version} {world}"),
            ));
        }
    }
    let info = ComponentInfo {
        world,
        version,
        sha256,
        size: bytes.len(),
        imports,
        exports,
    };
    Ok((info, component))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_check_names_core_modules_and_garbage() {
        let core = b"\0asm\x01\0\0\0";
        let err = check_header("x.wasm", core).err().map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("core WebAssembly module")));
        let err = check_header("x.wasm", b"hello world")
            .err()
            .map(|e| e.to_string());
        assert!(err.is_some_and(|e| e.contains("not a WebAssembly binary")));
        assert!(check_header("x.wasm", b"\0asm\x0d\0\x01\0").is_ok());
    }

    #[test]
    fn warden_names_split() {
        assert_eq!(
            split_warden_name("warden:plugin/intercept@0.1.0"),
            Some(("intercept", "0.1.0"))
        );
        assert_eq!(split_warden_name("wasi:io/streams@0.2.0"), None);
        assert_eq!(
            split_warden_name("warden:plugin/observe"),
            Some(("observe", ""))
        );
    }
}
