//! `warden plugin remove NAME`: delete a plugin's `[[plugins]]` entry from the config file
//! that declares it (the highest of project and user), comments kept. A cached `oci://`
//! component stays in the cache: another entry or workspace may pin the same bytes, and a
//! later `add` of the same digest then needs no network.

use std::path::Path;

use toml_edit::Item;

use super::oci_common::{editable_layers, entry_index, read_doc, workspace, write_doc};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;

/// Remove plugin `name`.
pub(crate) fn remove(name: &str, dir: Option<&Path>) -> Result<u8, CliError> {
    let root = workspace(dir)?;
    let layers = editable_layers(&root);
    for (_, file) in layers.iter().rev() {
        let mut doc = read_doc(file)?;
        let Some(index) = entry_index(&doc, name) else {
            continue;
        };
        let Some(list) = doc
            .get_mut("plugins")
            .and_then(Item::as_array_of_tables_mut)
        else {
            continue;
        };
        let source = list
            .get(index)
            .and_then(|t| t.get("source"))
            .and_then(Item::as_str)
            .map(str::to_owned);
        let cached = list
            .get(index)
            .and_then(|t| t.get("sha256"))
            .and_then(Item::as_str)
            .map(str::to_owned);
        list.remove(index);
        if list.is_empty() {
            doc.remove("plugins");
        }
        write_doc(file, &doc)?;
        outln!("{}: removed plugin {name}", file.display());
        if let (Some(_), Some(sha)) = (source, cached)
            && let Ok(cache) = crate::oci::Cache::from_env(&crate::cli::common::env)
            && cache.holds(&sha)
        {
            outln!(
                "  its component stays cached in {} (delete it by hand once nothing pins it)",
                cache.component(&sha).display()
            );
        }
        return Ok(EXIT_OK);
    }
    Err(CliError::usage(format!(
        "no [[plugins]] entry named {name:?} in {}",
        layers
            .iter()
            .map(|(_, p)| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    )))
}
