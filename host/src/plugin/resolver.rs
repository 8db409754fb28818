//! Resolver plugins: the built-in `file-ref` component (embedded at build time) or one an
//! operator configures. A resolver sees each workspace root read-only, preopened at a guest
//! path equal to its absolute host path, and nothing else. A configured resolver's preopens
//! are served through the filesystem guard (the deny globs of its `deny` config key, on real
//! paths; see [`super::fs_guard`]); the built-in one keeps the raw preopen (the host's
//! `DenyGuard` checks what it answers, and its reads stay as fast as they were). As a [`Resolve`]r it serves `@path`
//! references and the model's file tools; a failure of the component fails one reference.

use std::path::{Path, PathBuf};
use std::time::Duration;

use wasmtime_wasi::FsPerms;

use super::component_file::BUILTIN_RESOLVER;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::instance::in_wasi_runtime;
use super::limits::Limits;
use super::loader::{load_bytes, load_file};
use super::preopen::{Preopens, with_roots};
use super::resolver_caps as caps;
use super::wit::{ResolverWorld, Versioned, each_version};
use super::world::{ComponentInfo, World};
use crate::config::FileRefConfig;
use crate::config::plugin_defaults::MAX_TIMEOUT_MS;
use crate::domain::{FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved};

/// Where a resolver component comes from.
#[derive(Debug, Clone, Copy)]
pub enum ResolverSource<'a> {
    /// The built-in `file-ref` component.
    Builtin,
    /// A component file, with an optional sha256 pin.
    File {
        /// Component file.
        path: &'a Path,
        /// Required sha256.
        pin: Option<&'a str>,
    },
}

/// A loaded resolver plugin.
pub struct ResolverPlugin {
    managed: ResolverWorld,
    name: &'static str,
    limits: Limits,
    info: ComponentInfo,
    roots: Vec<PathBuf>,
}

impl ResolverPlugin {
    /// Load a resolver that sees `roots` (absolute, canonical directories) read-only. The
    /// `init` config gets `roots` (newline-separated) in addition to `config`.
    pub fn load(
        engine: &PluginEngine,
        source: ResolverSource<'_>,
        roots: &[PathBuf],
        limits: Limits,
        config: Vec<(String, String)>,
    ) -> Result<Self, PluginError> {
        let name = "resolver";
        let (info, component) = match source {
            ResolverSource::Builtin => {
                load_bytes(engine, name, BUILTIN_RESOLVER, None, World::Resolver)?
            }
            ResolverSource::File { path, pin } => {
                load_file(engine, name, path, pin, World::Resolver)?
            }
        };
        // Fail early with a clear message if a root cannot be opened.
        if let Some(root) = roots.iter().find(|root| !root.is_dir()) {
            return Err(PluginError::Load {
                plugin: name.to_owned(),
                stage: "preopen",
                message: format!("{}: workspace root is not a directory", root.display()),
            });
        }
        let preopens = Preopens::new(name, roots, Some(FsPerms::ReadOnly))?;
        let preopens = match source {
            ResolverSource::Builtin => preopens,
            ResolverSource::File { .. } => {
                let globs: Vec<String> = config
                    .iter()
                    .filter(|(key, _)| key == "deny")
                    .flat_map(|(_, value)| value.lines())
                    .filter(|glob| !glob.trim().is_empty())
                    .map(str::to_owned)
                    .collect();
                preopens.guarded(&globs)?
            }
        };
        let managed = Versioned::load(
            info.version,
            name,
            engine,
            &component,
            limits,
            with_roots(config, roots),
            preopens.factory(Vec::new()),
        )?;
        Ok(Self {
            managed,
            name,
            limits,
            info,
            roots: roots.to_vec(),
        })
    }

    /// Drop the current instance; the next call runs on a fresh one.
    pub fn reset(&mut self) {
        self.managed.reset();
    }

    /// What the component is.
    pub fn info(&self) -> &ComponentInfo {
        &self.info
    }

    /// Starts a turn: after a trap or a deadline the resolver gets one more try in the turn;
    /// after a second failure its remaining calls in the turn fail at once.
    pub fn new_turn(&mut self) {
        each_version!(&mut self.managed, m, _c => m.new_turn());
    }

    /// Checks an answer against the caps before anything uses it; an overrun is a plugin
    /// failure.
    fn held_to_caps<T, E: caps::ErrorAnswer>(
        name: &str,
        call: &'static str,
        answer: &Result<T, E>,
        check: impl FnOnce(&T) -> Result<(), caps::Overrun>,
    ) -> Result<(), PluginError> {
        let checked = match answer {
            Ok(value) => check(value),
            Err(err) => caps::check_error(err),
        };
        checked.map_err(|message| PluginError::BadOutput {
            plugin: name.to_owned(),
            call,
            message,
        })
    }

    /// The workspace roots it sees.
    pub fn roots(&self) -> &[PathBuf] {
        &self.roots
    }

    /// Resolve one reference. The outer error is a plugin failure; the inner one the
    /// resolver's answer.
    pub fn resolve(
        &mut self,
        request: &ResolveRequest,
    ) -> Result<Result<Resolved, ResolveError>, PluginError> {
        let max_output = self.limits.max_output_bytes;
        in_wasi_runtime(|| {
            Ok(each_version!(&mut self.managed, m, conv => {
                let arg = conv::file_ref_to_wit(request);
                let answer = m.call("resolve", |b, store| {
                    b.warden_plugin_resolve().call_resolve(store, &arg)
                })?;
                Self::held_to_caps(self.name, "resolve", &answer, |r| {
                    caps::check_resolved(r, request.max_bytes, max_output)
                })?;
                match answer {
                    Ok(value) => Ok(conv::resolved_from_wit(value).map_err(|message| {
                        PluginError::BadOutput {
                            plugin: self.name.to_owned(),
                            call: "resolve",
                            message,
                        }
                    })?),
                    Err(err) => Err(conv::resolve_error_from_wit(err)),
                }
            }))
        })
    }

    /// The model's `read_file` tool.
    pub fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<Result<FileChunk, ResolveError>, PluginError> {
        let max_output = self.limits.max_output_bytes;
        in_wasi_runtime(|| {
            Ok(each_version!(&mut self.managed, m, conv => {
                let answer = m.call("read-file", |b, store| {
                    b.warden_plugin_resolve()
                        .call_read_file(store, path, offset, limit, max_bytes)
                })?;
                Self::held_to_caps(self.name, "read-file", &answer, |c| {
                    caps::check_chunk(c, max_bytes, max_output)
                })?;
                match answer {
                    Ok(value) => Ok(conv::chunk_from_wit(value).map_err(|message| {
                        PluginError::BadOutput {
                            plugin: self.name.to_owned(),
                            call: "read-file",
                            message,
                        }
                    })?),
                    Err(err) => Err(conv::resolve_error_from_wit(err)),
                }
            }))
        })
    }

    /// The model's `list_files` tool.
    pub fn list_files(
        &mut self,
        path: &str,
        max_entries: u32,
    ) -> Result<Result<Listing, ResolveError>, PluginError> {
        let max_output = self.limits.max_output_bytes;
        in_wasi_runtime(|| {
            Ok(each_version!(&mut self.managed, m, conv => {
                let answer = m.call("list-files", |b, store| {
                    b.warden_plugin_resolve()
                        .call_list_files(store, path, max_entries)
                })?;
                Self::held_to_caps(self.name, "list-files", &answer, |l| {
                    caps::check_listing(l, max_entries, max_output)
                })?;
                answer
                    .map(conv::listing_from_wit)
                    .map_err(conv::resolve_error_from_wit)
            }))
        })
    }
}

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

/// A failure of the resolver itself fails one reference (or one tool call), not the turn.
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
