//! A command the person runs themselves (`!cmd` in the chat): through the same sandbox and
//! confinement as the model's `shell` tool, without a question (the person typed it), its
//! output committed as a host item the model reads with the next request. The audit log
//! records it as a `shell` call decided by `person`.

use super::Worker;
use crate::domain::builtin::SHELL;
use crate::domain::{Entry, Item, Source, ToolCall, ToolOutput, TurnEvent, TurnSink};
use crate::worker::WorkerError;

/// How the committed item begins (the model and `/context` recognise it by this).
pub const PERSON_RAN: &str = "The person ran a command in the sandbox";

impl Worker {
    /// Run `command` as the `shell` tool would (same sandbox, same limits), show it to `sink`
    /// as a call and its outcome, and commit what it printed as one host item. A command the
    /// `shell` tool could not run (no sandbox here) is committed as such.
    pub fn run_person_command(
        &mut self,
        sink: &mut dyn TurnSink,
        command: &str,
    ) -> Result<ToolOutput, WorkerError> {
        let _span = crate::trace::span("person command").with("session", self.writer.id());
        let call = ToolCall {
            id: format!("person-{}", self.writer.records().len()),
            name: SHELL.to_owned(),
            arguments: serde_json::json!({ "command": command }),
        };
        let cancel = self.new_cancel_token();
        sink.event(&TurnEvent::ToolCallStarted { call: call.clone() });
        let output = self
            .tools
            .output_cancellable(&call, self.resolver.as_mut(), &|| cancel.is_cancelled());
        let call_id = call.id.clone();
        let arguments_bytes = call.arguments.to_string().len() as u64;
        sink.event(&TurnEvent::ToolCallRan {
            call,
            is_error: output.is_error,
            exit_code: output.exit_code,
            output: output.content.clone(),
        });
        self.audit(vec![crate::store::AuditEvent::ToolCall {
            tool: SHELL.to_owned(),
            call_id: call_id.clone(),
            plugin: None,
            grants: Box::default(),
            decision: "allowed".to_owned(),
            by: "person".to_owned(),
            reason: None,
            rewritten_by: Vec::new(),
            approval: None,
            mode: None,
            rule: None,
            bytes_in: arguments_bytes,
            bytes_out: output.content.len() as u64,
            is_error: output.is_error,
            http: None,
            plugin_failure: None,
            mcp: None,
            escalation: None,
            seen_by: Vec::new(),
        }])?;
        let status = match output.exit_code {
            Some(code) => format!("exit status {code}"),
            None if output.is_error => "not run".to_owned(),
            None => "no exit status".to_owned(),
        };
        let text = format!(
            "{PERSON_RAN} ({status}):\n$ {command}\n{}",
            output.content.trim_end()
        );
        self.commit(sink, vec![Entry::new(Source::Host, Item::system(text))])?;
        Ok(output)
    }
}
