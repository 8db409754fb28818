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

/// What a tool call produced, committed as the call's `ToolResult` item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutput {
    /// Output text for the model (or why the call failed).
    pub content: String,
    /// True when the call failed.
    pub is_error: bool,
}

impl ToolOutput {
    /// A successful output.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: false,
        }
    }

    /// A failed call, saying why.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            is_error: true,
        }
    }
}

/// What a tool may use while it runs: the workspace's resolver (the only way built-in tools
/// see files).
pub struct ToolContext<'a> {
    /// The sandboxed resolver of the session's workspace.
    pub resolver: &'a mut dyn Resolve,
}

/// A tool the model may call.
pub trait Tool {
    /// What the model is offered: name, description, JSON schema of the arguments.
    fn spec(&self) -> ToolSpec;

    /// Run one call with `arguments` (a JSON object). Bad arguments and failures are an
    /// `is_error` output saying what was wrong, never a panic.
    fn run(&mut self, arguments: &serde_json::Value, context: &mut ToolContext<'_>) -> ToolOutput;
}
