//! `warden plugin update [NAME] [--accept]`: re-resolve the tag each `oci://` plugin was added
//! from, pull the new version, show what changes (version, world, tools, imported
//! capabilities) and write its new digest and sha256 into the same config file, comments
//! kept. A version whose world changes or that imports a capability the old one did not is
//! refused unless `--accept`. An untrusted project's entries are skipped before anything is
//! contacted: the registry a cloned repository names is reached only once it is trusted.

use std::path::Path;

use toml_edit::{DocumentMut, Item, value};

use super::oci_common::{
    Offer, Pulled, Settings, editable_layers, engine, offer, pull, read_doc, registry, settings,
    workspace, write_doc,
};
use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{LayerKind, Loaded, OCI_SCHEME, OciReference};
use crate::oci::Cache;
use crate::setup::trust::TrustState;

/// What came of one plugin.
enum Outcome {
    /// Nothing new under the tag.
    UpToDate,
    /// The entry was rewritten.
    Updated,
    /// Not taken: why.
    Refused(String),
}

/// Update `name` (every plugin with an `oci://` source when `None`).
pub(crate) fn update(
    name: Option<&str>,
    accept: bool,
    dir: Option<&Path>,
    plain_http: bool,
) -> Result<u8, CliError> {
    let root = workspace(dir)?;
    let settings = settings(&root)?;
    let untrusted = project_untrusted(&root, &settings.loaded)?;
    let engine = engine(settings.max)?;
    let mut seen = 0;
    let mut refused = Vec::new();
    for (kind, file) in editable_layers(&root) {
        let mut doc = read_doc(&file)?;
        let mut changed = false;
        for index in oci_entries(&doc, name) {
            seen += 1;
            if kind == LayerKind::Project
                && let Some(why) = &untrusted
            {
                let entry = entry_name(&doc, index);
                refused.push(format!(
                    "{}: plugin {entry}: skipped, its registry was not contacted: {why}",
                    file.display()
                ));
                continue;
            }
            match update_entry(
                &mut doc, index, &file, &engine, &settings, accept, plain_http,
            )? {
                Outcome::UpToDate => {}
                Outcome::Updated => changed = true,
                Outcome::Refused(why) => refused.push(why),
            }
        }
        if changed {
            write_doc(&file, &doc)?;
        }
    }
    if seen == 0 {
        return match name {
            Some(name) => Err(CliError::usage(format!(
                "no [[plugins]] entry named {name:?} with an `{OCI_SCHEME}` source in the user or project config"
            ))),
            None => {
                outln!("no plugin has an {OCI_SCHEME} source");
                Ok(EXIT_OK)
            }
        };
    }
    if refused.is_empty() {
        Ok(EXIT_OK)
    } else {
        Err(CliError::usage(refused.join("\n")))
    }
}

/// Why the project layer's entries may not be acted on (it is not trusted), if so.
fn project_untrusted(root: &Path, loaded: &Loaded) -> Result<Option<String>, CliError> {
    let home = crate::cli::common::home()?;
    let state = crate::setup::trust::check(loaded, root, &home)
        .map_err(|err| CliError::usage(err.to_string()))?;
    Ok(match state {
        TrustState::NotNeeded | TrustState::Trusted(_) | TrustState::TrustedByPolicy { .. } => None,
        TrustState::Forbidden { file } => Some(format!(
            "managed policy forbids trusting projects (`policy.allow_trust = false` in {})",
            file.display()
        )),
        TrustState::Waiting(_) => Some(format!(
            "the project is not trusted; review its config and run `warden trust -C {}`",
            root.display()
        )),
    })
}

/// The `name` of entry `index` (for messages).
fn entry_name(doc: &DocumentMut, index: usize) -> String {
    doc.get("plugins")
        .and_then(Item::as_array_of_tables)
        .and_then(|list| list.get(index))
        .and_then(|t| t.get("name"))
        .and_then(Item::as_str)
        .unwrap_or("?")
        .to_owned()
}

/// Indexes of the entries with an `oci://` source (named `name`, when given).
fn oci_entries(doc: &DocumentMut, name: Option<&str>) -> Vec<usize> {
    let Some(list) = doc.get("plugins").and_then(Item::as_array_of_tables) else {
        return Vec::new();
    };
    list.iter()
        .enumerate()
        .filter(|(_, t)| {
            t.get("source")
                .and_then(Item::as_str)
                .is_some_and(|s| s.starts_with(OCI_SCHEME))
        })
        .filter(|(_, t)| name.is_none_or(|n| t.get("name").and_then(Item::as_str) == Some(n)))
        .map(|(i, _)| i)
        .collect()
}

fn update_entry(
    doc: &mut DocumentMut,
    index: usize,
    file: &Path,
    engine: &crate::plugin::PluginEngine,
    settings: &Settings,
    accept: bool,
    plain_http: bool,
) -> Result<Outcome, CliError> {
    let max = settings.max;
    let Some(entry) = doc
        .get_mut("plugins")
        .and_then(Item::as_array_of_tables_mut)
        .and_then(|list| list.get_mut(index))
    else {
        return Err(CliError::failure(format!(
            "{}: entry vanished",
            file.display()
        )));
    };
    let text = |key: &str| {
        entry
            .get(key)
            .and_then(Item::as_str)
            .unwrap_or_default()
            .to_owned()
    };
    let (name, source, old_sha) = (text("name"), text("source"), text("sha256"));
    let at = format!("{}: plugin {name}", file.display());
    let old =
        OciReference::parse(&source).map_err(|why| CliError::usage(format!("{at}: {why}")))?;
    let registry = registry(&old, plain_http, settings)?;
    let cache = Cache::from_env(&env).map_err(super::oci_common::oci_error)?;
    let Some(tag) = old.tag.clone() else {
        if cache.read(&old_sha).is_none() {
            pull(&registry, &old, max)?;
            outln!("{at}: fetched {source} into the cache again");
        }
        outln!("{at}: {source} names no tag to follow; add it again by tag to update it");
        return Ok(Outcome::UpToDate);
    };
    let new = pull(&registry, &old.without_digest(), max)?;
    if old.digest.as_deref() == Some(new.resolved.manifest_digest.as_str()) && old_sha == new.sha256
    {
        outln!("{at}: up to date ({}:{tag})", old.repository);
        return Ok(Outcome::UpToDate);
    }
    let new_offer = offer(
        engine,
        &format!("{}", old.with_digest(&new.resolved.manifest_digest)),
        &new.bytes,
        &new.file,
    )?;
    let old_pulled = match cache.read(&old_sha) {
        Some(bytes) => Pulled {
            file: cache.component(&old_sha),
            resolved: new.resolved.clone(),
            sha256: old_sha.clone(),
            bytes,
        },
        None => pull(&registry, &old.without_tag(), max)?,
    };
    let old_offer = offer(engine, &source, &old_pulled.bytes, &old_pulled.file)?;
    let new_source = old.with_digest(&new.resolved.manifest_digest).to_string();
    outln!("{at}: {}:{tag} has a new version", old.repository);
    let version = new
        .resolved
        .manifest
        .version()
        .map_or_else(String::new, |v| format!("{v} "));
    outln!(
        "  version  {} -> {version}({})",
        old.digest.as_deref().unwrap_or("?"),
        new.resolved.manifest_digest
    );
    let widened = describe_changes(&old_offer, &new_offer);
    if !widened.is_empty() && !accept {
        return Ok(Outcome::Refused(format!(
            "{at}: the new version asks for more ({}); nothing was changed: run `warden plugin update {name} --accept` to take it",
            widened.join("; ")
        )));
    }
    entry.insert("source", value(new_source.as_str()));
    entry.insert("sha256", value(new.sha256.as_str()));
    if old_offer.world != new_offer.world
        && let Ok(kind) = new_offer.kind()
    {
        entry.insert("kind", value(kind.name()));
    }
    outln!("  source   {new_source}");
    outln!("  sha256   {}", new.sha256);
    Ok(Outcome::Updated)
}

/// Print what differs between `old` and `new`; returns how the new one widens what it asks
/// for (another world, capabilities imported that the old one did not).
fn describe_changes(old: &Offer, new: &Offer) -> Vec<String> {
    let mut widened = Vec::new();
    if old.world == new.world {
        outln!("  world    {} ({})", new.world, new.target);
    } else {
        outln!("  world    {} -> {} ({})", old.world, new.world, new.target);
        widened.push(format!("world {} -> {}", old.world, new.world));
    }
    if old.tools != new.tools {
        outln!(
            "  tools    [{}] -> [{}]",
            old.tools.join(", "),
            new.tools.join(", ")
        );
    } else if !new.tools.is_empty() {
        outln!("  tools    {}", new.tools.join(", "));
    }
    // Interfaces compare without their version: a rebuild against a newer WASI patch release
    // asks for nothing new.
    let unversioned = |name: &String| name.split('@').next().unwrap_or(name).to_owned();
    let old_names: Vec<String> = old.imports.iter().map(unversioned).collect();
    let new_names: Vec<String> = new.imports.iter().map(unversioned).collect();
    let added: Vec<&String> = new
        .imports
        .iter()
        .filter(|i| !old_names.contains(&unversioned(i)))
        .collect();
    let dropped: Vec<&String> = old
        .imports
        .iter()
        .filter(|i| !new_names.contains(&unversioned(i)))
        .collect();
    for import in &added {
        outln!("  imports  + {import}");
    }
    for import in &dropped {
        outln!("  imports  - {import}");
    }
    if !added.is_empty() {
        let names: Vec<&str> = added.iter().map(|s| s.as_str()).collect();
        widened.push(format!("new imports {}", names.join(", ")));
    }
    widened
}
