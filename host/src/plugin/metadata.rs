//! A component's standard metadata custom sections (`component-name`, `version`,
//! `description`, `authors`, `source`, `licenses`, `homepage`, `revision`), written and read
//! with `wasm-metadata`, the crate `wasm-tools metadata` uses: other tools (and OCI
//! registries, which map them to annotations) read the same sections.

use serde::Serialize;
use wasm_metadata::{
    AddMetadata, AddMetadataField, Authors, Description, Homepage, Licenses, Payload, Revision,
    Source, Version,
};

/// The metadata of a component, each field absent when the file does not carry it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PluginMetadata {
    /// Component name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// Version of the plugin.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// One-line description.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Authors, free text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub authors: Option<String>,
    /// URL of the source code.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// SPDX license expression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub licenses: Option<String>,
    /// URL of the project's page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub homepage: Option<String>,
    /// Source control revision.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

impl PluginMetadata {
    /// True when no field is set.
    pub fn is_empty(&self) -> bool {
        *self == Self::default()
    }

    /// `(label, value)` of the fields that are set, in a fixed order.
    pub fn fields(&self) -> Vec<(&'static str, &str)> {
        [
            ("name", &self.name),
            ("version", &self.version),
            ("description", &self.description),
            ("authors", &self.authors),
            ("source", &self.source),
            ("licenses", &self.licenses),
            ("homepage", &self.homepage),
            ("revision", &self.revision),
        ]
        .into_iter()
        .filter_map(|(label, value)| value.as_deref().map(|v| (label, v)))
        .collect()
    }
}

/// The metadata of the outermost component (or module) in `bytes`.
pub fn read(bytes: &[u8]) -> Result<PluginMetadata, String> {
    let payload = Payload::from_binary(bytes).map_err(|e| format!("{e:#}"))?;
    let m = payload.metadata();
    let text = |v: Option<String>| v.filter(|s| !s.is_empty());
    Ok(PluginMetadata {
        name: text(m.name.clone()),
        version: text(m.version.as_ref().map(ToString::to_string)),
        description: text(m.description.as_ref().map(ToString::to_string)),
        authors: text(m.authors.as_ref().map(ToString::to_string)),
        source: text(m.source.as_ref().map(ToString::to_string)),
        licenses: text(m.licenses.as_ref().map(ToString::to_string)),
        homepage: text(m.homepage.as_ref().map(ToString::to_string)),
        revision: text(m.revision.as_ref().map(ToString::to_string)),
    })
}

/// `bytes` with the fields set in `meta` written (fields left `None` keep their value). A
/// malformed URL (`source`, `homepage`) or SPDX expression (`licenses`) is an error naming the
/// field.
pub fn write(bytes: &[u8], meta: &PluginMetadata) -> Result<Vec<u8>, String> {
    fn set<T: std::fmt::Debug + Clone>(
        value: &Option<String>,
        make: impl Fn(&str) -> Result<T, String>,
    ) -> Result<AddMetadataField<T>, String> {
        Ok(match value {
            Some(v) => AddMetadataField::Set(make(v)?),
            None => AddMetadataField::Keep,
        })
    }
    let url = |field: &'static str| {
        move |v: &str| -> Result<String, String> {
            url_like(v).then(|| v.to_owned()).ok_or_else(|| {
                format!("--{field} {v:?}: not a URL (e.g. https://example.com/plugin)")
            })
        }
    };
    let mut add = AddMetadata::default();
    add.name = set(&meta.name, |v| Ok(v.to_owned()))?;
    add.version = set(&meta.version, |v| Ok(Version::new(v.to_owned())))?;
    add.description = set(&meta.description, |v| Ok(Description::new(v.to_owned())))?;
    add.authors = set(&meta.authors, |v| Ok(Authors::new(v.to_owned())))?;
    add.revision = set(&meta.revision, |v| Ok(Revision::new(v.to_owned())))?;
    add.source = set(&meta.source, |v| {
        Source::new(&url("source")(v)?).map_err(|e| format!("--source {v:?}: {e:#}"))
    })?;
    add.homepage = set(&meta.homepage, |v| {
        Homepage::new(&url("homepage")(v)?).map_err(|e| format!("--homepage {v:?}: {e:#}"))
    })?;
    add.licenses = set(&meta.licenses, |v| {
        Licenses::new(v).map_err(|e| format!("--licenses {v:?}: not an SPDX expression: {e:#}"))
    })?;
    add.to_wasm(bytes).map_err(|e| format!("{e:#}"))
}

fn url_like(v: &str) -> bool {
    v.split_once("://")
        .is_some_and(|(scheme, rest)| !scheme.is_empty() && !rest.is_empty())
}
