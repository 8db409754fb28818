//! The process-wide wasmtime engine: configuration, the epoch ticker that enforces call
//! deadlines, and compilation through the on-disk cache.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use wasmtime::component::{Component, Linker};
use wasmtime::{Config, Engine, InstanceAllocationStrategy, OptLevel, PoolingAllocationConfig};

use super::cache::CompileCache;
use super::component_file::MAX_COMPONENT_BYTES;
use super::error::PluginError;
use super::state::PluginState;
use super::version::WitVersion;
use super::world::World;

/// How often the epoch advances; call deadlines are rounded up to this.
pub(crate) const EPOCH_TICK: Duration = Duration::from_millis(1);

/// Largest linear memory any plugin may have; per-plugin caps are clamped to it.
pub const MAX_PLUGIN_MEMORY: usize = 1 << 30;

/// Options of the [`PluginEngine`].
#[derive(Debug, Clone, Default)]
pub struct EngineOptions {
    /// Directory of the compiled-code cache; `None` disables it.
    pub cache_dir: Option<PathBuf>,
    /// Use the on-demand allocator instead of the pooling allocator.
    pub on_demand_allocator: bool,
    /// Largest component file read, in bytes; `None` is [`MAX_COMPONENT_BYTES`] (also the
    /// upper bound).
    pub max_component_bytes: Option<u64>,
    /// Signatures required of every component file loaded (`policy.require_signed`).
    pub signing: Option<Arc<super::signature::SigningPolicy>>,
}

/// The thread that advances the engine's epoch, enforcing call deadlines. Every loaded plugin
/// holds a reference, so deadlines keep working after the [`PluginEngine`] that loaded it is
/// dropped; the thread stops with the last reference.
pub(crate) struct EpochTicker {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Drop for EpochTicker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// One wasmtime engine shared by every plugin of the process.
pub struct PluginEngine {
    engine: Engine,
    cache: Option<CompileCache>,
    ticker: Arc<EpochTicker>,
    /// One linker per world (interceptor, hook, resolver), built on first use and shared by
    /// every plugin of that world.
    linkers: [OnceLock<Linker<PluginState>>; World::COUNT * WitVersion::ALL.len()],
    max_component_bytes: u64,
    signing: Option<Arc<super::signature::SigningPolicy>>,
    /// Components compiled (or loaded from the cache) by this engine, by sha256: a component
    /// configured several times, or loaded again, is compiled once. Each slot is locked while
    /// its component compiles, so plugins loaded in parallel never compile the same bytes twice.
    compiled: Mutex<HashMap<String, Arc<Mutex<Option<Component>>>>>,
}

impl std::fmt::Debug for PluginEngine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PluginEngine")
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

fn base_config() -> Config {
    let mut config = Config::new();
    config
        .wasm_component_model(true)
        .epoch_interruption(true)
        .cranelift_opt_level(OptLevel::Speed)
        .max_wasm_stack(512 << 10);
    // `WARDEN_PERF_MAP=1`: name the compiled guest functions for `perf` (a `/tmp/perf-PID.map`
    // file), to profile a plugin inside the host.
    if std::env::var_os("WARDEN_PERF_MAP").is_some_and(|v| v == "1") {
        config.profiler(wasmtime::ProfilingStrategy::PerfMap);
    }
    config
}

fn pooling() -> PoolingAllocationConfig {
    let mut pool = PoolingAllocationConfig::default();
    pool.total_component_instances(256)
        .total_core_instances(1024)
        .total_memories(256)
        .total_tables(512)
        .max_memories_per_component(8)
        .max_core_instances_per_component(32)
        .max_tables_per_component(32)
        .max_memory_size(MAX_PLUGIN_MEMORY)
        .max_unused_warm_slots(32)
        // Calls are synchronous: no fiber stacks are ever taken from the pool, and each stack
        // reserved costs an `mprotect` when the engine is created (the default is 1000).
        .total_stacks(16)
        // A reused slot's linear memory is decommitted, not reset in place: an instance of a
        // sample touches a handful of pages, and faulting those back in costs less than
        // finding and resetting the pages kept resident (with a 2 MB resident prefix and the
        // kernel's page-map scan, a fresh instance + `init` took 1.9x as long on wasmtime 50;
        // docs/benchmarks.md). Tables are small and stay resident. wasmtime 51 restores the
        // scan's speed: outside warden a reused slot with a 256 KB or 2 MB resident prefix
        // took 2.8-3.1 us on 48 and 51 against 15.8-25.6 us on 50, and 14.9 us decommitted
        // on 51 (docs/benchmarks.md, "Fresh instance across wasmtime versions"); move back
        // to a resident prefix with the upgrade.
        .linear_memory_keep_resident(0)
        .table_keep_resident(64 << 10);
    pool
}

impl PluginEngine {
    /// An engine with the given options. Falls back to the on-demand allocator when the
    /// pooling allocator cannot reserve its memory (e.g. under a tight `ulimit -v`).
    pub fn new(options: EngineOptions) -> Result<Self, PluginError> {
        let engine = if options.on_demand_allocator {
            Engine::new(&base_config())
        } else {
            let mut config = base_config();
            config.allocation_strategy(InstanceAllocationStrategy::Pooling(pooling()));
            Engine::new(&config).or_else(|err| {
                tracing::warn!(
                    "pooling allocator unavailable ({err:#}); using on-demand allocation"
                );
                Engine::new(&base_config())
            })
        }
        .map_err(|err| PluginError::Load {
            plugin: "(engine)".into(),
            stage: "configure",
            message: format!("{err:#}"),
        })?;

        let stop = Arc::new(AtomicBool::new(false));
        let thread = {
            let engine = engine.clone();
            let stop = Arc::clone(&stop);
            std::thread::Builder::new()
                .name("warden-epoch".into())
                .spawn(move || {
                    while !stop.load(Ordering::Relaxed) {
                        std::thread::sleep(EPOCH_TICK);
                        engine.increment_epoch();
                    }
                })
                .map_err(|err| PluginError::Load {
                    plugin: "(engine)".into(),
                    stage: "start epoch ticker",
                    message: err.to_string(),
                })?
        };
        let cache = options.cache_dir.map(|dir| CompileCache::new(dir, &engine));
        let max_component_bytes = options
            .max_component_bytes
            .map_or(MAX_COMPONENT_BYTES, |max| max.min(MAX_COMPONENT_BYTES));
        Ok(Self {
            engine,
            cache,
            ticker: Arc::new(EpochTicker {
                stop,
                thread: Some(thread),
            }),
            linkers: Default::default(),
            max_component_bytes,
            signing: options.signing,
            compiled: Mutex::default(),
        })
    }

    /// The shared linker of `world` at `version`, built by `build` the first time.
    pub(crate) fn linker(
        &self,
        world: World,
        version: WitVersion,
        build: impl FnOnce(&Engine) -> wasmtime::Result<Linker<PluginState>>,
    ) -> wasmtime::Result<&Linker<PluginState>> {
        let slot = &self.linkers[world as usize * WitVersion::ALL.len() + version as usize];
        if let Some(linker) = slot.get() {
            return Ok(linker);
        }
        let linker = build(&self.engine)?;
        Ok(slot.get_or_init(|| linker))
    }

    /// Largest component file read, in bytes.
    pub fn max_component_bytes(&self) -> u64 {
        self.max_component_bytes
    }

    /// The signature policy component files are checked against, if any.
    pub fn signing(&self) -> Option<&super::signature::SigningPolicy> {
        self.signing.as_deref()
    }

    /// A reference that keeps the epoch ticker running.
    pub(crate) fn ticker(&self) -> Arc<EpochTicker> {
        Arc::clone(&self.ticker)
    }

    /// The wasmtime engine.
    pub(crate) fn engine(&self) -> &Engine {
        &self.engine
    }

    /// Compile `bytes` (whose sha256 is `sha256`), through the cache when there is one; bytes
    /// this engine compiled before are not compiled again.
    pub(crate) fn compile(
        &self,
        plugin: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<Component, PluginError> {
        let slot = Arc::clone(
            self.compiled
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(sha256.to_ascii_lowercase())
                .or_default(),
        );
        let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(component) = slot.as_ref() {
            return Ok(component.clone());
        }
        let component = self.compile_once(plugin, bytes, sha256)?;
        *slot = Some(component.clone());
        Ok(component)
    }

    fn compile_once(
        &self,
        plugin: &str,
        bytes: &[u8],
        sha256: &str,
    ) -> Result<Component, PluginError> {
        let compile_err = |err: wasmtime::Error| PluginError::Load {
            plugin: plugin.to_owned(),
            stage: "compile",
            message: format!("{err:#}"),
        };
        let Some(cache) = &self.cache else {
            let _notice = super::cache::CompileNotice::start(plugin, bytes.len(), false);
            return Component::new(&self.engine, bytes).map_err(compile_err);
        };
        if let Some(component) = cache.load(&self.engine, sha256) {
            tracing::debug!(plugin, "compiled code loaded from cache");
            return Ok(component);
        }
        let notice = super::cache::CompileNotice::start(plugin, bytes.len(), true);
        let artifact = self
            .engine
            .precompile_component(bytes)
            .map_err(compile_err)?;
        drop(notice);
        if let Err(err) = cache.store(sha256, &artifact) {
            tracing::warn!(plugin, "cannot write compiled-code cache: {err}");
        }
        super::cache::from_fresh_artifact(&self.engine, &artifact).map_err(compile_err)
    }
}

/// Epoch ticks that cover `timeout`, plus one so a call always gets at least its full time.
pub(crate) fn deadline_ticks(timeout: Duration) -> u64 {
    let tick = EPOCH_TICK.as_micros().max(1);
    u64::try_from(timeout.as_micros().div_ceil(tick))
        .unwrap_or(u64::MAX)
        .saturating_add(1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::component_file::{BUILTIN_RESOLVER, sha256_hex};

    fn cache_entries(dir: &std::path::Path) -> usize {
        std::fs::read_dir(dir)
            .map(|engines| {
                engines
                    .flatten()
                    .map(|e| std::fs::read_dir(e.path()).map_or(0, Iterator::count))
                    .sum()
            })
            .unwrap_or(0)
    }

    /// An engine compiles (or loads) a component once, however often it is loaded; another
    /// engine goes back to the on-disk cache.
    #[test]
    fn a_component_is_compiled_once_per_engine() {
        let dir = tempfile::tempdir().unwrap();
        let options = EngineOptions {
            cache_dir: Some(dir.path().to_owned()),
            ..EngineOptions::default()
        };
        let engine = PluginEngine::new(options.clone()).unwrap();
        let digest = sha256_hex(BUILTIN_RESOLVER);
        engine.compile("a", BUILTIN_RESOLVER, &digest).unwrap();
        assert_eq!(cache_entries(dir.path()), 1);
        std::fs::remove_dir_all(dir.path()).unwrap();
        // Loaded again, in parallel and under another name: no compile, so no cache entry.
        std::thread::scope(|scope| {
            for name in ["b", "c"] {
                let engine = &engine;
                let digest = digest.as_str();
                scope.spawn(move || engine.compile(name, BUILTIN_RESOLVER, digest).unwrap());
            }
        });
        assert_eq!(cache_entries(dir.path()), 0);
        let other = PluginEngine::new(options).unwrap();
        other.compile("d", BUILTIN_RESOLVER, &digest).unwrap();
        assert_eq!(cache_entries(dir.path()), 1);
    }
}
