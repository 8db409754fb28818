//! One MCP server tool as a [`Tool`]: offered as `mcp__<server>__<tool>` with the server's
//! description and input schema; a call is `tools/call` under the entry's deadline, its result
//! as text capped at the entry's `max_output_bytes`, with the call's figures (server, tool,
//! duration) for the audit record. A call past its deadline, a broken connection or a
//! cancelled turn is an error result marked as the server's failure (its entry's `failure`
//! policy applies); an error the tool itself reports (`isError`) is an ordinary error result.

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use super::content::{capped, tool_result_text};
use super::server::{CallError, ListedTool, McpServer};
use crate::domain::{McpCallFigures, Tool, ToolCallAudit, ToolContext, ToolOutput, ToolSpec};

/// The name the model sees: `mcp__<server>__<tool>`.
pub fn tool_name(server: &str, tool: &str) -> String {
    format!("mcp__{server}__{tool}")
}

/// One tool of one server.
pub struct McpTool {
    server: Arc<McpServer>,
    tool: ListedTool,
}

impl McpTool {
    /// `tool` of `server`.
    pub fn new(server: Arc<McpServer>, tool: ListedTool) -> Self {
        Self { server, tool }
    }
}

impl Tool for McpTool {
    fn spec(&self) -> ToolSpec {
        let mut schema = self.tool.input_schema.clone();
        if !schema.is_object() {
            schema = serde_json::json!({"type": "object"});
        }
        ToolSpec {
            name: tool_name(self.server.name(), &self.tool.name),
            description: self.tool.description.clone(),
            input_schema: schema,
        }
    }

    fn run(&mut self, arguments: &Value, context: &mut ToolContext<'_>) -> ToolOutput {
        let entry = self.server.entry();
        let started = Instant::now();
        let result = self.server.call_tool(
            &self.tool.name,
            arguments,
            Duration::from_secs(entry.timeout_s),
            context.cancelled,
        );
        // What a read-write server planted is moved aside whatever the call's outcome.
        let planted: String = self
            .server
            .move_planted()
            .iter()
            .map(|line| format!("\n[{line}]"))
            .collect();
        let mut figures = ToolCallAudit {
            mcp: Some(McpCallFigures {
                server: entry.name.clone(),
                tool: self.tool.name.clone(),
                duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            }),
            ..ToolCallAudit::default()
        };
        let server = &entry.name;
        let failure = match result {
            Ok(result) => {
                let (text, is_error) = tool_result_text(&result);
                let text = capped(text, entry.max_output_bytes) + &planted;
                let output = if is_error {
                    ToolOutput::error(text)
                } else {
                    ToolOutput::ok(text)
                };
                return output.with_figures(figures);
            }
            Err(CallError::Deadline) => format!(
                "MCP server `{server}`: tool `{}` did not answer within {} s; the call was abandoned",
                self.tool.name, entry.timeout_s
            ),
            Err(CallError::Cancelled) => format!(
                "MCP server `{server}`: tool `{}` was abandoned when the turn was cancelled",
                self.tool.name
            ),
            Err(CallError::Failed(why)) => {
                format!(
                    "MCP server `{server}`: tool `{}` failed: {why}",
                    self.tool.name
                )
            }
        };
        let failure = failure + &planted;
        figures.failure = Some(failure.clone());
        ToolOutput::error(failure).with_figures(figures)
    }
}
