//! `--yes` under managed policy: `policy.allow_unattended = false` refuses it before anything
//! runs, since it approves every call that would ask with nobody there.

use crate::cli::exit::CliError;
use crate::config::{LayerKind, Loaded};

/// Refuse `--yes` (`yes`) where managed policy forbids unattended approval.
pub(crate) fn check_unattended(yes: bool, loaded: &Loaded) -> Result<(), CliError> {
    if !yes || loaded.config.policy.allow_unattended {
        return Ok(());
    }
    let file = loaded.managed.as_ref().map_or_else(
        || LayerKind::Managed.as_str().to_owned(),
        |m| m.path.display().to_string(),
    );
    Err(CliError::usage(format!(
        "--yes refused: managed policy forbids approving calls with nobody asked (`policy.allow_unattended = false` in {file}); nothing ran. Run without --yes (calls that would ask are denied) or use `warden chat`"
    )))
}
