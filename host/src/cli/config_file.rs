//! The configuration files a command may edit (the user and the project layer; never the
//! managed file or the dev overlay), read and written as TOML documents that keep their
//! comments, each write whole or not at all.

use std::path::{Path, PathBuf};

use toml_edit::DocumentMut;

use crate::cli::common::env;
use crate::cli::exit::CliError;
use crate::config::{LayerKind, Sources};

/// The user and project config files of `workspace`, lowest layer first.
pub(crate) fn editable_layers(workspace: &Path) -> Vec<(LayerKind, PathBuf)> {
    // The dev overlay is `warden plugin dev`'s alone.
    let dev = crate::config::dev_overlay_path(workspace, &env);
    Sources::standard(workspace, &env)
        .layers
        .into_iter()
        .filter(|(kind, path)| *kind != LayerKind::Managed && Some(path) != dev.as_ref())
        .collect()
}

/// The config file of layer `wanted` (user or project) for `workspace`; `hint` names the
/// option that picks the project instead, for the error when there is no user directory.
pub(crate) fn layer_file(
    workspace: &Path,
    wanted: LayerKind,
    hint: &str,
) -> Result<PathBuf, CliError> {
    editable_layers(workspace)
        .into_iter()
        .find(|(kind, _)| *kind == wanted)
        .map(|(_, file)| file)
        .ok_or_else(|| {
            CliError::usage(format!(
                "no user config directory: set XDG_CONFIG_HOME or HOME (or use {hint})"
            ))
        })
}

/// The document in `file`; an empty one when it does not exist.
pub(crate) fn read_doc(file: &Path) -> Result<DocumentMut, CliError> {
    let text = match std::fs::read_to_string(file) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(err) => return Err(CliError::usage(format!("{}: {err}", file.display()))),
    };
    text.parse()
        .map_err(|err| CliError::usage(format!("{}: {err}", file.display())))
}

/// Write `doc` to `file` through a temporary file beside it and a rename (creating its
/// directory), so that a crash never leaves a half-written config.
pub(crate) fn write_doc(file: &Path, doc: &DocumentMut) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let tmp = file.with_extension("toml.oci-tmp");
    std::fs::write(&tmp, doc.to_string()).map_err(fail)?;
    std::fs::rename(&tmp, file).map_err(fail)
}

/// Write `text` to `file` only if the configuration of `root` loads with it: it is written to
/// a file beside `file`, loaded in its place, then renamed over it (or removed).
pub(crate) fn write_checked(root: &Path, file: &Path, text: &str) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", file.display()));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).map_err(fail)?;
    }
    let candidate = file.with_extension("toml.checked");
    std::fs::write(&candidate, text).map_err(fail)?;
    let mut trial = crate::cli::common::sources(root);
    for (_, path) in &mut trial.layers {
        if path == file {
            path.clone_from(&candidate);
        }
    }
    if let Err(err) = crate::config::load(&trial) {
        let _ = std::fs::remove_file(&candidate);
        let why = err.to_string().replace(
            &candidate.display().to_string(),
            &file.display().to_string(),
        );
        return Err(CliError::usage(format!(
            "{why}; nothing was written to {}",
            file.display()
        )));
    }
    std::fs::rename(&candidate, file).map_err(fail)
}
