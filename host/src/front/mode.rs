//! A permission mode asked for by the person (`--mode`, the chat's `/mode`, an editor's
//! `session/set_mode`), held to managed policy: refused above `policy.max_mode` or against a
//! lock on `tools.mode`, naming the managed file and key, never narrowed silently.

use crate::config::{LayerKind, Loaded};
use crate::domain::Mode;
use crate::worker::Worker;

/// Whether the person may switch to `mode` (asked for by `what`: `--mode`, `/mode`): `Err`
/// names the managed file and key that refuse it.
pub fn allowed(loaded: &Loaded, mode: Mode, what: &str) -> Result<(), String> {
    let managed = loaded.managed.as_ref().map_or_else(
        || LayerKind::Managed.as_str().to_owned(),
        |m| m.path.display().to_string(),
    );
    if let Some(lock) = loaded.locked_by("tools.mode")
        && mode != loaded.config.tools.mode
    {
        return Err(format!(
            "{what} {mode}: `tools.mode` is locked by managed policy ({}:{}, key `policy.locked`) at `{}`",
            lock.file.display(),
            lock.line,
            loaded.config.tools.mode
        ));
    }
    match loaded.config.policy.max_mode {
        Some(max) if mode > max => Err(format!(
            "{what} {mode}: above what managed policy allows ({managed}: key `policy.max_mode` = \"{max}\"); choose `{max}` or lower"
        )),
        _ => Ok(()),
    }
}

/// Switch `worker` (and what `loaded` says is in force) to `mode` for as long as it runs,
/// unless managed policy refuses it: `Err` says why, naming the file and key.
pub fn switch(
    loaded: &mut Loaded,
    worker: &mut Worker,
    mode: Mode,
    what: &str,
) -> Result<(), String> {
    allowed(loaded, mode, what)?;
    worker.set_mode(mode).map_err(|max| {
        format!("{what} {mode}: above what managed policy allows (`policy.max_mode` = \"{max}\")")
    })?;
    loaded.config.tools.mode = mode;
    Ok(())
}

/// Every mode with what it lets through, in order (for a picker or a client's mode list).
pub fn described() -> [(Mode, &'static str); 4] {
    [
        (Mode::ReadOnly, "writes and commands are denied"),
        (Mode::Ask, "writes and commands ask first"),
        (Mode::AutoEdit, "writes run, commands ask first"),
        (Mode::FullAuto, "writes and commands run without asking"),
    ]
}
