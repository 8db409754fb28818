//! `warden plugin pin NAME [-C DIR]`: after a rebuild, write the sha256 of the plugin's file into
//! the `[[plugins]]` entry of the config file that declared it (for a resolver, NAME being
//! `resolver` or its file's name: `fileref.resolver_sha256`), keeping the rest of that file
//! (comments, order, formatting) as it was.

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item, value};

use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::Sources;
use crate::front::workspace::Workspace;
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
        if let Some((file, doc)) = resolver_layer(&sources, name)? {
            return pin_resolver(&workspace, name, &file, doc);
        }
        return Err(CliError::usage(format!(
            "no [[plugins]] entry named {name:?} (nor a `fileref.resolver` called so) in {}",
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
    // The loader would refuse a file from outside `policy.allowed_sources` or without a
    // trusted signature: its digest is not written either.
    let loaded = crate::cli::common::load_config(&workspace)?;
    let admission = super::admit::Admission::new(&loaded.config.policy)?;
    let what = format!("plugin {name}");
    let source = crate::setup::plugin_policy::path_source(&component);
    admission.source(&what, &source, "nothing was written")?;
    admission.signed(&what, &component, &bytes, "nothing was written")?;
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

/// The highest layer whose `fileref.resolver` is the one `name` means: `resolver`, or the
/// resolver file's name without `.wasm` (`-` and `_` alike, as cargo names the file).
fn resolver_layer(
    sources: &Sources,
    name: &str,
) -> Result<Option<(PathBuf, DocumentMut)>, CliError> {
    for (_, file) in sources.layers.iter().rev() {
        let text = match std::fs::read_to_string(file) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
            Err(err) => return Err(CliError::usage(format!("{}: {err}", file.display()))),
        };
        let doc: DocumentMut = text
            .parse()
            .map_err(|err| CliError::usage(format!("{}: {err}", file.display())))?;
        let Some(path) = doc
            .get("fileref")
            .and_then(|f| f.get("resolver"))
            .and_then(Item::as_str)
        else {
            continue;
        };
        let stem = Path::new(path)
            .file_stem()
            .map(|s| s.to_string_lossy().replace('-', "_"))
            .unwrap_or_default();
        if name == "resolver" || stem == name.replace('-', "_") {
            return Ok(Some((file.clone(), doc)));
        }
    }
    Ok(None)
}

/// Pin the resolver `file` declares: its digest into `fileref.resolver_sha256`.
fn pin_resolver(
    workspace: &Path,
    name: &str,
    file: &Path,
    mut doc: DocumentMut,
) -> Result<u8, CliError> {
    let Some(fileref) = doc.get_mut("fileref").and_then(Item::as_table_like_mut) else {
        return Err(CliError::failure(format!(
            "{}: `fileref` vanished",
            file.display()
        )));
    };
    let path = fileref
        .get("resolver")
        .and_then(Item::as_str)
        .unwrap_or_default()
        .to_owned();
    let component = resolve(file, &path);
    let bytes = crate::plugin::builtin::read(&component, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(format!("resolver {name}: {err}")))?;
    let loaded = crate::cli::common::load_config(workspace)?;
    let admission = super::admit::Admission::new(&loaded.config.policy)?;
    let source = crate::setup::plugin_policy::path_source(&component);
    admission.source("resolver", &source, "nothing was written")?;
    admission.signed("resolver", &component, &bytes, "nothing was written")?;
    let digest = sha256_hex(&bytes);
    let old = fileref
        .get("resolver_sha256")
        .and_then(Item::as_str)
        .map(str::to_owned);
    fileref.insert("resolver_sha256", value(digest.as_str()));
    write_atomically(file, &doc.to_string())?;
    outln!("{}: fileref.resolver", file.display());
    outln!(
        "  resolver_sha256 {} -> {digest}",
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
