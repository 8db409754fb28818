//! `warden plugin package FILE --name … --version … [--description …] [--authors …]
//! [--source URL] [--licenses SPDX] [--homepage URL] [--revision REV] [-o OUT]`: write the
//! standard metadata sections into a component, in place (atomically) or into OUT. Metadata
//! changes the bytes, so it comes before signing: a signature already in the file is removed,
//! with a warning to sign again.

use std::path::Path;

use crate::cli::common::print_alert;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Alert;
use crate::plugin::metadata::{self, PluginMetadata};
use crate::plugin::signature::strip;
use crate::plugin::{MAX_COMPONENT_BYTES, read_component};

/// Write `meta` into `file` (fields left `None` keep their value).
pub(crate) fn package(
    file: &Path,
    meta: &PluginMetadata,
    out: Option<&Path>,
) -> Result<u8, CliError> {
    let bytes = read_component(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let unsigned = match strip(&bytes) {
        Ok(Some(unsigned)) => {
            print_alert(&Alert::warn(
                "package",
                format!(
                    "{}: its signature was removed (metadata changes the signed bytes); sign it again after packaging: `warden plugin sign FILE --key KEY`",
                    file.display()
                ),
            ));
            unsigned
        }
        Ok(None) => bytes,
        Err(why) => return Err(CliError::usage(format!("{}: {why}", file.display()))),
    };
    let written = metadata::write(&unsigned, meta)
        .map_err(|why| CliError::usage(format!("{}: {why}", file.display())))?;
    let target = out.unwrap_or(file);
    super::sign::write_component(target, &written)?;
    let now = metadata::read(&written).map_err(CliError::failure)?;
    outln!("packaged {}", target.display());
    for (label, value) in now.fields() {
        outln!("  {label:<12} {value}");
    }
    Ok(EXIT_OK)
}
