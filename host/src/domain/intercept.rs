//! What the worker asks of interceptors — the [`Interceptor`] trait — and the values that cross
//! it at its call points (`on-prompt-submit`, `pre-llm-request`, `on-turn-end`, and from WIT
//! 0.2.0 `pre-tool-call` and `post-tool-call`). The wasm side lives in `plugin/`; nothing here
//! knows about wasmtime.

use super::compaction::CompactionInfo;
use super::failure::PluginFailure;
use super::item::{Item, ToolCall};
use super::tool::ToolOutput;

/// A prompt about to be committed, as shown to interceptors.
#[derive(Debug, Clone, PartialEq)]
pub struct SubmittedPrompt {
    /// Session id.
    pub session: String,
    /// The prompt as typed.
    pub text: String,
    /// Items about to be committed: the user item, then file items.
    pub items: Vec<Item>,
}

/// An interceptor's decision on a submitted prompt.
#[derive(Debug, Clone, PartialEq)]
pub enum PromptDecision {
    /// Let it through.
    Continue,
    /// Stop the turn with this reason.
    Cancel(String),
    /// Let it through and append these items.
    ContinueWith(Vec<Item>),
}

/// What `pre-llm-request` is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestInfo {
    /// Session id.
    pub session: String,
    /// The turn's prompt as typed.
    pub prompt: String,
    /// 0 for the turn's first request, then 1, 2, …
    pub step: u32,
    /// Items in history before this request's pending items.
    pub history_items: u32,
}

/// What `on-turn-end` is told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnInfo {
    /// Session id.
    pub session: String,
    /// The turn's prompt as typed.
    pub prompt: String,
    /// The model's last answer.
    pub answer: String,
    /// Continuations already made this turn.
    pub continuations: u32,
}

/// An interceptor's decision at the end of a turn.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnEndDecision {
    /// End the turn.
    Finish,
    /// Commit these items and ask the model again.
    ContinueWith(Vec<Item>),
}

/// An interceptor's decision on a tool call the model asked for (`pre-tool-call`).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolDecision {
    /// Let it run with its arguments.
    Allow,
    /// Do not run it; the reason is committed as the call's `is_error` result.
    Deny(String),
    /// Run it with these arguments instead (a JSON object).
    Rewrite(serde_json::Value),
    /// Let the chain go on, and ask the person before it runs, whatever the mode would do
    /// (a command hook's `permissionDecision: "ask"`). A deny still wins.
    Ask(String),
}

/// What a turn is, as command hooks are told (their input's common fields).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TurnContext {
    /// Session id.
    pub session: String,
    /// The session's history file (warden's own format).
    pub transcript_path: Option<String>,
    /// The workspace root.
    pub cwd: String,
    /// The permission mode in force.
    pub mode: super::Mode,
    /// The model's name as configured (empty if the provider's default).
    pub model: String,
    /// This turn's id.
    pub turn_id: String,
    /// The turn is its worker's first: `startup` for a new session, `resume` for one with
    /// history. `None` for later turns.
    pub session_start: Option<&'static str>,
    /// For a child session, its parent's id (its turn's end is a subagent's stop).
    pub parent: Option<String>,
}

/// An interceptor as the worker sees it.
pub trait Interceptor {
    /// Configured name.
    fn name(&self) -> &str;
    /// The sha256 of its component (lowercase hex), when it has one: what the audit log
    /// names it by. Owned: a plugin a rebuild replaces answers for the build now in place.
    fn sha256(&self) -> Option<String> {
        None
    }
    /// `on-prompt-submit`.
    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure>;
    /// `pre-llm-request`.
    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure>;
    /// `on-turn-end`.
    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure>;
    /// A turn starts: per-turn budgets and failure counts start again.
    fn new_turn(&mut self) {}
    /// What the turn about to start is (called after [`new_turn`](Self::new_turn)); command
    /// hooks pass it on, wasm plugins have no use for it.
    fn set_context(&mut self, context: &TurnContext) {
        let _ = context;
    }
    /// After [`post_tool_call`](Self::post_tool_call): the text the model should see as the
    /// call's result instead of the tool's (a command hook's `updatedToolOutput`), taken once.
    fn replaced_output(&mut self) -> Option<String> {
        None
    }
    /// What it has for the person since last asked (a command hook's `systemMessage`, the
    /// fields of its answer warden could not act on), taken.
    fn take_alerts(&mut self) -> Vec<super::Alert> {
        Vec::new()
    }
    /// The session is being left (`reason`: `exit`, `clear`, `resume`, `other`). Observes only.
    fn on_session_end(&mut self, reason: &str) {
        let _ = reason;
    }
    /// The person is about to be asked something (`message`). Observes only.
    fn on_notification(&mut self, message: &str) {
        let _ = message;
    }
    /// `compaction`: the items returned are committed with the compaction group; it cannot
    /// cancel. Wasm plugins have it from WIT 0.3.0; the default (older ones) adds nothing.
    fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        let _ = info;
        Ok(Vec::new())
    }
    /// `pre-tool-call` (WIT 0.2.0): judge a tool call before approval and before it runs.
    /// Interceptors built for 0.1.0 do not have this point: the default allows.
    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        let _ = call;
        Ok(ToolDecision::Allow)
    }
    /// `post-tool-call` (WIT 0.2.0): items to commit right after the call's result. The
    /// default adds nothing.
    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        let _ = (call, output);
        Ok(Vec::new())
    }
}
