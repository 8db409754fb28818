//! Tools the model may call: the [`Tool`] trait, its [`ToolSpec`] (what the model is offered)
//! and [`ToolOutput`]. The turn loop asks a registry of tools by name; built-in file tools and
//! (later) tool plugins implement the same trait.

use serde::{Deserialize, Serialize};

use super::resolve::Resolve;

/// A tool the model may call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// Tool name (`read_file`).
    pub name: String,
    /// What the tool does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub input_schema: serde_json::Value,
}

/// What a tool call produced: its text and error flag are committed as the call's
/// `ToolResult` item; a tool plugin's own figures travel with it to the audit record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Output text for the model (or why the call failed).
    pub content: String,
    /// True when the call failed.
    pub is_error: bool,
    /// What only a tool plugin knows of this call (outgoing HTTP, its own failure); `None`
    /// for built-in tools.
    pub figures: Option<ToolCallAudit>,
    /// The exit status of the command it ran (`shell`: 128 + the signal when one killed it);
    /// `None` for a tool that runs no command.
    pub exit_code: Option<i32>,
}

/// How the committed result of a call that was denied begins (`tool call denied by
/// plugin:guard: …`, `… by approval: …`, `… by policy: …`).
pub const DENIED_PREFIX: &str = "tool call denied by ";
/// How the committed result of a call left unrun because the turn stopped begins.
pub const NOT_RUN_PREFIX: &str = "tool call not run: ";

/// Whether a committed tool result may be that of a call that ran: false for the error results
/// the host writes in place of a run (a denial, a call left unrun). A tool's own error that
/// happens to start the same way counts as not run, the cautious side for what reads it
/// (compaction re-reads only files of calls that ran).
pub fn result_shows_run(content: &str, is_error: bool) -> bool {
    !(is_error && (content.starts_with(DENIED_PREFIX) || content.starts_with(NOT_RUN_PREFIX)))
}

impl ToolOutput {
    /// A successful output.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
            figures: None,
            exit_code: None,
        }
    }

    /// A failed call, saying why.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
            figures: None,
            exit_code: None,
        }
    }

    /// The same output with the exit status of the command it ran.
    pub fn with_exit_code(self, exit_code: Option<i32>) -> Self {
        Self { exit_code, ..self }
    }

    /// The same output with a tool plugin's figures.
    pub fn with_figures(self, figures: ToolCallAudit) -> Self {
        Self {
            figures: Some(figures),
            ..self
        }
    }
}

/// What a tool may use while it runs: the workspace's resolver (the only way the built-in
/// file tools see files), and whether the turn was cancelled (Ctrl-C), for a tool that runs
/// long (`shell` polls it and stops its command).
pub struct ToolContext<'a> {
    /// The sandboxed resolver of the session's workspace.
    pub resolver: &'a mut dyn Resolve,
    /// True once the turn is cancelled.
    pub cancelled: &'a dyn Fn() -> bool,
}

/// What only a tool plugin knows of one call, for the audit record (the worker adds the
/// plugin, its grants and the bytes in and out, which it knows itself). Built-in tools have
/// none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCallAudit {
    /// Outgoing HTTP requests sent.
    pub http_requests: u32,
    /// Outgoing HTTP requests refused (host not granted, caps, deadline).
    pub http_refused: u32,
    /// Bytes of outgoing HTTP requests sent.
    pub http_bytes_out: u64,
    /// Bytes of outgoing HTTP responses received.
    pub http_bytes_in: u64,
    /// Set when the plugin itself failed (trap, deadline, memory cap, output over its cap):
    /// the failure policy of its entry applies.
    pub failure: Option<String>,
    /// An MCP server's call: the server, the tool's own name and how long it took.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mcp: Option<McpCallFigures>,
}

/// One call of an MCP server's tool, for the audit record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McpCallFigures {
    /// The server's configured name.
    pub server: String,
    /// The tool's name on the server (without the `mcp__<server>__` prefix).
    pub tool: String,
    /// From the request sent to the answer (or the deadline), in milliseconds.
    pub duration_ms: u64,
}

/// A tool the model may call.
pub trait Tool {
    /// What the model is offered: name, description, JSON schema of the arguments.
    fn spec(&self) -> ToolSpec;

    /// Run one call with `arguments` (a JSON object). Bad arguments and failures are an
    /// `is_error` output saying what was wrong, never a panic. A tool plugin returns its
    /// figures with the output ([`ToolOutput::figures`]).
    fn run(&mut self, arguments: &serde_json::Value, context: &mut ToolContext<'_>) -> ToolOutput;

    /// A turn starts: per-turn failure counts start again (plugin tools: a plugin that failed
    /// twice in a turn is not called again in that turn).
    fn new_turn(&mut self) {}
}
