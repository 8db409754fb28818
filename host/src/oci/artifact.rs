//! The wasm OCI artifact: media types, the config JSON, the manifest, and the check that a
//! pulled manifest is one.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::error::OciError;

/// The config blob's media type (CNCF Wasm OCI artifact).
pub const WASM_CONFIG_MEDIA_TYPE: &str = "application/vnd.wasm.config.v0+json";
/// The layer's media type: the component's bytes, as they are.
pub const WASM_LAYER_MEDIA_TYPE: &str = "application/wasm";
/// The manifest's media type.
pub const OCI_MANIFEST_MEDIA_TYPE: &str = "application/vnd.oci.image.manifest.v1+json";
/// Media types asked for when a manifest is pulled: an image manifest, or what a wrong
/// reference may hold instead (an index, a Docker manifest), so that the error can say which.
pub const ACCEPTED_MANIFESTS: &[&str] = &[
    OCI_MANIFEST_MEDIA_TYPE,
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.v2+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];
/// Layer media types of older wasm artifacts (`wasm-to-oci`), read as the same thing.
const LEGACY_LAYER_MEDIA_TYPES: &[&str] = &[
    "application/vnd.wasm.content.layer.v1+wasm",
    "application/vnd.module.wasm.content.layer.v1+wasm",
];
/// Config media types of older wasm artifacts.
const LEGACY_CONFIG_MEDIA_TYPES: &[&str] = &["application/vnd.wasm.config.v1+json"];

/// `sha256:<hex>` of `bytes`.
pub fn digest_of(bytes: &[u8]) -> String {
    format!("sha256:{}", hex::encode(Sha256::digest(bytes)))
}

/// What the config says about the component (the spec's `component` object).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct ComponentSummary {
    /// Exported interfaces.
    #[serde(default)]
    pub exports: Vec<String>,
    /// Imported interfaces.
    #[serde(default)]
    pub imports: Vec<String>,
    /// The world it targets (`warden:plugin/intercept@0.2.0`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<String>,
}

/// The config blob (`application/vnd.wasm.config.v0+json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WasmConfig {
    /// RFC 3339 time of the push.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<String>,
    /// Who published it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub author: Option<String>,
    /// Always `wasm`.
    pub architecture: String,
    /// `wasip2` for a component.
    pub os: String,
    /// The digests of the layers, in order.
    #[serde(default)]
    pub layer_digests: Vec<String>,
    /// The component's exports and imports.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub component: Option<ComponentSummary>,
}

impl WasmConfig {
    /// The config for `component` (its digest, exports and imports), created now.
    pub fn for_component(
        layer_digest: &str,
        author: Option<String>,
        component: ComponentSummary,
    ) -> Self {
        Self {
            created: Some(
                humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string(),
            ),
            author,
            architecture: "wasm".into(),
            os: "wasip2".into(),
            layer_digests: vec![layer_digest.to_owned()],
            component: Some(component),
        }
    }
}

/// A content descriptor.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Descriptor {
    /// Media type.
    pub media_type: String,
    /// `sha256:<hex>`.
    pub digest: String,
    /// Bytes.
    pub size: u64,
    /// Annotations.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Descriptor {
    /// A descriptor of `bytes`.
    pub fn of(media_type: &str, bytes: &[u8]) -> Self {
        Self {
            media_type: media_type.to_owned(),
            digest: digest_of(bytes),
            size: bytes.len() as u64,
            annotations: BTreeMap::new(),
        }
    }
}

/// An image manifest (only the fields warden writes or reads).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Always 2.
    pub schema_version: u32,
    /// The manifest's own media type.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub media_type: Option<String>,
    /// Set on artifacts; warden leaves it out (the config's media type says what it is).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub artifact_type: Option<String>,
    /// The config blob.
    pub config: Option<Descriptor>,
    /// The layers.
    #[serde(default)]
    pub layers: Vec<Descriptor>,
    /// Annotations (`org.opencontainers.image.created`, `…version`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
}

impl Manifest {
    /// The manifest of `config` and `component`; `version` (the tag pushed) is recorded as
    /// `org.opencontainers.image.version`.
    pub fn wasm(
        config: &[u8],
        component: &[u8],
        created: Option<&str>,
        version: Option<&str>,
    ) -> Self {
        let mut annotations = BTreeMap::new();
        if let Some(created) = created {
            annotations.insert(
                "org.opencontainers.image.created".into(),
                created.to_owned(),
            );
        }
        if let Some(version) = version {
            annotations.insert(
                "org.opencontainers.image.version".into(),
                version.to_owned(),
            );
        }
        Self {
            schema_version: 2,
            media_type: Some(OCI_MANIFEST_MEDIA_TYPE.into()),
            artifact_type: None,
            config: Some(Descriptor::of(WASM_CONFIG_MEDIA_TYPE, config)),
            layers: vec![Descriptor::of(WASM_LAYER_MEDIA_TYPE, component)],
            annotations,
        }
    }

    /// The manifest in `bytes` pulled for `reference` (served as `content_type`), checked to be
    /// a wasm component artifact: a wasm config, exactly one wasm layer. Returns its layer.
    pub fn parse_wasm(reference: &str, bytes: &[u8]) -> Result<(Self, Descriptor), OciError> {
        let not_wasm = |found: String| OciError::NotWasm {
            reference: reference.to_owned(),
            found,
        };
        let value: serde_json::Value = serde_json::from_slice(bytes)
            .map_err(|err| not_wasm(format!("the manifest is not JSON ({err})")))?;
        let media_type = value["mediaType"].as_str().unwrap_or_default();
        if media_type.contains("index") || media_type.contains("manifest.list") {
            return Err(not_wasm(format!(
                "it is an image index ({media_type}), as for a multi-platform container image"
            )));
        }
        let manifest: Self = serde_json::from_value(value)
            .map_err(|err| not_wasm(format!("the manifest cannot be read ({err})")))?;
        let config_type = manifest
            .config
            .as_ref()
            .map_or("(none)", |c| c.media_type.as_str());
        if config_type != WASM_CONFIG_MEDIA_TYPE
            && !LEGACY_CONFIG_MEDIA_TYPES.contains(&config_type)
        {
            return Err(not_wasm(format!(
                "its config is {config_type}, not {WASM_CONFIG_MEDIA_TYPE}"
            )));
        }
        let wasm_layers: Vec<&Descriptor> = manifest
            .layers
            .iter()
            .filter(|l| {
                l.media_type == WASM_LAYER_MEDIA_TYPE
                    || LEGACY_LAYER_MEDIA_TYPES.contains(&l.media_type.as_str())
            })
            .collect();
        let [layer] = wasm_layers.as_slice() else {
            let types: Vec<&str> = manifest
                .layers
                .iter()
                .map(|l| l.media_type.as_str())
                .collect();
            return Err(not_wasm(format!(
                "it needs exactly one {WASM_LAYER_MEDIA_TYPE} layer, it has [{}]",
                types.join(", ")
            )));
        };
        let layer = (*layer).clone();
        if layer
            .digest
            .strip_prefix("sha256:")
            .is_none_or(|hex| hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()))
        {
            return Err(not_wasm(format!(
                "its layer digest {} is not sha256",
                layer.digest
            )));
        }
        Ok((manifest, layer))
    }

    /// The manifest with `extra` annotations (`org.opencontainers.image.title`, …), each over
    /// one of the same key (the package's version over the tag pushed).
    #[must_use]
    pub fn with_annotations(mut self, extra: impl IntoIterator<Item = (String, String)>) -> Self {
        self.annotations.extend(extra);
        self
    }

    /// `org.opencontainers.image.version`, if set.
    pub fn version(&self) -> Option<&str> {
        self.annotations
            .get("org.opencontainers.image.version")
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_pushed_manifest_reads_back_as_a_wasm_artifact() {
        let config = serde_json::to_vec(&WasmConfig::for_component(
            "sha256:x",
            None,
            ComponentSummary::default(),
        ))
        .unwrap();
        let manifest = Manifest::wasm(&config, b"\0asm", None, Some("1.0"));
        let bytes = serde_json::to_vec(&manifest).unwrap();
        let (back, layer) = Manifest::parse_wasm("r", &bytes).unwrap();
        assert_eq!(back, manifest);
        assert_eq!(layer.media_type, WASM_LAYER_MEDIA_TYPE);
        assert_eq!(layer.digest, digest_of(b"\0asm"));
        assert_eq!(back.version(), Some("1.0"));
        let text = String::from_utf8(config).unwrap();
        for key in [
            "\"architecture\":\"wasm\"",
            "\"os\":\"wasip2\"",
            "\"layerDigests\":[\"sha256:x\"]",
            "\"created\"",
        ] {
            assert!(text.contains(key), "{text}");
        }
    }

    #[test]
    fn other_artifacts_are_refused_saying_what_they_are() {
        let image = r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",
            "config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:a","size":1},
            "layers":[{"mediaType":"application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:b","size":1}]}"#;
        let err = Manifest::parse_wasm("r", image.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("application/vnd.oci.image.config.v1+json"),
            "{err}"
        );
        let index = r#"{"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]}"#;
        let err = Manifest::parse_wasm("r", index.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("image index"), "{err}");
        let two = format!(
            r#"{{"schemaVersion":2,"config":{{"mediaType":"{WASM_CONFIG_MEDIA_TYPE}","digest":"sha256:a","size":1}},
            "layers":[{{"mediaType":"application/wasm","digest":"sha256:b","size":1}},{{"mediaType":"application/wasm","digest":"sha256:c","size":1}}]}}"#
        );
        let err = Manifest::parse_wasm("r", two.as_bytes())
            .unwrap_err()
            .to_string();
        assert!(err.contains("exactly one"), "{err}");
        assert!(
            Manifest::parse_wasm("r", b"<html>")
                .unwrap_err()
                .to_string()
                .contains("not JSON")
        );
    }
}
