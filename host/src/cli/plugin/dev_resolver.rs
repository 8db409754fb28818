//! `warden plugin dev RESOLVER.wasm`: a resolver under development becomes this user's
//! `fileref.resolver` in this workspace, through the resolver keys of the dev overlay
//! (`config/dev_overlay.rs`): no config file is written and no trust asked, a project's own
//! resolver gives way to it, and `resolver_sha256` pins it to the build accepted (now, and per
//! rebuild the watcher sees). `--config KEY=VALUE` sets its `init` values over those of the
//! resolver configured now.

use std::path::Path;

use toml::{Table, Value};

use super::dev::{Accept, DevArgs, read_overlay, read_resolver, watch, write_overlay_doc};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::ComponentInfo;

/// Load the resolver build `file` (checked: `info`) for this user in `workspace`.
pub(super) fn dev_resolver(
    args: &DevArgs<'_>,
    overlay: &Path,
    workspace: &Path,
    file: &Path,
    info: &ComponentInfo,
) -> Result<u8, CliError> {
    if args.kind.is_some() || args.fs.is_some() {
        return Err(CliError::usage(format!(
            "{} is a resolver: --kind and --fs are for plugins",
            file.display()
        )));
    }
    let loaded = crate::config::load(&crate::cli::common::sources(workspace))
        .map_err(|err| CliError::usage(err.to_string()))?;
    let mut config: Table = loaded
        .config
        .fileref
        .resolver_config
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.clone())))
        .collect();
    for (key, value) in super::replay::parse_config(args.config)? {
        config.insert(key, Value::String(value));
    }
    let mut table = Table::new();
    table.insert(
        "resolver".into(),
        Value::String(file.to_string_lossy().into_owned()),
    );
    table.insert("resolver_sha256".into(), Value::String(info.sha256.clone()));
    if !config.is_empty() {
        table.insert("resolver_config".into(), Value::Table(config));
    }
    let entries = read_overlay(overlay)?;
    let before = read_resolver(overlay)?;
    write_overlay_doc(overlay, workspace, entries.clone(), Some(table))?;
    let name = crate::config::DEV_RESOLVER;
    crate::config::clear_written(overlay, name)
        .map_err(|err| CliError::failure(format!("{}: {err}", overlay.display())))?;
    // Loaded as the next run will load it; what the configuration refuses puts the overlay
    // back as it was.
    match crate::config::load(&crate::cli::common::sources(workspace)) {
        Ok(loaded) if loaded.config.fileref.resolver.as_deref() == Some(file) => {}
        Ok(_) => {
            write_overlay_doc(overlay, workspace, entries, before)?;
            return Err(CliError::usage(format!(
                "{}: the configuration in force chooses another resolver (managed policy names one, or allows managed plugins only); the dev build is not loaded, and nothing was written",
                file.display()
            )));
        }
        Err(err) => {
            write_overlay_doc(overlay, workspace, entries, before)?;
            return Err(CliError::usage(format!(
                "{err}; the dev build is not loaded, and nothing was written"
            )));
        }
    }
    outln!(
        "dev: resolver loaded for this user in {}",
        workspace.display()
    );
    outln!("  file:   {}", file.display());
    outln!("  sha256: {}", info.sha256);
    outln!(
        "  kept in {} (not in any config file; the project's trust is unchanged)",
        overlay.display()
    );
    outln!(
        "  each `warden run`, `warden chat` or `warden preview` resolves @file references with it while the file has this digest; try it with `warden preview \"@some/file\"`"
    );
    outln!("  stop with: warden plugin dev --stop --name resolver");
    if args.once {
        return Ok(EXIT_OK);
    }
    watch(
        file,
        &info.sha256,
        &Accept {
            overlay,
            workspace,
            name,
            resolver: true,
        },
    )
}
