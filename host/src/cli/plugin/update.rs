//! `warden plugin update [NAME] [--accept] [--allow-downgrade]`: re-resolve the tag each
//! `oci://` plugin was added from, pull the new version, show what changes (version, world,
//! tools, imported capabilities) and write its new digest and sha256 into the same config file,
//! comments kept. A version whose world changes or that imports a capability the old one did
//! not is refused unless `--accept`; a lower version (the tag moved back) unless
//! `--allow-downgrade`. Each entry is judged on its own: a refused or failed one is said with
//! its name, the others are still updated, and the exit is non-zero when any was refused. An
//! untrusted project's entries are skipped before anything is
//! contacted: the registry a cloned repository names is reached only once it is trusted.

use std::path::Path;

use toml_edit::{DocumentMut, Item, value};

use super::admit::Admission;
use super::oci_common::{
    Keep, Offer, Pulled, Settings, block_on, editable_layers, engine, offer, pull, read_doc,
    registry, settings, workspace, write_doc,
};
use super::previous_pin::{PreviousPin, PreviousPins};
use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK, EXIT_USAGE};
use crate::cli::out::outln;
use crate::config::{LayerKind, Loaded, OCI_SCHEME, OciReference, ProjectCode};
use crate::oci::{Cache, compare_versions};
use crate::setup::trust::{Pending, TrustState};

/// What came of one plugin.
enum Outcome {
    /// Nothing new under the tag.
    UpToDate,
    /// The entry was rewritten; the pin it replaced.
    Updated(PreviousPin),
    /// Not taken: why.
    Refused(String),
}

/// What `plugin update` was allowed.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct UpdateFlags {
    /// `--accept`: a version that asks for more.
    pub accept: bool,
    /// `--allow-downgrade`: a lower version.
    pub allow_downgrade: bool,
    /// `--plain-http`.
    pub plain_http: bool,
}

/// Update `name` (every plugin with an `oci://` source when `None`).
pub(crate) fn update(
    name: Option<&str>,
    flags: UpdateFlags,
    dir: Option<&Path>,
) -> Result<u8, CliError> {
    let root = workspace(dir)?;
    let settings = settings(&root)?;
    let untrusted = project_untrusted(&root, &settings.loaded)?;
    let engine = engine(settings.max)?;
    let admission = Admission::new(&settings.loaded.config.policy)?;
    let mut previous = PreviousPins::load()?;
    let mut seen = 0;
    let mut refused = Vec::new();
    // The exit status of an entry that failed (not refused), if any.
    let mut failed = None;
    for (kind, file) in editable_layers(&root) {
        let mut doc = read_doc(&file)?;
        let mut replaced = Vec::new();
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
            let context = Context {
                file: &file,
                engine: &engine,
                settings: &settings,
                admission: &admission,
            };
            // A refusal or failure of one entry is said with its name, and the others go on.
            match update_entry(&mut doc, index, &context, flags) {
                Ok(Outcome::UpToDate) => {}
                Ok(Outcome::Updated(pin)) => replaced.push(pin),
                Ok(Outcome::Refused(why)) => refused.push(why),
                Err(err) => {
                    let at = format!("{}: plugin {}", file.display(), entry_name(&doc, index));
                    if err.code != EXIT_USAGE {
                        failed = Some(err.code);
                    }
                    refused.push(if err.message.starts_with(&at) {
                        err.message
                    } else {
                        format!("{at}: {}", err.message)
                    });
                }
            }
        }
        if !replaced.is_empty() {
            write_doc(&file, &doc)?;
            for pin in replaced {
                previous.record(&file, pin);
            }
            previous.save()?;
            super::trust_next::say_trust_next(&root, kind)?;
        }
    }
    finish(seen, name, &refused).map_err(|mut err| {
        if let Some(code) = failed {
            err.code = code;
        }
        err
    })
}

/// How a command over the `oci://` entries (`update`, `fetch`) ends: a usage error when the
/// entry `name` names has no such source, else the refusals met, if any.
pub(super) fn finish(seen: usize, name: Option<&str>, refused: &[String]) -> Result<u8, CliError> {
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
pub(super) fn project_untrusted(root: &Path, loaded: &Loaded) -> Result<Option<String>, CliError> {
    let home = crate::cli::common::home()?;
    let state = crate::setup::trust::check(loaded, root, &home)
        .map_err(|err| CliError::usage(err.to_string()))?;
    Ok(match state {
        TrustState::NotNeeded | TrustState::Trusted(_) | TrustState::TrustedByPolicy { .. } => None,
        TrustState::Forbidden { file } => Some(format!(
            "managed policy forbids trusting projects (`policy.allow_trust = false` in {})",
            file.display()
        )),
        TrustState::Waiting(pending) if only_cache_gone(&pending, loaded) => None,
        TrustState::Waiting(_) => Some(format!(
            "the project is not trusted; review its config and run `warden trust -C {}`",
            root.display()
        )),
    })
}

/// True when what waits for trust differs from what was trusted only in components whose
/// cache file is gone, each pinned (`sha256`) to the bytes that were trusted: fetching them
/// again by that pin is what the person trusted.
fn only_cache_gone(pending: &Pending, loaded: &Loaded) -> bool {
    let (Some(previous), Some(code)) = (&pending.previous, &loaded.project_code) else {
        return false;
    };
    let mut repaired = pending.declared.clone();
    for declared in &mut repaired {
        let Some(entry) = code
            .entries
            .iter()
            .find(|e| declared.id == format!("plugin:{}", e.name))
        else {
            continue;
        };
        let unreadable = declared.value["component_sha256"]
            .as_str()
            .is_some_and(|s| s.starts_with("unreadable"));
        if unreadable
            && entry.source.is_some()
            && !entry.path.exists()
            && let Some(pin) = &entry.sha256
        {
            declared.value["component_sha256"] =
                serde_json::Value::String(pin.to_ascii_lowercase());
        }
    }
    ProjectCode::digest(&repaired) == ProjectCode::digest(previous)
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

/// What updating one entry works with.
struct Context<'a> {
    file: &'a Path,
    engine: &'a crate::plugin::PluginEngine,
    settings: &'a Settings,
    admission: &'a Admission,
}

fn update_entry(
    doc: &mut DocumentMut,
    index: usize,
    context: &Context<'_>,
    flags: UpdateFlags,
) -> Result<Outcome, CliError> {
    let Context {
        file,
        engine,
        settings,
        admission,
    } = *context;
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
    admission.source(
        &at,
        &source,
        "its registry was not contacted and nothing was changed",
    )?;
    let check = |pinned: &OciReference, bytes: &[u8]| {
        admission.source(
            &at,
            &pinned.to_string(),
            "nothing was cached; nothing was changed",
        )?;
        let file = Cache::from_env(&env)
            .map(|c| c.component(&crate::plugin::sha256_hex(bytes)))
            .unwrap_or_default();
        admission.signed(&at, &file, bytes, "nothing was cached; nothing was changed")
    };
    let registry = registry(&old, flags.plain_http, settings)?;
    let cache = Cache::from_env(&env).map_err(super::oci_common::oci_error)?;
    let Some(tag) = old.tag.clone() else {
        if cache.read(&old_sha).is_none() {
            pull(&registry, &old, max, Keep::IfAdmitted(&check))?;
            outln!("{at}: fetched {source} into the cache again");
        }
        outln!("{at}: {source} names no tag to follow; add it again by tag to update it");
        return Ok(Outcome::UpToDate);
    };
    let new = pull(
        &registry,
        &old.without_digest(),
        max,
        Keep::IfAdmitted(&check),
    )?;
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
    let (old_pulled, old_manifest) = match cache.read(&old_sha) {
        Some(bytes) => (
            Pulled {
                file: cache.component(&old_sha),
                resolved: new.resolved.clone(),
                sha256: old_sha.clone(),
                bytes,
            },
            None,
        ),
        None => {
            let pulled = pull(&registry, &old.without_tag(), max, Keep::ReadOnly)?;
            let manifest = pulled.resolved.manifest.clone();
            (pulled, Some(manifest))
        }
    };
    let old_offer = offer(engine, &source, &old_pulled.bytes, &old_pulled.file)?;
    let new_source = old.with_digest(&new.resolved.manifest_digest).to_string();
    outln!("{at}: {}:{tag} has a new version", old.repository);
    let new_version = component_version(&new.bytes)
        .or_else(|| new.resolved.manifest.version().map(str::to_owned));
    let old_version = match component_version(&old_pulled.bytes) {
        Some(version) => Some(version),
        None if new_version.is_some() => match old_manifest {
            Some(manifest) => manifest.version().map(str::to_owned),
            // The old manifest is asked for only to read its version: failing that, the
            // version is unknown, not the update.
            None => block_on(registry.resolve(&old.without_tag()))?
                .ok()
                .and_then(|r| r.manifest.version().map(str::to_owned)),
        },
        None => None,
    };
    let downgrade = match (&old_version, &new_version) {
        (Some(old_v), Some(new_v)) => {
            compare_versions(new_v, old_v) == Some(std::cmp::Ordering::Less)
        }
        _ => false,
    };
    outln!(
        "  version  {} -> {}{}",
        old_version.as_deref().unwrap_or("?"),
        new_version.as_deref().unwrap_or("?"),
        if downgrade { " (downgrade)" } else { "" }
    );
    outln!(
        "  digest   {} -> {}",
        old.digest.as_deref().unwrap_or("?"),
        new.resolved.manifest_digest
    );
    outln!(
        "  signer   {} -> {}",
        admission.signer(&old_pulled.bytes),
        admission.signer(&new.bytes)
    );
    let widened = describe_changes(&old_offer, &new_offer);
    outln!("  grants   {} (kept)", grants(entry));
    let mut refusals = Vec::new();
    if downgrade && !flags.allow_downgrade {
        refusals.push(format!(
            "the new version {} is lower than {} (a downgrade): run `warden plugin update {name} --allow-downgrade` to take it",
            new_version.as_deref().unwrap_or("?"),
            old_version.as_deref().unwrap_or("?")
        ));
    }
    if !widened.is_empty() && !flags.accept {
        refusals.push(format!(
            "the new version asks for more ({}): run `warden plugin update {name} --accept` to take it",
            widened.join("; ")
        ));
    }
    if !refusals.is_empty() {
        return Ok(Outcome::Refused(format!(
            "{at}: nothing was changed: {}",
            refusals.join("; ")
        )));
    }
    let replaced = PreviousPin {
        name: name.clone(),
        source: source.clone(),
        sha256: old_sha.clone(),
        kind: text("kind"),
    };
    entry.insert("source", value(new_source.as_str()));
    entry.insert("sha256", value(new.sha256.as_str()));
    if old_offer.world != new_offer.world
        && let Ok(kind) = new_offer.kind()
    {
        entry.insert("kind", value(kind.name()));
    }
    outln!("  source   {new_source}");
    outln!("  sha256   {}", new.sha256);
    outln!("  `warden plugin update --rollback {name}` restores {source}");
    Ok(Outcome::Updated(replaced))
}

/// The grants an entry gives its plugin (`fs`, `env`, `allowed_hosts`, `approve`), as written.
pub(super) fn grants(entry: &toml_edit::Table) -> String {
    let given: Vec<String> = ["fs", "env", "allowed_hosts", "approve"]
        .into_iter()
        .filter_map(|key| {
            entry
                .get(key)
                .map(|item| format!("{key} = {}", item.to_string().trim()))
        })
        .collect();
    if given.is_empty() {
        "none".to_owned()
    } else {
        given.join(", ")
    }
}

/// The version a component's own metadata gives, if any.
pub(super) fn component_version(bytes: &[u8]) -> Option<String> {
    crate::plugin::metadata::read(bytes)
        .ok()
        .and_then(|meta| meta.version)
        .filter(|v| !v.trim().is_empty())
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
