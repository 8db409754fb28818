//! Hook plugins: observe every event by value, under a deadline; always fail open. The
//! `observe` interface returns nothing, so a hook has no way to act on a turn. A 0.1.0 hook is
//! not sent the events 0.1.0 has no case for (tool decisions).

use std::path::Path;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::limits::Limits;
use super::wit::{HookWorld, Versioned, each_version};
use super::world::{ComponentInfo, World};
use crate::domain::{CallPoint, Event, Hook, PluginFailure};

/// A loaded hook plugin.
pub struct HookPlugin {
    /// Boxed: one variant per WIT version.
    managed: Box<HookWorld>,
    name: String,
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
        let (info, managed) =
            Versioned::load_closed(engine, name, path, pin, World::Hook, limits, config)?;
        Ok(Self {
            managed: Box::new(managed),
            name: name.to_owned(),
            info,
        })
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
        each_version!(&mut *self.managed, m, conv => {
            let Some(arg) = conv::event_to_wit(event) else {
                return Ok(());
            };
            m.call(CallPoint::OnEvent.name(), |b, store| {
                b.warden_plugin_observe().call_on_event(store, &arg)
            })
        })
    }
}

impl Hook for HookPlugin {
    fn name(&self) -> &str {
        &self.name
    }

    fn new_turn(&mut self) {
        each_version!(&mut *self.managed, m, _c => m.new_turn());
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure> {
        HookPlugin::on_event(self, event)
            .map_err(|e| e.into_failure(&self.name, CallPoint::OnEvent.name()))
    }
}
