//! `warden plugin add oci://…:TAG|oci://…@sha256:… [--name N] [--kind K]
//! [--project|--user|--managed FILE] [--mode enforce|shadow]`: pull a component into the cache
//! and write a pinned `[[plugins]]` entry (`source = "oci://HOST/REPO[:TAG]@sha256:<manifest>"`,
//! `sha256 = "<component>"`) into the user config (default), the project config or a managed
//! file an operator rolls out, keeping that file's comments.

use std::path::{Path, PathBuf};

use toml_edit::{ArrayOfTables, Item, Table, value};

use super::admit::Admission;
use super::oci_common::{
    Keep, editable_layers, engine, entry_index, loaded_layers, offer, parse_reference, pull,
    read_doc, registry, settings, workspace, write_doc,
};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{LayerKind, PluginKind};

/// What `plugin add` was asked.
pub(crate) struct AddRequest<'a> {
    /// The reference, by tag or digest.
    pub reference: &'a str,
    /// `--name`.
    pub name: Option<&'a str>,
    /// `--kind`.
    pub kind: Option<PluginKind>,
    /// `--project` (else the user config).
    pub project: bool,
    /// `--managed FILE`: write into this managed file instead.
    pub managed: Option<&'a Path>,
    /// `--mode shadow`: an interceptor whose decisions are recorded, not applied.
    pub shadow: bool,
    /// `--config KEY=VALUE`.
    pub config: &'a [String],
    /// `-C DIR`.
    pub dir: Option<&'a Path>,
    /// `--plain-http`.
    pub plain_http: bool,
}

/// Add the plugin; prints the file written and the entry's pins.
pub(crate) fn add(request: &AddRequest<'_>) -> Result<u8, CliError> {
    let reference = parse_reference(request.reference)?;
    let name = request
        .name
        .unwrap_or_else(|| reference.last_segment())
        .to_owned();
    check_name(&name)?;
    let config = parse_config(request.config)?;
    let root = workspace(request.dir)?;
    let file = target_file(&root, request)?;
    // A name is used once across every layer, and in the file written.
    let mut layers: Vec<PathBuf> = loaded_layers(&root).into_iter().map(|(_, f)| f).collect();
    layers.push(file.clone());
    for layer in &layers {
        if entry_index(&read_doc(layer)?, &name).is_some() {
            return Err(CliError::usage(format!(
                "{}: a plugin named {name:?} already exists; `warden plugin update {name}` fetches its new version, or pick another --name",
                layer.display()
            )));
        }
    }
    let settings = settings(&root)?;
    let max = settings.max;
    let what = reference.to_string();
    let admission = Admission::new(&settings.loaded.config.policy)?;
    admission.source(
        &format!("plugin {name}"),
        &what,
        "its registry was not contacted and nothing was written",
    )?;
    let registry = registry(&reference, request.plain_http, &settings)?;
    let cache_path = |sha: &str| {
        crate::oci::Cache::from_env(&crate::cli::common::env)
            .map(|c| c.component(sha))
            .unwrap_or_default()
    };
    let check = |pinned: &crate::config::OciReference, bytes: &[u8]| {
        // A glob may name the pinned form only: what would be written must be allowed too.
        admission.source(
            &format!("plugin {name}"),
            &pinned.to_string(),
            "nothing was cached; nothing was written",
        )?;
        let sha = crate::plugin::sha256_hex(bytes);
        admission.signed(
            &format!("plugin {name}"),
            &cache_path(&sha),
            bytes,
            "nothing was cached; nothing was written",
        )
    };
    let pulled = pull(&registry, &reference, max, Keep::IfAdmitted(&check))?;
    let offer = offer(&engine(max)?, &what, &pulled.bytes, &pulled.file)?;
    let world_kind = offer
        .kind()
        .map_err(|why| CliError::usage(format!("{what}: {why}")))?;
    if let Some(kind) = request.kind
        && kind != world_kind
    {
        return Err(CliError::usage(format!(
            "{what}: --kind {} does not match the component, which is {} ({})",
            kind.name(),
            offer.world,
            offer.target
        )));
    }
    if request.shadow && world_kind != PluginKind::Interceptor {
        return Err(CliError::usage(format!(
            "{what}: --mode shadow is for interceptors only, and this component is {}; nothing was written",
            super::args::with_article(world_kind.name())
        )));
    }
    let source = reference
        .with_digest(&pulled.resolved.manifest_digest)
        .to_string();
    let mut doc = read_doc(&file)?;
    let mut entry = Table::new();
    entry.insert("name", value(name.as_str()));
    entry.insert("kind", value(world_kind.name()));
    entry.insert("source", value(source.as_str()));
    entry.insert("sha256", value(pulled.sha256.as_str()));
    if request.shadow {
        entry.insert("mode", value("shadow"));
    }
    if !config.is_empty() {
        let mut table = Table::new();
        for (key, val) in &config {
            table.insert(key, value(val.as_str()));
        }
        entry.insert("config", Item::Table(table));
    }
    match doc.get_mut("plugins") {
        Some(item) => item
            .as_array_of_tables_mut()
            .ok_or_else(|| {
                CliError::usage(format!(
                    "{}: `plugins` is not a list of [[plugins]] tables",
                    file.display()
                ))
            })?
            .push(entry),
        None => {
            let mut list = ArrayOfTables::new();
            list.push(entry);
            doc.insert("plugins", Item::ArrayOfTables(list));
        }
    }
    write_doc(&file, &doc)?;
    let mode = if request.shadow { ", mode shadow" } else { "" };
    outln!(
        "{}: added plugin {name} ({}{mode})",
        file.display(),
        world_kind.name()
    );
    outln!("  source {source}");
    outln!("  sha256 {}", pulled.sha256);
    outln!("  cached {}", pulled.file.display());
    if let Some(version) = super::update::component_version(&pulled.bytes) {
        outln!("  version {version}");
    }
    outln!("  signer {}", admission.signer(&pulled.bytes));
    if !offer.tools.is_empty() {
        outln!("  tools  {}", offer.tools.join(", "));
    }
    if world_kind == PluginKind::Tool {
        outln!("  grants none yet: add fs, env or allowed_hosts to its entry for what it needs");
    }
    if request.project {
        outln!("  the project's plugins load once trusted: run `warden trust`");
    }
    if request.managed.is_some() {
        outln!(
            "  where this file is the managed file in force, `warden plugin fetch` puts the component into each machine's cache"
        );
    }
    Ok(EXIT_OK)
}

/// The file `request` writes: `--managed FILE`, the project config, or the user config.
fn target_file(root: &Path, request: &AddRequest<'_>) -> Result<PathBuf, CliError> {
    if let Some(file) = request.managed {
        return std::path::absolute(file)
            .map_err(|err| CliError::usage(format!("--managed {}: {err}", file.display())));
    }
    let wanted = if request.project {
        LayerKind::Project
    } else {
        LayerKind::User
    };
    editable_layers(root)
        .into_iter()
        .find(|(kind, _)| *kind == wanted)
        .map(|(_, file)| file)
        .ok_or_else(|| {
            CliError::usage(
                "no user config directory: set XDG_CONFIG_HOME or HOME (or use --project)",
            )
        })
}

/// The rule the config loader holds names to.
fn check_name(name: &str) -> Result<(), CliError> {
    let ok = !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.');
    if ok {
        Ok(())
    } else {
        Err(CliError::usage(format!(
            "plugin name {name:?} must be 1-64 characters of [A-Za-z0-9._-] (set one with --name)"
        )))
    }
}

/// `KEY=VALUE` pairs.
fn parse_config(pairs: &[String]) -> Result<Vec<(String, String)>, CliError> {
    pairs
        .iter()
        .map(|pair| {
            pair.split_once('=')
                .filter(|(key, _)| !key.is_empty())
                .map(|(k, v)| (k.to_owned(), v.to_owned()))
                .ok_or_else(|| CliError::usage(format!("--config {pair:?}: expected KEY=VALUE")))
        })
        .collect()
}
