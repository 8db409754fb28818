//! Interceptor plugins: `on-prompt-submit`, `pre-llm-request`, `on-turn-end`, under the
//! plugin's deadline, memory cap and output caps.

use std::path::Path;

use super::bindings::interceptor::{Interceptor as Bindings, InterceptorPre};
use super::convert;
use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::{ComponentInfo, World};
use super::instance::{Managed, world_bindings};
use super::limits::Limits;
use super::loader::load_file;
use super::state::no_capabilities;
use crate::domain::{
    Interceptor, Item, PluginFailure, PromptDecision, RequestInfo, SubmittedPrompt,
    TurnEndDecision, TurnInfo,
};

world_bindings!(
    Bindings,
    InterceptorPre,
    World::Interceptor,
    warden_plugin_intercept
);

/// A loaded interceptor plugin.
pub struct InterceptorPlugin {
    managed: Managed<Bindings>,
    info: ComponentInfo,
}

impl InterceptorPlugin {
    /// Load the component at `path` (checked against `pin`), instantiate it and call `init`
    /// with `config`. Interceptors get no filesystem, network, environment or stdio.
    pub fn load(
        engine: &PluginEngine,
        name: &str,
        path: &Path,
        pin: Option<&str>,
        limits: Limits,
        config: Vec<(String, String)>,
    ) -> Result<Self, PluginError> {
        let (info, component) = load_file(engine, name, path, pin, World::Interceptor)?;
        let managed = Managed::new(name, engine, &component, limits, config, no_capabilities())?;
        Ok(Self { managed, info })
    }

    /// Drop the current instance; the next call runs on a fresh one (instantiated from the
    /// pre-linked component and initialised with the same config).
    pub fn reset(&mut self) {
        self.managed.reset();
    }

    /// What the component is.
    pub fn info(&self) -> &ComponentInfo {
        &self.info
    }

    fn check_items(&self, call: &'static str, items: &[Item]) -> Result<(), PluginError> {
        let limits = &self.managed.limits;
        let bad = |message: String| PluginError::BadOutput {
            plugin: self.managed.name.clone(),
            call,
            message,
        };
        if items.len() > limits.max_items {
            return Err(bad(format!(
                "{} items, over the cap of {}",
                items.len(),
                limits.max_items
            )));
        }
        let bytes: usize = items.iter().map(Item::byte_len).sum();
        if bytes > limits.max_output_bytes {
            return Err(bad(format!(
                "{bytes} bytes of items, over the cap of {}",
                limits.max_output_bytes
            )));
        }
        Ok(())
    }
}

impl InterceptorPlugin {
    /// `on-prompt-submit`, with the plugin host's own error.
    pub fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginError> {
        let arg = convert::prompt_to_wit(prompt);
        let action = self.managed.call("on-prompt-submit", |b, store| {
            b.warden_plugin_intercept()
                .call_on_prompt_submit(store, &arg)
        })?;
        let decision = convert::prompt_action_from_wit(action);
        match &decision {
            PromptDecision::ContinueWith(items) => self.check_items("on-prompt-submit", items)?,
            PromptDecision::Cancel(reason)
                if reason.len() > self.managed.limits.max_output_bytes =>
            {
                return Err(PluginError::BadOutput {
                    plugin: self.managed.name.clone(),
                    call: "on-prompt-submit",
                    message: format!("cancel reason of {} bytes", reason.len()),
                });
            }
            _ => {}
        }
        Ok(decision)
    }

    /// `pre-llm-request`, with the plugin host's own error.
    pub fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginError> {
        let arg = convert::request_to_wit(request);
        let items = self.managed.call("pre-llm-request", |b, store| {
            b.warden_plugin_intercept()
                .call_pre_llm_request(store, &arg)
        })?;
        let items: Vec<Item> = items.into_iter().map(convert::item_from_wit).collect();
        self.check_items("pre-llm-request", &items)?;
        Ok(items)
    }

    /// `on-turn-end`, with the plugin host's own error.
    pub fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginError> {
        let arg = convert::turn_to_wit(turn);
        let action = self.managed.call("on-turn-end", |b, store| {
            b.warden_plugin_intercept().call_on_turn_end(store, &arg)
        })?;
        let decision = convert::turn_end_from_wit(action);
        if let TurnEndDecision::ContinueWith(items) = &decision {
            self.check_items("on-turn-end", items)?;
        }
        Ok(decision)
    }
}

impl Interceptor for InterceptorPlugin {
    fn name(&self) -> &str {
        &self.managed.name
    }

    fn new_turn(&mut self) {
        self.managed.new_turn();
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        InterceptorPlugin::on_prompt_submit(self, prompt)
            .map_err(|e| e.into_failure(&self.managed.name, "on-prompt-submit"))
    }

    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        InterceptorPlugin::pre_llm_request(self, request)
            .map_err(|e| e.into_failure(&self.managed.name, "pre-llm-request"))
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        InterceptorPlugin::on_turn_end(self, turn)
            .map_err(|e| e.into_failure(&self.managed.name, "on-turn-end"))
    }
}
