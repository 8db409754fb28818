//! Hook plugins: observe every event by value, under a deadline; always fail open. The
//! `observe` interface returns nothing, so a hook has no way to act on a turn.

use std::path::Path;

use super::bindings::hook::{Hook as Bindings, HookPre};
use super::convert;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::{ComponentInfo, World};
use super::instance::{Managed, world_bindings};
use super::limits::Limits;
use super::loader::load_file;
use super::state::no_capabilities;
use crate::domain::{Event, Hook, PluginFailure};

world_bindings!(Bindings, HookPre, World::Hook, warden_plugin_observe);

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
        let managed = Managed::new(name, engine, &component, limits, config, no_capabilities())?;
        Ok(Self { managed, info })
    }

    /// Drop the current instance; the next event goes to a fresh one.
    pub fn reset(&mut self) {
        self.managed.reset();
    }

    /// What the component is.
    pub fn info(&self) -> &ComponentInfo {
        &self.info
    }

    /// Deliver one event, with the plugin host's own error.
    pub fn on_event(&mut self, event: &Event) -> Result<(), PluginError> {
        let Some(arg) = convert::event_to_wit(event) else {
            return Ok(());
        };
        self.managed.call("on-event", |b, store| {
            b.warden_plugin_observe().call_on_event(store, &arg)
        })
    }
}

impl Hook for HookPlugin {
    fn name(&self) -> &str {
        &self.managed.name
    }

    fn new_turn(&mut self) {
        self.managed.new_turn();
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure> {
        HookPlugin::on_event(self, event)
            .map_err(|e| e.into_failure(&self.managed.name, "on-event"))
    }
}
