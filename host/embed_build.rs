//! Generates, into `OUT_DIR`, what the binary carries besides the built-in resolver:
//!
//! - `sdk_files.rs`: every file of the guest SDK (`plugins/sdk`, walked now, so files added to
//!   it later are carried too), the guest workspace's manifest (for the keys the SDK inherits
//!   from it) and its lock file (the dependency versions the SDK is built and tested with), for
//!   `warden plugin new` to write a project that builds outside warden's source tree;
//! - `builtin_plugins.rs`: the sample plugins, with their world, WIT version, crate version,
//!   sha256, size and the first sentence of their crate documentation, for `builtin:NAME`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Write `OUT_DIR/sdk_files.rs` from the SDK at `workspace/sdk`.
pub fn write_sdk_files(workspace: &Path, out_dir: &Path) -> Result<(), String> {
    let sdk = workspace.join("sdk");
    let mut files = Vec::new();
    walk(&sdk, &mut files)?;
    files.sort();
    if !files.iter().any(|f| f == &sdk.join("Cargo.toml")) {
        return Err(format!("{}: no Cargo.toml", sdk.display()));
    }
    let mut code = String::from("&[\n");
    for file in &files {
        let rel = file
            .strip_prefix(&sdk)
            .map_err(|e| format!("{}: {e}", file.display()))?;
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let _ = writeln!(
            code,
            "    ({:?}, include_bytes!({:?})),",
            rel.join("/"),
            file.display().to_string()
        );
    }
    code.push_str("]\n");
    write(&out_dir.join("sdk_files.rs"), &code)?;
    let manifest = workspace.join("Cargo.toml");
    let lock = workspace.join("Cargo.lock");
    let extra = format!(
        "/// The guest workspace's manifest.\npub(crate) const WORKSPACE_MANIFEST: &str = include_str!({:?});\n\
         /// The guest workspace's lock file.\npub(crate) const WORKSPACE_LOCK: &str = include_str!({:?});\n",
        manifest.display().to_string(),
        lock.display().to_string()
    );
    write(&out_dir.join("sdk_workspace.rs"), &extra)
}

/// Files below `dir`, skipping hidden entries and build output.
fn walk(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), String> {
    let entries = std::fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", dir.display()))?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || name == "target" || name == "Cargo.lock" {
            continue;
        }
        let path = entry.path();
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", path.display()))?;
        if kind.is_dir() {
            walk(&path, out)?;
        } else if kind.is_file() {
            out.push(path);
        }
    }
    Ok(())
}

/// Write `OUT_DIR/builtin_plugins.rs` for the `samples` among `built` (crate name, component);
/// returns `name=sha256` for each, joined by `,`.
pub fn write_builtins(
    workspace: &Path,
    samples: &[&str],
    built: &[(String, PathBuf)],
    out_dir: &Path,
) -> Result<String, String> {
    let mut digests = Vec::new();
    let version = workspace_version(workspace);
    let mut code = String::from("&[\n");
    for name in samples {
        let Some((_, wasm)) = built.iter().find(|(n, _)| n == name) else {
            return Err(format!("sample `{name}` was not built"));
        };
        let bytes = std::fs::read(wasm).map_err(|e| format!("{}: {e}", wasm.display()))?;
        let sha256: String = Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        digests.push(format!("{name}={sha256}"));
        let dir = workspace.join(name);
        let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap_or_default();
        let lib = std::fs::read_to_string(dir.join("src").join("lib.rs")).unwrap_or_default();
        let _ = writeln!(
            code,
            "    Builtin {{ name: {name:?}, world: {:?}, wit: {:?}, version: {:?}, sha256: {sha256:?}, description: {:?}, bytes: include_bytes!({:?}) }},",
            world_feature(&manifest),
            wit_version(&bytes),
            version,
            first_sentence(&lib),
            wasm.display().to_string()
        );
    }
    code.push_str("]\n");
    write(&out_dir.join("builtin_plugins.rs"), &code)?;
    Ok(digests.join(","))
}

/// `[workspace.package] version` of the guest workspace.
fn workspace_version(workspace: &Path) -> String {
    let text = std::fs::read_to_string(workspace.join("Cargo.toml")).unwrap_or_default();
    let mut section = "";
    for line in text.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            section = line;
        } else if section == "[workspace.package]"
            && let Some(value) = line.strip_prefix("version")
            && let Some(value) = value.trim_start().strip_prefix('=')
        {
            return value.trim().trim_matches('"').to_owned();
        }
    }
    String::new()
}

/// The SDK world feature a sample's manifest enables (`interceptor`, `hook`, `tool`, ...).
fn world_feature(manifest: &str) -> String {
    manifest
        .lines()
        .find(|l| l.trim_start().starts_with("warden-plugin"))
        .and_then(|l| l.split_once("features"))
        .and_then(|(_, rest)| rest.split('"').nth(1))
        .unwrap_or("")
        .to_owned()
}

/// The WIT version of the `warden:plugin` interfaces a component names (`0.2.0`).
fn wit_version(bytes: &[u8]) -> String {
    let needle = b"warden:plugin/";
    let Some(at) = bytes.windows(needle.len()).position(|w| w == needle) else {
        return String::new();
    };
    let rest = &bytes[at + needle.len()..];
    let name: Vec<u8> = rest
        .iter()
        .copied()
        .take_while(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'@'))
        .collect();
    let name = String::from_utf8_lossy(&name).into_owned();
    name.split_once('@')
        .map(|(_, v)| v.trim_end_matches('.').to_owned())
        .unwrap_or_default()
}

/// The first sentence of a crate's `//!` documentation, on one line.
fn first_sentence(lib: &str) -> String {
    let mut text = String::new();
    for line in lib.lines() {
        let Some(doc) = line.strip_prefix("//!") else {
            break;
        };
        let doc = doc.trim();
        if doc.is_empty() {
            if text.is_empty() {
                continue;
            }
            break;
        }
        if !text.is_empty() {
            text.push(' ');
        }
        text.push_str(doc);
    }
    let end = text
        .match_indices(". ")
        .next()
        .map_or(text.len(), |(at, _)| at + 1);
    let mut sentence = text[..end].to_owned();
    if sentence.chars().count() > 120 {
        sentence = sentence.chars().take(119).collect::<String>() + "…";
    }
    sentence
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    // Unchanged output keeps its modification time, so nothing rebuilds for nothing.
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}
