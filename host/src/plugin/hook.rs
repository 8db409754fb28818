//! Hook plugins: observe every event by value, under a deadline; always fail open. The
//! `observe` interface returns nothing, so a hook has no way to act on a turn.

use std::path::Path;

use wasmtime::Store;
use wasmtime::component::{Component, HasSelf, Linker};

use super::bindings::hook::{Hook as Bindings, HookPre};
use super::convert;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::{ComponentInfo, World};
use super::instance::{Managed, WorldBindings};
use super::limits::Limits;
use super::loader::load_file;
use super::state::{PluginState, closed_wasi};
use crate::worker::{self, Event};

impl WorldBindings for Bindings {
    const WORLD: World = World::Hook;
    type Pre = HookPre<PluginState>;

    fn add_to_linker(linker: &mut Linker<PluginState>) -> wasmtime::Result<()> {
        Bindings::add_to_linker::<_, HasSelf<_>>(linker, |state| state)
    }

    fn pre(linker: &Linker<PluginState>, component: &Component) -> wasmtime::Result<Self::Pre> {
        HookPre::new(linker.instantiate_pre(component)?)
    }

    fn instantiate(pre: &Self::Pre, store: &mut Store<PluginState>) -> wasmtime::Result<Self> {
        pre.instantiate(store)
    }

    fn init(
        &self,
        store: &mut Store<PluginState>,
        config: &super::bindings::types::Config,
    ) -> wasmtime::Result<Result<(), String>> {
        self.warden_plugin_observe().call_init(store, config)
    }
}

/// A loaded hook plugin.
pub struct HookPlugin {
    managed: Managed<Bindings>,
    info: ComponentInfo,
}

impl HookPlugin {
    /// Load the component at `path` (checked against `pin`), instantiate it and call `init`.
    /// Hooks get no filesystem, network, environment or stdio.
    pub fn load(
        engine: &PluginEngine,
        name: &str,
        path: &Path,
        pin: Option<&str>,
        limits: Limits,
        config: Vec<(String, String)>,
    ) -> Result<Self, PluginError> {
        let (info, component) = load_file(engine, name, path, pin, World::Hook)?;
        let managed = Managed::new(
            name,
            engine,
            &component,
            limits,
            config,
            Box::new(|stderr| {
                let mut wasi = closed_wasi();
                wasi.stderr(stderr);
                wasi.build()
            }),
        )?;
        Ok(Self { managed, info })
    }

    /// What the component is.
    pub fn info(&self) -> &ComponentInfo {
        &self.info
    }
}

impl worker::Hook for HookPlugin {
    fn name(&self) -> &str {
        &self.managed.name
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginError> {
        let arg = convert::event_to_wit(event);
        self.managed.call("on-event", |b, store| {
            b.warden_plugin_observe().call_on_event(store, &arg)
        })
    }
}
