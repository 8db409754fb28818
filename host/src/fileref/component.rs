//! The resolver component as a [`Resolve`]r: loading the configured (or built-in) component
//! with the `init` config the resolver contract defines, and mapping plugin failures to
//! per-reference errors.

use std::path::PathBuf;
use std::time::Duration;

use super::resolve::Resolve;
use super::types::{FileChunk, Listing, ResolveError, ResolveRequest, Resolved};
use crate::config::FileRefConfig;
use crate::config::plugin_defaults::MAX_TIMEOUT_MS;
use crate::plugin::{Limits, PluginEngine, PluginError, ResolverPlugin, ResolverSource};

/// Limits of a resolver (the deadline is `fileref.resolver_timeout_ms`): generous enough for a listing of a very large directory, still bounded.
pub const RESOLVER_LIMITS: Limits = Limits {
    timeout: Duration::from_secs(10),
    memory_bytes: 256 << 20,
    max_items: 64,
    max_output_bytes: 1 << 20,
};

/// The `init` config of the resolver contract, except `roots` (added by the loader): `deny`
/// (newline-separated) and `max_entries`, after the operator's `resolver_config` keys, which
/// cannot override them.
pub fn init_config(config: &FileRefConfig) -> Vec<(String, String)> {
    let reserved = ["roots", "deny", "max_entries"];
    let mut out: Vec<(String, String)> = config
        .resolver_config
        .iter()
        .filter(|(k, _)| !reserved.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    out.push(("deny".into(), config.deny.join("\n")));
    out.push(("max_entries".into(), config.max_entries.to_string()));
    out
}

/// Load the resolver `config` names (`fileref.resolver`, pinned by `fileref.resolver_sha256`),
/// or the built-in one, seeing `roots` (absolute, canonical; the first is the primary root).
pub fn load_resolver(
    engine: &PluginEngine,
    roots: &[PathBuf],
    config: &FileRefConfig,
) -> Result<ResolverPlugin, PluginError> {
    let source = match &config.resolver {
        Some(path) => ResolverSource::File {
            path,
            pin: config.resolver_sha256.as_deref(),
        },
        None => ResolverSource::Builtin,
    };
    let limits = Limits {
        timeout: Duration::from_millis(config.resolver_timeout_ms.clamp(1, MAX_TIMEOUT_MS)),
        ..RESOLVER_LIMITS
    };
    ResolverPlugin::load(engine, source, roots, limits, init_config(config))
}

fn failed(error: PluginError) -> ResolveError {
    ResolveError::Io(format!("the resolver failed: {error}"))
}

impl Resolve for ResolverPlugin {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        ResolverPlugin::resolve(self, request).map_err(failed)?
    }

    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        ResolverPlugin::read_file(self, path, offset, limit, max_bytes).map_err(failed)?
    }

    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        ResolverPlugin::list_files(self, path, max_entries).map_err(failed)?
    }

    fn new_turn(&mut self) {
        ResolverPlugin::new_turn(self);
    }
}
