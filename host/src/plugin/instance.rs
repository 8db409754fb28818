//! One plugin's live instance: created on demand from an `InstancePre`, initialised with the
//! plugin's config, called under a deadline, and replaced by a fresh one after a trap.

use wasmtime::component::{Component, Linker};
use wasmtime::{Engine, Store, Trap};

use super::breaker::Breaker;
use super::engine::{EpochTicker, PluginEngine, deadline_ticks};
use super::error::PluginError;
use super::limits::Limits;
use super::state::{PluginState, WasiFactory};
use super::stderr::{STDERR_TAIL, TailPipe};
use super::version::WitVersion;
use super::world::World;

/// A plugin's config, as `init` takes it in every version: its entry's key/value pairs.
pub(crate) type Config = Vec<(String, String)>;

/// The generated bindings of one world, as the instance manager needs them.
pub(crate) trait WorldBindings: Sized + 'static {
    /// The generated `…Pre` type.
    type Pre: Clone;
    /// The world these bindings are for.
    const WORLD: World;
    /// The `warden:plugin` version of these bindings.
    const VERSION: WitVersion;

    /// Link the world's imports (WASI is linked by the caller).
    fn add_to_linker(linker: &mut Linker<PluginState>) -> wasmtime::Result<()>;
    /// Pre-instantiate `component`.
    fn pre(linker: &Linker<PluginState>, component: &Component) -> wasmtime::Result<Self::Pre>;
    /// Instantiate into `store`.
    fn instantiate(pre: &Self::Pre, store: &mut Store<PluginState>) -> wasmtime::Result<Self>;
    /// Call the world's `init` with the plugin's config (key/value pairs, the same in every
    /// version).
    fn init(
        &self,
        store: &mut Store<PluginState>,
        config: &Config,
    ) -> wasmtime::Result<Result<(), String>>;
}

/// Implements [`WorldBindings`] for the generated bindings of one world.
macro_rules! world_bindings {
    ($bindings:ty, $pre:ident, $world:expr, $version:expr, $exports:ident) => {
        impl $crate::plugin::instance::WorldBindings for $bindings {
            const WORLD: $crate::plugin::world::World = $world;
            const VERSION: $crate::plugin::version::WitVersion = $version;
            type Pre = $pre<$crate::plugin::state::PluginState>;

            fn add_to_linker(
                linker: &mut ::wasmtime::component::Linker<$crate::plugin::state::PluginState>,
            ) -> ::wasmtime::Result<()> {
                <$bindings>::add_to_linker::<_, ::wasmtime::component::HasSelf<_>>(
                    linker,
                    |state| state,
                )
            }

            fn pre(
                linker: &::wasmtime::component::Linker<$crate::plugin::state::PluginState>,
                component: &::wasmtime::component::Component,
            ) -> ::wasmtime::Result<Self::Pre> {
                $pre::new(linker.instantiate_pre(component)?)
            }

            fn instantiate(
                pre: &Self::Pre,
                store: &mut ::wasmtime::Store<$crate::plugin::state::PluginState>,
            ) -> ::wasmtime::Result<Self> {
                pre.instantiate(store)
            }

            fn init(
                &self,
                store: &mut ::wasmtime::Store<$crate::plugin::state::PluginState>,
                config: &$crate::plugin::instance::Config,
            ) -> ::wasmtime::Result<Result<(), String>> {
                self.$exports().call_init(store, config)
            }
        }
    };
}

pub(crate) use world_bindings;

/// A plugin instance manager.
/// Run `f` inside the Tokio runtime of the WASI implementation, for calls of plugins that read
/// files (resolvers, tool plugins). A WASI file-system call made from within runs on the calling
/// thread at once; from a thread outside any runtime, each one would first enter that runtime
/// and yield to it (a tenth of a 16 KB read through the resolver).
pub(crate) fn in_wasi_runtime<R>(f: impl FnOnce() -> R) -> R {
    wasmtime_wasi::runtime::with_ambient_tokio_runtime(f)
}

pub(crate) struct Managed<B: WorldBindings> {
    pub(crate) name: String,
    engine: Engine,
    pre: B::Pre,
    pub(crate) limits: Limits,
    config: Vec<(String, String)>,
    wasi: WasiFactory,
    live: Option<Live<B>>,
    /// Failures this turn, when the owner marks turns (see [`Managed::new_turn`]).
    breaker: Option<Breaker>,
    /// Keeps deadlines enforced for as long as this plugin lives.
    _ticker: std::sync::Arc<EpochTicker>,
}

struct Live<B> {
    store: Store<PluginState>,
    bindings: B,
    stderr: TailPipe,
}

impl<B: WorldBindings> Managed<B> {
    /// Link and pre-instantiate `component`, then create and initialise a first instance so
    /// that a bad config or a broken component is reported at load time.
    pub(crate) fn new(
        name: &str,
        plugin_engine: &PluginEngine,
        component: &Component,
        limits: Limits,
        config: Vec<(String, String)>,
        wasi: WasiFactory,
    ) -> Result<Self, PluginError> {
        let load = |stage: &'static str| {
            let plugin = name.to_owned();
            move |err: wasmtime::Error| PluginError::Load {
                plugin,
                stage,
                message: format!("{err:#}"),
            }
        };
        let engine = plugin_engine.engine();
        let linker = plugin_engine
            .linker(B::WORLD, B::VERSION, |engine| {
                let mut linker = Linker::new(engine);
                wasmtime_wasi::p2::add_to_linker_sync(&mut linker)?;
                super::fs_guard::add_to_linker(&mut linker, PluginState::guarded_fs)?;
                B::add_to_linker(&mut linker)?;
                Ok(linker)
            })
            .map_err(load("link"))?;
        let pre = B::pre(linker, component).map_err(load("link"))?;
        let mut managed = Self {
            name: name.to_owned(),
            engine: engine.clone(),
            pre,
            limits,
            config,
            wasi,
            live: None,
            breaker: None,
            _ticker: plugin_engine.ticker(),
        };
        managed.ensure_live()?;
        Ok(managed)
    }

    fn ensure_live(&mut self) -> Result<&mut Live<B>, PluginError> {
        if self.live.is_none() {
            let stderr = TailPipe::new(STDERR_TAIL);
            let (wasi, fs_guard) = (self.wasi)(stderr.clone());
            let state = PluginState::new(&self.name, wasi, fs_guard, &self.limits);
            let mut store = Store::new(&self.engine, state);
            store.limiter(|state| &mut state.limits);
            store.epoch_deadline_trap();
            store.set_epoch_deadline(deadline_ticks(self.limits.timeout));
            let instantiated = B::instantiate(&self.pre, &mut store);
            let bindings = match instantiated {
                Ok(bindings) => bindings,
                Err(err) => return Err(self.failure("instantiate", err, &stderr.contents())),
            };
            store.set_epoch_deadline(deadline_ticks(self.limits.timeout));
            match bindings.init(&mut store, &self.config) {
                Ok(Ok(())) => {}
                Ok(Err(message)) => {
                    return Err(PluginError::InitRefused {
                        plugin: self.name.clone(),
                        message,
                    });
                }
                Err(err) => return Err(self.failure("init", err, &stderr.contents())),
            }
            tracing::debug!(plugin = %self.name, "fresh instance initialised");
            self.live = Some(Live {
                store,
                bindings,
                stderr,
            });
        }
        match self.live.as_mut() {
            Some(live) => Ok(live),
            None => Err(PluginError::Load {
                plugin: self.name.clone(),
                stage: "instantiate",
                message: "no instance".into(),
            }),
        }
    }

    /// Starts a turn: from now on a plugin that failed twice in a turn is not called again in
    /// that turn (see `breaker`).
    pub(crate) fn new_turn(&mut self) {
        self.breaker.get_or_insert_with(Breaker::default).reset();
        if let Some(live) = self.live.as_mut() {
            live.store.data_mut().logs.new_turn();
        }
    }

    /// Drop the live instance; the next call creates and initialises a fresh one.
    pub(crate) fn reset(&mut self) {
        self.live = None;
    }

    /// Run `f` against a live instance under the plugin's deadline. A trap or deadline drops
    /// the instance; the next call gets a fresh one.
    pub(crate) fn call<R>(
        &mut self,
        call: &'static str,
        f: impl FnOnce(&B, &mut Store<PluginState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        if let Some(breaker) = &self.breaker {
            breaker.check(&self.name, call)?;
        }
        let mut result = self.call_live(call, f);
        if let (Err(err), Some(breaker)) = (&mut result, self.breaker.as_mut())
            && !matches!(err, PluginError::InitRefused { .. })
        {
            if let PluginError::Deadline { tries, .. } = err {
                *tries = breaker.failures().saturating_add(1);
            }
            breaker.record(err);
        }
        result
    }

    fn call_live<R>(
        &mut self,
        call: &'static str,
        f: impl FnOnce(&B, &mut Store<PluginState>) -> wasmtime::Result<R>,
    ) -> Result<R, PluginError> {
        let ticks = deadline_ticks(self.limits.timeout);
        let live = self.ensure_live()?;
        live.store.set_epoch_deadline(ticks);
        live.store.data_mut().new_call();
        let mark = live.stderr.mark();
        let result = f(&live.bindings, &mut live.store);
        match result {
            Ok(value) => Ok(value),
            Err(err) => {
                let stderr = live.stderr.since(mark);
                self.live = None;
                Err(self.failure(call, err, &stderr))
            }
        }
    }

    /// The error for a failed call; `stderr` is what the guest wrote during it.
    fn failure(&self, call: &'static str, err: wasmtime::Error, stderr: &[u8]) -> PluginError {
        if matches!(err.downcast_ref::<Trap>(), Some(Trap::Interrupt)) {
            return PluginError::Deadline {
                plugin: self.name.clone(),
                call,
                timeout_ms: u64::try_from(self.limits.timeout.as_millis()).unwrap_or(u64::MAX),
                tries: 0,
            };
        }
        let mut message = match err.downcast_ref::<Trap>() {
            Some(trap) => trap.to_string(),
            // Limits (memory growth refused) surface as the root cause behind a backtrace.
            None => first_line(&err.root_cause().to_string()),
        };
        tracing::debug!(
            plugin = %self.name,
            call,
            "stderr of the failed call: {}",
            crate::domain::escape::escape(&String::from_utf8_lossy(stderr))
        );
        if let Some(guest) = super::guest_error::describe(stderr) {
            message = format!("{message} ({guest})");
        }
        if is_memory_cap(&err) {
            message = format!(
                "{message} (memory cap {} MiB: raise `memory_mb` in its [[plugins]] entry if it needs more)",
                self.limits.memory_bytes >> 20
            );
        }
        tracing::debug!(plugin = %self.name, call, "plugin failed: {message}");
        PluginError::Trap {
            plugin: self.name.clone(),
            call,
            message,
        }
    }
}

/// True when the error is the memory limiter refusing growth (the store traps on it).
fn is_memory_cap(err: &wasmtime::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .to_string()
            .contains("forcing trap when growing memory")
    })
}

fn first_line(s: &str) -> String {
    let line = s.lines().next().unwrap_or("").trim();
    let mut out: String = line.chars().take(300).collect();
    if out.len() < line.len() {
        out.push('…');
    }
    out
}
