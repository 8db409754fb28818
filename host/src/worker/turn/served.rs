//! One tool call served to a client outside a turn (`warden mcp serve`), through the same
//! path a turn's call takes (`tool_calls.rs`): `pre-tool-call`, the mode and approval, the
//! run, then `post-tool-call`, with the same `tool_call` and `point` audit records in the
//! worker's session. Nothing is committed to the session's history: no model answer of this
//! session asked for the call. What `post-tool-call` adds is handed back with the outcome, for
//! the client's model to see.

use super::Worker;
use crate::domain::{Item, ToolCall, TurnSink};
use crate::store::AuditEvent;
use crate::worker::WorkerError;
use crate::worker::outcome::ToolCallOutcome;

/// What became of one served call.
#[derive(Debug, Clone)]
pub struct ServedCall {
    /// The call's outcome: its output, or who denied it and why.
    pub outcome: ToolCallOutcome,
    /// Items `post-tool-call` added after it, in chain order.
    pub added: Vec<Item>,
    /// A closed failure of the tool's plugin, or an interceptor that cancelled or failed
    /// closed at `post-tool-call`: what a turn would have stopped for.
    pub stopped: Option<String>,
}

impl Worker {
    /// Serve `call` (a tool of this worker's registry) as a turn would, and audit it.
    pub fn serve_call(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
    ) -> Result<ServedCall, WorkerError> {
        // Each served call is its own step: per-turn budgets start again.
        self.resolver.new_turn();
        self.tools.new_turn();
        self.new_chain_turn();
        let mut events: Vec<AuditEvent> = Vec::new();
        let mut outcome = self.settle(sink, call, &mut events);
        events.push(outcome.audit_record());
        let mut stopped = self.failed_closed(sink, &outcome).map(|stop| {
            format!(
                "plugin {} failed on the call: {}",
                stop.plugin, stop.message
            )
        });
        let mut added = Vec::new();
        if stopped.is_none() && outcome.is_settled() {
            let post = self.post_tool_call(sink, &mut outcome, &[], &mut events);
            added = post.items.into_iter().map(|entry| entry.item).collect();
            stopped = post.stop.map(|stop| {
                format!(
                    "plugin {} stopped after the call: {}",
                    stop.plugin, stop.message
                )
            });
        }
        self.audit(events)?;
        Ok(ServedCall {
            outcome,
            added,
            stopped,
        })
    }

    /// The tools this worker serves, in the order they are offered.
    pub fn tool_specs(&self) -> Vec<crate::domain::ToolSpec> {
        self.tools.specs().to_vec()
    }

    /// Append `event` to the session's audit log now.
    pub fn audit_now(&mut self, event: AuditEvent) -> Result<(), WorkerError> {
        self.audit(vec![event])
    }
}
