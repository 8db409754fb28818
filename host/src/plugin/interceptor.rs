//! Interceptor plugins: `on-prompt-submit`, `pre-llm-request`, `on-turn-end`, from WIT
//! 0.2.0 `pre-tool-call` and `post-tool-call`, and from 0.3.0 `on-compaction`, under the
//! plugin's deadline, memory cap and output caps. A component of an older version gets the
//! points it lacks with their defaults: it allows every call, adds nothing after one and adds
//! nothing to a compaction.

use std::path::Path;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::limits::Limits;
use super::version::WitVersion;
use super::wit::{InterceptorWorld, Versioned, each_version};
use super::world::{ComponentInfo, World};
use crate::domain::{
    CallPoint, CompactionInfo, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo,
    SubmittedPrompt, ToolCall, ToolDecision, ToolOutput, TurnEndDecision, TurnInfo,
};

/// A loaded interceptor plugin.
pub struct InterceptorPlugin {
    /// Boxed: one variant per WIT version, the newest the largest.
    managed: Box<InterceptorWorld>,
    name: String,
    limits: Limits,
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
        let (info, managed) =
            Versioned::load_closed(engine, name, path, pin, World::Interceptor, limits, config)?;
        Ok(Self {
            managed: Box::new(managed),
            name: name.to_owned(),
            limits,
            info,
        })
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

    /// The `warden:plugin` version the component targets.
    pub fn version(&self) -> WitVersion {
        self.managed.version()
    }

    fn bad(&self, call: &'static str, message: String) -> PluginError {
        PluginError::BadOutput {
            plugin: self.name.clone(),
            call,
            message,
        }
    }

    fn check_items(&self, call: &'static str, items: &[Item]) -> Result<(), PluginError> {
        let limits = &self.limits;
        if items.len() > limits.max_items {
            return Err(self.bad(
                call,
                format!(
                    "{} items, over the cap of {}",
                    items.len(),
                    limits.max_items
                ),
            ));
        }
        let bytes: usize = items.iter().map(Item::byte_len).sum();
        if bytes > limits.max_output_bytes {
            return Err(self.bad(
                call,
                format!(
                    "{bytes} bytes of items, over the cap of {}",
                    limits.max_output_bytes
                ),
            ));
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
        let decision =
            each_version!(&mut *self.managed, m, conv => conv::on_prompt_submit(m, prompt)?);
        match &decision {
            PromptDecision::ContinueWith(items) => {
                self.check_items(CallPoint::OnPromptSubmit.name(), items)?
            }
            PromptDecision::Cancel(reason) if reason.len() > self.limits.max_output_bytes => {
                return Err(self.bad(
                    CallPoint::OnPromptSubmit.name(),
                    format!("cancel reason of {} bytes", reason.len()),
                ));
            }
            _ => {}
        }
        Ok(decision)
    }

    /// `pre-llm-request`, with the plugin host's own error.
    pub fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginError> {
        let items: Vec<Item> = each_version!(&mut *self.managed, m, conv => {
            let arg = conv::request_to_wit(request);
            let items = m.call(CallPoint::PreLlmRequest.name(), |b, store| {
                b.warden_plugin_intercept()
                    .call_pre_llm_request(store, &arg)
            })?;
            items.into_iter().map(conv::item_from_wit).collect()
        });
        self.check_items(CallPoint::PreLlmRequest.name(), &items)?;
        Ok(items)
    }

    /// `on-turn-end`, with the plugin host's own error.
    pub fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginError> {
        let decision = each_version!(&mut *self.managed, m, conv => {
            let arg = conv::turn_to_wit(turn);
            let action = m.call(CallPoint::OnTurnEnd.name(), |b, store| {
                b.warden_plugin_intercept().call_on_turn_end(store, &arg)
            })?;
            conv::turn_end_from_wit(action)
        });
        if let TurnEndDecision::ContinueWith(items) = &decision {
            self.check_items(CallPoint::OnTurnEnd.name(), items)?;
        }
        Ok(decision)
    }

    /// `pre-tool-call` (0.2.0; a 0.1.0 component allows), with the plugin host's own error.
    /// Rewritten arguments must be a JSON object within the plugin's `max_output_bytes`.
    pub fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginError> {
        let max = self.limits.max_output_bytes;
        let decided =
            each_version!(&mut *self.managed, m, conv => conv::pre_tool_call(m, call, max)?);
        decided.map_err(|message| self.bad(CallPoint::PreToolCall.name(), message))
    }

    /// `post-tool-call` (0.2.0; a 0.1.0 component adds nothing), with the plugin host's own
    /// error. The items are held to the same caps as at the other points.
    pub fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginError> {
        let items =
            each_version!(&mut *self.managed, m, conv => conv::post_tool_call(m, call, output)?);
        self.check_items(CallPoint::PostToolCall.name(), &items)?;
        Ok(items)
    }

    /// `on-compaction` (0.3.0; an older component adds nothing), with the plugin host's own
    /// error. The items are held to the same caps as at the other points.
    pub fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginError> {
        let items = each_version!(&mut *self.managed, m, conv => conv::on_compaction(m, info)?);
        self.check_items(CallPoint::Compaction.name(), &items)?;
        Ok(items)
    }
}

impl Interceptor for InterceptorPlugin {
    fn name(&self) -> &str {
        &self.name
    }

    fn sha256(&self) -> Option<String> {
        Some(self.info.sha256.clone())
    }

    fn new_turn(&mut self) {
        each_version!(&mut *self.managed, m, _c => m.new_turn());
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        InterceptorPlugin::on_prompt_submit(self, prompt)
            .map_err(|e| e.into_failure(&self.name, CallPoint::OnPromptSubmit.name()))
    }

    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        InterceptorPlugin::pre_llm_request(self, request)
            .map_err(|e| e.into_failure(&self.name, CallPoint::PreLlmRequest.name()))
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        InterceptorPlugin::on_turn_end(self, turn)
            .map_err(|e| e.into_failure(&self.name, CallPoint::OnTurnEnd.name()))
    }

    fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        InterceptorPlugin::on_compaction(self, info)
            .map_err(|e| e.into_failure(&self.name, CallPoint::Compaction.name()))
    }

    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        InterceptorPlugin::pre_tool_call(self, call)
            .map_err(|e| e.into_failure(&self.name, CallPoint::PreToolCall.name()))
    }

    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        InterceptorPlugin::post_tool_call(self, call, output)
            .map_err(|e| e.into_failure(&self.name, CallPoint::PostToolCall.name()))
    }
}
