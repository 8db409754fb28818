//! After `plugin update` or `update --rollback` rewrote a project entry: whether the project
//! must be trusted again before the next run loads its plugins, said with the command to run.

use std::path::Path;

use crate::cli::exit::CliError;
use crate::cli::out::outln;
use crate::config::LayerKind;
use crate::setup::trust::TrustState;

/// Say `warden trust -C ROOT` is needed next when the entry just written in a `kind` layer
/// left the project's code waiting for trust (a user entry never needs it).
pub(super) fn say_trust_next(root: &Path, kind: LayerKind) -> Result<(), CliError> {
    if kind != LayerKind::Project {
        return Ok(());
    }
    let loaded = crate::config::load(&crate::cli::common::sources(root))
        .map_err(|err| CliError::usage(err.to_string()))?;
    let home = crate::cli::common::home()?;
    let state = crate::setup::trust::check(&loaded, root, &home)
        .map_err(|err| CliError::usage(err.to_string()))?;
    if let TrustState::Waiting(_) = state {
        outln!(
            "  next     `warden trust -C {}`: the project's plugins changed, and they load only once it is trusted again",
            root.display()
        );
    }
    Ok(())
}
