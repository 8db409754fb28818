//! `warden plugin clear-cache`: empty the compiled-code cache (`$WARDEN_HOME/cache/compiled`).
//! Plugins compile again on their next start; nothing else is touched.

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store::Home;

/// Remove every compiled-code entry; print what was removed.
pub(crate) fn clear_cache() -> Result<u8, CliError> {
    let home =
        Home::from_env().map_err(|err| CliError::failure(format!("state directory: {err}")))?;
    let dir = home.root().join("cache").join("compiled");
    let removed = crate::plugin::clear_cache(&dir)
        .map_err(|err| CliError::failure(format!("{}: {err}", dir.display())))?;
    outln!(
        "removed {} compiled-code cache entries ({}) from {}",
        removed.entries,
        mib(removed.bytes),
        dir.display()
    );
    Ok(EXIT_OK)
}

/// `12.3 MiB`.
pub(crate) fn mib(bytes: u64) -> String {
    #[allow(clippy::cast_precision_loss)]
    let mib = bytes as f64 / (1024.0 * 1024.0);
    format!("{mib:.1} MiB")
}
