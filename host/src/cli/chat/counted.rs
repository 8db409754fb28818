//! The `/plugins` table: each loaded plugin's identity and policy, with calls and failures
//! counted by wrapping it on its way into the worker.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use sha2::{Digest, Sha256};

use crate::config::{FailurePolicy, PluginEntry};
use crate::domain::PluginFailure;
use crate::domain::{
    CompactionInfo, Event, Hook, Interceptor, Item, PromptDecision, RequestInfo, SubmittedPrompt,
    Tool, ToolCall, ToolContext, ToolDecision, ToolOutput, ToolSpec, TurnEndDecision, TurnInfo,
};
use crate::worker::ChainEntry;

/// Calls and failures of one plugin so far.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    calls: AtomicU64,
    failures: AtomicU64,
}

impl Counters {
    fn count<T>(&self, result: Result<T, PluginFailure>) -> Result<T, PluginFailure> {
        self.calls.fetch_add(1, Ordering::Relaxed);
        if result.is_err() {
            self.failures.fetch_add(1, Ordering::Relaxed);
        }
        result
    }
}

/// One row of `/plugins`.
#[derive(Debug)]
pub(crate) struct PluginRow {
    name: String,
    world: &'static str,
    sha256: String,
    failure: FailurePolicy,
    counters: Arc<Counters>,
}

impl PluginRow {
    /// The row of `entry`; the digest is the pinned one, else that of the file.
    pub(crate) fn new(entry: &PluginEntry) -> (Self, Arc<Counters>) {
        let counters = Arc::new(Counters::default());
        let sha256 = entry
            .sha256
            .clone()
            .or_else(|| file_digest(&entry.path))
            .unwrap_or_else(|| "?".into());
        let row = Self {
            name: entry.name.clone(),
            world: entry.kind.name(),
            sha256,
            failure: entry.failure,
            counters: Arc::clone(&counters),
        };
        (row, counters)
    }

    /// The row of `name` now runs the build `sha256`.
    pub(crate) fn rebuilt(&mut self, name: &str, sha256: &str) {
        if self.name == name {
            sha256.clone_into(&mut self.sha256);
        }
    }

    /// `name  world  sha256:0123456789ab  failure=closed  calls=3 failures=0`.
    pub(crate) fn render(&self) -> String {
        let failure = match self.failure {
            FailurePolicy::Closed => "closed",
            FailurePolicy::Open => "open",
        };
        let prefix: String = self.sha256.chars().take(12).collect();
        format!(
            "{}  {}  sha256:{prefix}  failure={failure}  calls={} failures={}",
            self.name,
            self.world,
            self.counters.calls.load(Ordering::Relaxed),
            self.counters.failures.load(Ordering::Relaxed),
        )
    }
}

fn file_digest(path: &Path) -> Option<String> {
    if let Some(found) = crate::plugin::builtin::lookup(path) {
        return found.ok().map(|b| b.sha256.to_owned());
    }
    std::fs::read(path)
        .ok()
        .map(|bytes| hex::encode(Sha256::digest(&bytes)))
}

/// An interceptor whose calls are counted.
pub(crate) struct CountedInterceptor {
    inner: Box<dyn Interceptor>,
    counters: Arc<Counters>,
}

impl CountedInterceptor {
    /// Wrap the plugin of `entry`.
    pub(crate) fn wrap(entry: ChainEntry, counters: Arc<Counters>) -> ChainEntry {
        ChainEntry {
            plugin: Box::new(Self {
                inner: entry.plugin,
                counters,
            }),
            failure: entry.failure,
            shadow: entry.shadow,
            matcher: entry.matcher,
        }
    }
}

impl Interceptor for CountedInterceptor {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn sha256(&self) -> Option<String> {
        self.inner.sha256()
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        self.counters.count(self.inner.on_prompt_submit(prompt))
    }

    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        self.counters.count(self.inner.pre_llm_request(request))
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        self.counters.count(self.inner.on_turn_end(turn))
    }

    fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        self.counters.count(self.inner.on_compaction(info))
    }

    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        self.counters.count(self.inner.pre_tool_call(call))
    }

    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        self.counters.count(self.inner.post_tool_call(call, output))
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}

/// A hook whose calls are counted.
pub(crate) struct CountedHook {
    inner: Box<dyn Hook>,
    counters: Arc<Counters>,
}

impl CountedHook {
    /// Wrap `hook`.
    pub(crate) fn wrap(hook: Box<dyn Hook>, counters: Arc<Counters>) -> Box<dyn Hook> {
        Box::new(Self {
            inner: hook,
            counters,
        })
    }
}

impl Hook for CountedHook {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure> {
        self.counters.count(self.inner.on_event(event))
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}

/// A tool plugin's tool whose calls, and the plugin's own failures, are counted.
pub(crate) struct CountedTool {
    inner: Box<dyn Tool + Send>,
    counters: Arc<Counters>,
}

impl CountedTool {
    /// Wrap `tool`.
    pub(crate) fn wrap(
        tool: Box<dyn Tool + Send>,
        counters: Arc<Counters>,
    ) -> Box<dyn Tool + Send> {
        Box::new(Self {
            inner: tool,
            counters,
        })
    }
}

impl Tool for CountedTool {
    fn spec(&self) -> ToolSpec {
        self.inner.spec()
    }

    fn run(&mut self, arguments: &serde_json::Value, context: &mut ToolContext<'_>) -> ToolOutput {
        let output = self.inner.run(arguments, context);
        self.counters.calls.fetch_add(1, Ordering::Relaxed);
        if output
            .figures
            .as_ref()
            .is_some_and(|figures| figures.failure.is_some())
        {
            self.counters.failures.fetch_add(1, Ordering::Relaxed);
        }
        output
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Denies every tool call, notes every result and every compaction.
    struct Guard;

    impl Interceptor for Guard {
        fn name(&self) -> &str {
            "guard"
        }

        fn sha256(&self) -> Option<String> {
            Some("ab12".into())
        }

        fn on_prompt_submit(
            &mut self,
            _: &SubmittedPrompt,
        ) -> Result<PromptDecision, PluginFailure> {
            Ok(PromptDecision::Continue)
        }

        fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
            Ok(Vec::new())
        }

        fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
            Ok(TurnEndDecision::Finish)
        }

        fn on_compaction(&mut self, _: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
            Ok(vec![Item::system("kept")])
        }

        fn pre_tool_call(&mut self, _: &ToolCall) -> Result<ToolDecision, PluginFailure> {
            Ok(ToolDecision::Deny("no".into()))
        }

        fn post_tool_call(
            &mut self,
            _: &ToolCall,
            _: &ToolOutput,
        ) -> Result<Vec<Item>, PluginFailure> {
            Err(PluginFailure::new("guard", "post-tool-call", "trapped"))
        }
    }

    #[test]
    fn a_counted_interceptor_passes_every_call_point_through() {
        let counters = Arc::new(Counters::default());
        let mut entry = CountedInterceptor::wrap(
            ChainEntry {
                plugin: Box::new(Guard),
                failure: FailurePolicy::Closed,
                shadow: None,
                matcher: None,
            },
            Arc::clone(&counters),
        );
        // The audit log names the component the call went through.
        assert_eq!(entry.plugin.sha256().as_deref(), Some("ab12"));
        let call = ToolCall {
            id: "c".into(),
            name: "grep".into(),
            arguments: serde_json::json!({}),
        };
        assert_eq!(
            entry.plugin.pre_tool_call(&call).ok(),
            Some(ToolDecision::Deny("no".into()))
        );
        assert!(
            entry
                .plugin
                .post_tool_call(&call, &ToolOutput::ok("x"))
                .is_err()
        );
        let info = CompactionInfo {
            session: "s".into(),
            replaces: crate::domain::CompactionMarker { from: 1, to: 2 },
            summary: String::new(),
            files: Vec::new(),
        };
        assert_eq!(
            entry.plugin.on_compaction(&info).ok(),
            Some(vec![Item::system("kept")])
        );
        assert_eq!(counters.calls.load(Ordering::Relaxed), 3);
        assert_eq!(counters.failures.load(Ordering::Relaxed), 1);
    }
}
