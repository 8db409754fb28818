//! `warden plugin list [--builtin] [--json] [-C DIR]`: the plugins the configuration declares
//! (name, kind, an interceptor's mode, layer, version, signer, source or path) and a custom
//! `fileref.resolver`, or with `--builtin` the sample plugins this binary carries, which an
//! entry loads with `path = "builtin:NAME"`.

use std::path::Path;

use crate::cli::common::load_config;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{PluginEntry, PluginKind, PluginMode};
use crate::front::workspace::Workspace;
use crate::plugin::MAX_COMPONENT_BYTES;
use crate::plugin::builtin::{BUILTIN_PREFIX, BUILTINS};
use crate::plugin::signature::{TrustedKey, trusted_keys};

/// Print the list; one JSON array with `--json`.
pub(crate) fn list(builtin: bool, json: bool, dir: Option<&Path>) -> Result<u8, CliError> {
    if builtin {
        list_builtin(json);
        return Ok(EXIT_OK);
    }
    let workspace = Workspace::find(dir)?.root;
    let loaded = load_config(&workspace)?;
    let plugins = &loaded.config.plugins;
    // An unreadable trusted key leaves every signer unverified rather than the list unprinted.
    let keys = trusted_keys(&loaded.config.policy).unwrap_or_default();
    let described: Vec<Described> = plugins
        .iter()
        .map(|p| describe(&p.path, p.source.is_some(), &keys))
        .collect();
    let resolver = resolver_row(&workspace, &loaded.config.fileref, &keys)?;
    if json {
        let mut rows: Vec<serde_json::Value> = plugins
            .iter()
            .zip(&described)
            .map(|(p, d)| {
                serde_json::json!({
                    "name": p.name,
                    "kind": p.kind.name(),
                    "mode": mode(p),
                    "path": p.path.display().to_string(),
                    "source": p.source,
                    "version": d.version,
                    "signer": d.signer,
                    "sha256": p.sha256,
                    "digest": d.digest,
                    "origin": p.origin,
                    "declared_in": p.declared_in.as_ref().map(|d| d.display().to_string()),
                })
            })
            .collect();
        if let Some(r) = &resolver {
            rows.push(serde_json::json!({
                "name": RESOLVER_NAME,
                "kind": "resolver",
                "mode": null,
                "path": r.path,
                "source": null,
                "version": r.described.version,
                "signer": r.described.signer,
                "sha256": r.sha256,
                "digest": r.described.digest,
                "origin": r.origin,
                "declared_in": r.declared_in,
            }));
        }
        outln!("{}", serde_json::Value::Array(rows));
        return Ok(EXIT_OK);
    }
    if plugins.is_empty() && resolver.is_none() {
        outln!(
            "no plugins configured (`warden plugin list --builtin` lists those this binary carries)"
        );
        return Ok(EXIT_OK);
    }
    outln!(
        "{:<20} {:<12} {:<8} {:<8} {:<10} {:<32} SOURCE",
        "NAME",
        "KIND",
        "MODE",
        "LAYER",
        "VERSION",
        "SIGNER"
    );
    for (p, d) in plugins.iter().zip(&described) {
        outln!(
            "{:<20} {:<12} {:<8} {:<8} {:<10} {:<32} {}",
            p.name,
            p.kind.name(),
            mode(p).unwrap_or("-"),
            p.origin,
            d.version.as_deref().unwrap_or("-"),
            d.signer,
            p.source
                .clone()
                .unwrap_or_else(|| p.path.display().to_string())
        );
    }
    if let Some(r) = &resolver {
        outln!(
            "{:<20} {:<12} {:<8} {:<8} {:<10} {:<32} {}",
            RESOLVER_NAME,
            "resolver",
            "-",
            r.origin,
            r.described.version.as_deref().unwrap_or("-"),
            r.described.signer,
            r.path
        );
    }
    Ok(EXIT_OK)
}

/// The name a custom resolver is listed under: the key that sets it.
const RESOLVER_NAME: &str = "fileref.resolver";

/// An interceptor's mode (`enforce`, `shadow`); other kinds have none.
fn mode(entry: &PluginEntry) -> Option<&'static str> {
    (entry.kind == PluginKind::Interceptor).then_some(match entry.mode {
        PluginMode::Enforce => "enforce",
        PluginMode::Shadow => "shadow",
    })
}

/// A custom `fileref.resolver` as the list shows it.
struct ResolverRow {
    path: String,
    sha256: Option<String>,
    origin: &'static str,
    declared_in: Option<String>,
    described: Described,
}

/// The configured custom resolver, if any, with the layer and file that set it.
fn resolver_row(
    workspace: &Path,
    fileref: &crate::config::FileRefConfig,
    keys: &[TrustedKey],
) -> Result<Option<ResolverRow>, CliError> {
    let Some(path) = &fileref.resolver else {
        return Ok(None);
    };
    let (_, origins) = crate::config::load_with_origins(&crate::cli::common::sources(workspace))
        .map_err(|err| CliError::usage(err.to_string()))?;
    let origin = origins.of("fileref.resolver");
    Ok(Some(ResolverRow {
        path: path.display().to_string(),
        sha256: fileref.resolver_sha256.clone(),
        origin: origin.layer,
        declared_in: origin.file.map(|f| f.display().to_string()),
        described: describe(path, false, keys),
    }))
}

/// What a plugin's component says of itself.
struct Described {
    /// The version in its metadata, if any.
    version: Option<String>,
    /// Who signed it (`signed by key …`, `unsigned`), or why it cannot be read.
    signer: String,
    /// The sha256 of the component as it is now (what the audit log names it by).
    digest: Option<String>,
}

/// What the component at `path` says of itself; `from_registry` when it is an `oci://`
/// entry's cache file.
fn describe(path: &Path, from_registry: bool, keys: &[TrustedKey]) -> Described {
    let bytes = match crate::plugin::builtin::read(path, MAX_COMPONENT_BYTES) {
        Ok(bytes) => bytes,
        Err(_) if from_registry && !path.exists() => {
            return Described {
                version: None,
                signer: "not in the plugin cache".to_owned(),
                digest: None,
            };
        }
        Err(_) => {
            return Described {
                version: None,
                signer: "unreadable".to_owned(),
                digest: None,
            };
        }
    };
    let version = crate::plugin::metadata::read(&bytes)
        .ok()
        .and_then(|meta| meta.version)
        .filter(|v| !v.trim().is_empty());
    let signer = if crate::plugin::builtin::builtin_name(path).is_some() {
        "builtin".to_owned()
    } else {
        match super::admit::describe_signer(&bytes, keys).as_str() {
            "unsigned" => "unsigned".to_owned(),
            who => format!("signed by {who}"),
        }
    };
    let digest = Some(crate::plugin::sha256_hex(&bytes));
    Described {
        version,
        signer,
        digest,
    }
}

fn list_builtin(json: bool) {
    if json {
        let rows: Vec<serde_json::Value> = BUILTINS
            .iter()
            .map(|b| {
                serde_json::json!({
                    "name": b.name,
                    "path": format!("{BUILTIN_PREFIX}{}", b.name),
                    "world": b.world,
                    "api_version": b.wit,
                    "version": b.version,
                    "sha256": b.sha256,
                    "size": b.bytes.len(),
                    "description": b.description,
                })
            })
            .collect();
        outln!("{}", serde_json::Value::Array(rows));
        return;
    }
    outln!(
        "{:<24} {:<18} {:<8} {:<12} {:>9}  DESCRIPTION",
        "PATH",
        "WORLD",
        "VERSION",
        "SHA256",
        "SIZE"
    );
    for b in BUILTINS {
        let short: String = b.sha256.chars().take(12).collect();
        outln!(
            "{:<24} {:<18} {:<8} {:<12} {:>9}  {}",
            format!("{BUILTIN_PREFIX}{}", b.name),
            format!("{}@{}", b.world, b.wit),
            b.version,
            short,
            b.bytes.len(),
            b.description
        );
    }
    outln!(
        "use one as a [[plugins]] entry's `path = \"builtin:NAME\"` (with its `kind` and `config`); `--json` prints the full sha256 for a `sha256` pin"
    );
}
