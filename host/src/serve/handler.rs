//! The MCP server handler: `tools/list` and `tools/call` (each call through the turn's path on
//! the worker's thread), `resources/list` and `resources/read` (workspace files through the
//! resolver). A denied or failed call is a result with `isError: true` and the reason as its
//! text; an unknown tool is a protocol error.

use std::sync::Arc;

use rmcp::ErrorData as McpError;
use rmcp::handler::server::ServerHandler;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ReadResourceRequestParams,
    ReadResourceResponse, ReadResourceResult, Resource, ResourceContents, ServerCapabilities,
    ServerConfig, Tool,
};
use rmcp::service::{ElicitationMode, RequestContext, RoleServer};

use super::approve;
use super::host::WorkerHandle;
use super::resources;
use crate::domain::ToolCall;

/// What clients are told about the server.
const INSTRUCTIONS: &str = "warden's tools on one workspace: every call passes warden's \
interceptors (pre-tool-call), its permission mode and approval, runs sandboxed, then \
post-tool-call, and is audited. Workspace files are offered as resources.";

/// The server: a handle on the worker's thread.
#[derive(Clone)]
pub(crate) struct WardenServer {
    host: WorkerHandle,
}

impl WardenServer {
    pub(crate) fn new(host: WorkerHandle) -> Self {
        Self { host }
    }

    fn tools(&self) -> Vec<Tool> {
        self.host
            .tools
            .iter()
            .map(|spec| {
                let schema = match &spec.input_schema {
                    serde_json::Value::Object(map) => map.clone(),
                    _ => serde_json::Map::new(),
                };
                Tool::new(
                    spec.name.clone(),
                    spec.description.clone(),
                    Arc::new(schema),
                )
            })
            .collect()
    }
}

fn text_result(text: String, is_error: bool) -> CallToolResult {
    if is_error {
        CallToolResult::error(vec![ContentBlock::text(text)])
    } else {
        CallToolResult::success(vec![ContentBlock::text(text)])
    }
}

impl ServerHandler for WardenServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("warden", env!("CARGO_PKG_VERSION")))
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.tools().into_iter().find(|tool| tool.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        let name = request.name.to_string();
        if !self.host.tools.iter().any(|spec| spec.name == name) {
            return Err(McpError::invalid_params(
                format!("unknown tool `{name}`"),
                None,
            ));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let n = self.host.next_call();
        let call = ToolCall {
            id: format!("mcp-{n}"),
            name,
            arguments,
        };
        let elicit = context
            .peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
            .then(|| (context.peer.clone(), tokio::runtime::Handle::current()));
        let asker = approve::asker(self.host.yes, elicit);
        let served = match self.host.call(call, asker).await {
            Ok(served) => served,
            Err(message) => return Ok(text_result(message, true).into()),
        };
        let output = served.outcome.output();
        let mut is_error = output.is_error;
        let mut content = vec![ContentBlock::text(output.content.clone())];
        for item in &served.added {
            content.push(ContentBlock::text(item.text().to_owned()));
        }
        if let Some(stopped) = served.stopped {
            is_error = true;
            content.push(ContentBlock::text(stopped));
        }
        let result = if is_error {
            CallToolResult::error(content)
        } else {
            CallToolResult::success(content)
        };
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let files = self
            .host
            .list()
            .await
            .map_err(|message| McpError::internal_error(message, None))?;
        let mut out = Vec::with_capacity(files.len());
        for file in files {
            let value = serde_json::json!({
                "uri": resources::uri(&self.host.root, &file.path),
                "name": file.path,
                "mimeType": "text/plain",
            });
            match serde_json::from_value::<Resource>(value) {
                Ok(resource) => out.push(resource),
                Err(err) => tracing::warn!("resources: {}: {err}", file.path),
            }
        }
        Ok(ListResourcesResult::with_all_items(out))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let path = resources::path_of(&self.host.root, &request.uri)
            .map_err(|message| McpError::invalid_params(message, None))?;
        let resolved = self
            .host
            .read(path)
            .await
            .map_err(|message| McpError::invalid_params(message, None))?;
        let contents = vec![ResourceContents::text(resolved.content, request.uri)];
        Ok(ReadResourceResult::new(contents).into())
    }
}
