//! `warden plugin fetch [NAME]`: put the pinned component of each `oci://` plugin (or of NAME)
//! of every layer the workspace loads (user, dev overlay, project, managed) into the plugin
//! cache, by its digest, changing no config file. The bytes must hash to the
//! entry's `sha256` and pass managed policy before they are kept; an untrusted project's
//! entries are skipped before their registry is contacted.

use std::path::Path;

use toml_edit::Item;

use super::admit::Admission;
use super::oci_common::{Keep, loaded_layers, pull, read_doc, registry, settings, workspace};
use super::update::{finish, project_untrusted};
use crate::cli::common::env;
use crate::cli::exit::CliError;
use crate::cli::out::outln;
use crate::config::{LayerKind, OCI_SCHEME, OciReference};
use crate::oci::Cache;

/// Fetch `name` (every plugin with an `oci://` source when `None`).
pub(crate) fn fetch(
    name: Option<&str>,
    dir: Option<&Path>,
    plain_http: bool,
) -> Result<u8, CliError> {
    let root = workspace(dir)?;
    let settings = settings(&root)?;
    let admission = Admission::new(&settings.loaded.config.policy)?;
    let untrusted = project_untrusted(&root, &settings.loaded)?;
    let cache = Cache::from_env(&env).map_err(super::oci_common::oci_error)?;
    let mut seen = 0;
    let mut refused = Vec::new();
    for (kind, file) in loaded_layers(&root) {
        let doc = read_doc(&file)?;
        let Some(list) = doc.get("plugins").and_then(Item::as_array_of_tables) else {
            continue;
        };
        for entry in list.iter() {
            let text = |key: &str| entry.get(key).and_then(Item::as_str).unwrap_or_default();
            let (entry_name, source, pin) = (text("name"), text("source"), text("sha256"));
            if !source.starts_with(OCI_SCHEME) || name.is_some_and(|n| n != entry_name) {
                continue;
            }
            seen += 1;
            let at = format!("{}: plugin {entry_name}", file.display());
            if kind == LayerKind::Project
                && let Some(why) = &untrusted
            {
                refused.push(format!(
                    "{at}: skipped, its registry was not contacted: {why}"
                ));
                continue;
            }
            let pin = pin.to_ascii_lowercase();
            if cache.read(&pin).is_some() {
                outln!("{at}: in the cache ({})", cache.component(&pin).display());
                continue;
            }
            let reference = OciReference::parse(source)
                .map_err(|why| CliError::usage(format!("{at}: {why}")))?;
            if let Err(err) = admission.source(
                &at,
                source,
                "its registry was not contacted and nothing was cached",
            ) {
                refused.push(err.message);
                continue;
            }
            let check = |_: &OciReference, bytes: &[u8]| {
                let sha = crate::plugin::sha256_hex(bytes);
                if sha != pin {
                    return Err(CliError::usage(format!(
                        "{at}: {source} serves a component of sha256 {sha}, not the {pin} it is pinned to; nothing was cached"
                    )));
                }
                admission.signed(&at, &cache.component(&sha), bytes, "nothing was cached")
            };
            let registry = registry(&reference, plain_http, &settings)?;
            match pull(
                &registry,
                &reference,
                settings.max,
                Keep::IfAdmitted(&check),
            ) {
                Ok(pulled) => outln!("{at}: fetched into {}", pulled.file.display()),
                Err(err) => refused.push(err.message),
            }
        }
    }
    finish(seen, name, &refused)
}
