//! `warden plugin push FILE oci://HOST[:PORT]/REPO:TAG`: publish a component as a wasm OCI
//! artifact (config `application/vnd.wasm.config.v0+json`, one `application/wasm` layer) and
//! print the reference that pins it, `oci://HOST/REPO@sha256:…`. The package metadata
//! (`plugin package`) goes into the manifest's `org.opencontainers.image.*` annotations.

use std::path::Path;

use super::oci_common::{
    block_on, engine, oci_error, offer, parse_reference, registry, settings, workspace,
};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::oci::{ComponentSummary, Manifest, WasmConfig};
use crate::plugin::{MAX_COMPONENT_BYTES, read_component, sha256_hex};

/// The standard annotations of the package metadata in `bytes` (none when it has none).
fn annotations(bytes: &[u8]) -> Vec<(String, String)> {
    let meta = crate::plugin::metadata::read(bytes).unwrap_or_default();
    [
        ("title", meta.name),
        ("version", meta.version),
        ("description", meta.description),
        ("authors", meta.authors),
        ("source", meta.source),
        ("licenses", meta.licenses),
        ("url", meta.homepage),
        ("revision", meta.revision),
    ]
    .into_iter()
    .filter_map(|(key, value)| {
        let value = value.filter(|v| !v.trim().is_empty())?;
        Some((format!("org.opencontainers.image.{key}"), value))
    })
    .collect()
}

/// Push `file` to `target`; `author` goes into the artifact's config.
pub(crate) fn push(
    file: &Path,
    target: &str,
    author: Option<String>,
    plain_http: bool,
) -> Result<u8, CliError> {
    let reference = parse_reference(target)?;
    if reference.digest.is_some() || reference.tag.is_none() {
        return Err(CliError::usage(format!(
            "{target}: push to a tag (oci://HOST/REPO:TAG); the digest is what push prints"
        )));
    }
    let settings = settings(&workspace(None)?)?;
    let registry = registry(&reference, plain_http, &settings)?;
    let bytes = read_component(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let offer = offer(
        &engine(MAX_COMPONENT_BYTES)?,
        &file.display().to_string(),
        &bytes,
        file,
    )?;
    let layer_digest = format!("sha256:{}", sha256_hex(&bytes));
    let config = WasmConfig::for_component(
        &layer_digest,
        author,
        ComponentSummary {
            exports: offer.exports.clone(),
            imports: offer.imports.clone(),
            target: Some(offer.target.clone()),
        },
    );
    let config_bytes =
        serde_json::to_vec(&config).map_err(|err| CliError::failure(err.to_string()))?;
    let manifest = Manifest::wasm(
        &config_bytes,
        &bytes,
        config.created.as_deref(),
        reference.tag.as_deref(),
    )
    .with_annotations(annotations(&bytes));
    let digest = block_on(registry.push(&reference, &bytes, &config_bytes, &manifest))?
        .map_err(oci_error)?;
    eprintln!(
        "warden: pushed {} ({}, {} bytes) to {reference}",
        file.display(),
        offer.world,
        bytes.len()
    );
    outln!("{}", reference.without_tag().with_digest(&digest));
    Ok(EXIT_OK)
}
