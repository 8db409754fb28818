//! `warden plugin pin NAME [-C DIR]`: after a rebuild, write the sha256 of the plugin's file into
//! the `[[plugins]]` entry of the config file that declared it, keeping the rest of that file
//! (comments, order, formatting) as it was.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, value};

use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::workspace::Workspace;
use crate::config::Sources;
use crate::plugin::sha256_hex;

/// Pin plugin `name`; prints the file changed and the old and new digests.
pub(crate) fn pin(name: &str, dir: Option<&Path>) -> Result<u8, CliError> {
    let workspace = Workspace::find(dir)?.root;
    let sources = Sources::standard(&workspace, &env);
    // The highest layer that declares the plugin is the one in effect.
    let mut found = None;
    // The dev overlay's entries are never pinned: they load whatever the build holds.
    let dev = crate::config::dev_overlay_path(&workspace, &env);
    for (_, file) in sources.layers.iter().rev() {
        if Some(file) == dev.as_ref() {
            continue;
        }
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => return Err(CliError::usage(format!("{}: {err}", file.display()))),
        };
        let doc: DocumentMut = text
            .parse()
            .map_err(|err| CliError::usage(format!("{}: {err}", file.display())))?;
        if entry_index(&doc, name).is_some() {
            found = Some((file.clone(), doc));
            break;
        }
    }
    let Some((file, mut doc)) = found else {
        return Err(CliError::usage(format!(
            "no [[plugins]] entry named {name:?} in {}",
            sources
                .layers
                .iter()
                .map(|(_, p)| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    let index = entry_index(&doc, name).unwrap_or_default();
    let Some(entry) = doc
        .get_mut("plugins")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|list| list.get_mut(index))
    else {
        return Err(CliError::failure(format!(
            "{}: entry vanished",
            file.display()
        )));
    };
    let Some(path) = entry.get("path").and_then(Item::as_str) else {
        return Err(CliError::usage(format!(
            "{}: plugin {name:?} has no `path`",
            file.display()
        )));
    };
    let component = resolve(&file, path);
    let bytes = crate::plugin::builtin::read(&component, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(format!("plugin {name}: {err}")))?;
    let digest = sha256_hex(&bytes);
    let old = entry
        .get("sha256")
        .and_then(Item::as_str)
        .map(str::to_owned);
    entry.insert("sha256", value(digest.as_str()));
    write_atomically(&file, &doc.to_string())?;
    outln!("{}: plugin {name}", file.display());
    outln!(
        "  sha256 {} -> {digest}",
        old.as_deref().unwrap_or("(none)")
    );
    Ok(EXIT_OK)
}

fn entry_index(doc: &DocumentMut, name: &str) -> Option<usize> {
    doc.get("plugins")?
        .as_array_of_tables()?
        .iter()
        .position(|t| t.get("name").and_then(Item::as_str) == Some(name))
}

/// Component paths are relative to the config file that names them.
fn resolve(file: &Path, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_relative() && crate::plugin::builtin::builtin_name(path).is_none() {
        file.parent().unwrap_or(Path::new(".")).join(path)
    } else {
        path.to_owned()
    }
}

/// Write through a temporary file beside `file` and rename, so that a crash never leaves a
/// half-written config.
fn write_atomically(file: &Path, text: &str) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", file.display()));
    let tmp = file.with_extension("toml.pin-tmp");
    std::fs::write(&tmp, text).map_err(fail)?;
    std::fs::rename(&tmp, file).map_err(fail)
}
