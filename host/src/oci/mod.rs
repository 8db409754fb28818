//! OCI distribution of plugin components, in the layout the wasm ecosystem reads (the CNCF
//! "Wasm OCI artifact": a config of media type `application/vnd.wasm.config.v0+json` and one
//! `application/wasm` layer holding the component), so that `wkg`, wasmtime and Spin tools see
//! what warden pushes and warden pulls what they push.
//!
//! - `artifact`: the media types, the config JSON and the manifest, and the check that a
//!   pulled manifest is a wasm component artifact.
//! - `auth`: registry credentials, for a registry configured under `[registries.hosts]` from
//!   the variables it names (`WARDEN_REGISTRY_USER`/`WARDEN_REGISTRY_PASSWORD` by default), or
//!   from a Docker config file (never from warden's own config files).
//! - `registry`: push, resolve a tag or digest, and fetch a layer under a size cap, over
//!   HTTPS (plain HTTP only to a registry on this machine).
//! - `fetch`: the requests themselves, each response held to a size cap, an idle timeout and
//!   a deadline ([`Limits`]); `push`: a push's uploads over them.
//! - `version`: how two plugin versions order ([`compare_versions`]), to tell a downgrade.
//! - `cache`: the content-addressed cache under `$WARDEN_HOME/plugins/oci`, written atomically
//!   and verified.
//! - `error`: [`OciError`], one variant per way it fails.

mod artifact;
mod auth;
mod cache;
mod error;
mod fetch;
mod push;
mod registry;
mod version;

pub use artifact::{
    ComponentSummary, Manifest, OCI_MANIFEST_MEDIA_TYPE, WASM_CONFIG_MEDIA_TYPE,
    WASM_LAYER_MEDIA_TYPE, WasmConfig,
};
pub use auth::{Credentials, Lookup, lookup_credentials};
pub use cache::Cache;
pub use error::OciError;
pub use fetch::{ERROR_MAX_BYTES, Limits, MANIFEST_MAX_BYTES, TOKEN_MAX_BYTES};
pub use registry::{Registry, Resolved, Transport};
pub use version::compare_versions;
