//! `warden plugin update --rollback NAME`: put back the pin the last `plugin update` of NAME
//! replaced (recorded in `previous_pin`), under the same managed policy as `add` and `update`;
//! the pin it replaces becomes the one a second rollback restores.

use std::path::Path;

use toml_edit::{Item, value};

use super::admit::Admission;
use super::oci_common::{
    Keep, editable_layers, entry_index, pull, read_doc, registry, settings, workspace, write_doc,
};
use super::previous_pin::{PreviousPin, PreviousPins};
use super::update::{component_version, project_untrusted};
use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{LayerKind, OciReference};
use crate::oci::Cache;

/// Restore the previous pin of plugin `name`.
pub(crate) fn rollback(name: &str, dir: Option<&Path>, plain_http: bool) -> Result<u8, CliError> {
    let root = workspace(dir)?;
    let settings = settings(&root)?;
    let admission = Admission::new(&settings.loaded.config.policy)?;
    let mut previous = PreviousPins::load()?;
    let cache = Cache::from_env(&env).map_err(super::oci_common::oci_error)?;
    // The highest layer that declares the plugin is the one in effect.
    for (kind, file) in editable_layers(&root).into_iter().rev() {
        let mut doc = read_doc(&file)?;
        let Some(index) = entry_index(&doc, name) else {
            continue;
        };
        let at = format!("{}: plugin {name}", file.display());
        let Some(pin) = previous.get(&file, name).cloned() else {
            return Err(CliError::usage(format!(
                "{at}: no previous pin recorded: `--rollback` restores the pin a `warden plugin update` on this machine replaced"
            )));
        };
        if kind == LayerKind::Project
            && let Some(why) = project_untrusted(&root, &settings.loaded)?
        {
            return Err(CliError::usage(format!("{at}: nothing was changed: {why}")));
        }
        admission.source(
            &at,
            &pin.source,
            "its registry was not contacted and nothing was changed",
        )?;
        let bytes = match cache.read(&pin.sha256) {
            Some(bytes) => {
                let file = cache.component(&pin.sha256);
                admission.signed(&at, &file, &bytes, "nothing was changed")?;
                bytes
            }
            None => {
                let reference = OciReference::parse(&pin.source)
                    .map_err(|why| CliError::usage(format!("{at}: {why}")))?;
                let check = |_: &OciReference, bytes: &[u8]| {
                    let file = cache.component(&crate::plugin::sha256_hex(bytes));
                    admission.signed(&at, &file, bytes, "nothing was cached; nothing was changed")
                };
                let registry = registry(&reference, plain_http, &settings)?;
                let pulled = pull(
                    &registry,
                    &reference,
                    settings.max,
                    Keep::IfAdmitted(&check),
                )?;
                if pulled.sha256 != pin.sha256 {
                    return Err(CliError::usage(format!(
                        "{at}: {} now serves a component of sha256 {}, not the {} it was pinned to; nothing was changed",
                        pin.source, pulled.sha256, pin.sha256
                    )));
                }
                pulled.bytes
            }
        };
        let Some(entry) = doc
            .get_mut("plugins")
            .and_then(Item::as_array_of_tables_mut)
            .and_then(|list| list.get_mut(index))
        else {
            return Err(CliError::failure(format!("{at}: entry vanished")));
        };
        let text = |key: &str| {
            entry
                .get(key)
                .and_then(Item::as_str)
                .unwrap_or_default()
                .to_owned()
        };
        let current = PreviousPin {
            name: name.to_owned(),
            source: text("source"),
            sha256: text("sha256"),
            kind: text("kind"),
        };
        let current_bytes = cache.read(&current.sha256);
        let version = |bytes: Option<&[u8]>| {
            bytes
                .and_then(component_version)
                .unwrap_or_else(|| "?".to_owned())
        };
        let signer =
            |bytes: Option<&[u8]>| bytes.map_or_else(|| "?".to_owned(), |b| admission.signer(b));
        outln!("{at}: rolled back");
        outln!(
            "  version  {} -> {}",
            version(current_bytes.as_deref()),
            version(Some(&bytes))
        );
        outln!(
            "  signer   {} -> {}",
            signer(current_bytes.as_deref()),
            signer(Some(&bytes))
        );
        outln!("  source   {} -> {}", current.source, pin.source);
        entry.insert("source", value(pin.source.as_str()));
        entry.insert("sha256", value(pin.sha256.as_str()));
        if !pin.kind.is_empty() && pin.kind != current.kind {
            entry.insert("kind", value(pin.kind.as_str()));
        }
        write_doc(&file, &doc)?;
        previous.record(&file, current);
        previous.save()?;
        super::trust_next::say_trust_next(&root, kind)?;
        return Ok(EXIT_OK);
    }
    Err(CliError::usage(format!(
        "no [[plugins]] entry named {name:?} in the user or project config"
    )))
}
