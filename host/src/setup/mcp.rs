//! The MCP servers of the configuration, wired into a worker's parts: their tools registered
//! in the tool registry (each owned by its server, so that every call passes the chain, the
//! mode and approval, and is audited with the server's figures), their resources in front of
//! the workspace resolver.

use std::path::{Path, PathBuf};

use super::SetupError;
use crate::config::{Config, ToolGrants};
use crate::domain::Resolve;
use crate::mcp::{McpResources, McpSet, StartOptions};
use crate::worker::{ToolOwner, ToolRegistry};

/// How stdio servers of `config` are started for `workspace`: through this executable's
/// sandbox launcher, with warden's own environment to pick the allowed names from.
pub fn mcp_options(config: &Config, workspace: &Path) -> StartOptions {
    StartOptions {
        roots: vec![std::fs::canonicalize(workspace).unwrap_or_else(|_| workspace.to_owned())],
        launcher: std::env::current_exe().unwrap_or_else(|_| PathBuf::from("warden")),
        vars: std::env::vars().collect(),
        hide: config.tools.shell.hide.clone(),
        deny: config.fileref.deny.clone(),
    }
}

/// Start every `[[mcp]]` server of `config`. A server that fails is reported by
/// [`McpSet::alerts`]; one whose policy is closed makes this an error.
pub fn start_mcp(
    config: &Config,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<McpSet, SetupError> {
    let set = McpSet::start(&config.mcp, &mcp_options(config, workspace), env)
        .map_err(SetupError::Mcp)?;
    match set.closed_failure() {
        Some(message) => Err(SetupError::Mcp(message)),
        None => Ok(set),
    }
}

/// Register the tools of `set` in `tools` (a name taken already is a configuration error
/// naming both owners), and put its resources in front of `resolver`.
pub fn add_mcp(
    set: &McpSet,
    resolver: Box<dyn Resolve>,
    tools: &mut ToolRegistry,
) -> Result<Box<dyn Resolve>, SetupError> {
    for (server, tool) in set.tools() {
        let entry = server.entry();
        let owner = ToolOwner {
            plugin: format!("mcp:{}", entry.name),
            approve: entry.approve,
            grants: ToolGrants {
                fs: entry.fs,
                allowed_hosts: Vec::new(),
                env: entry.env.clone(),
            },
            failure: entry.failure,
            mcp: Some(entry.name.clone()),
        };
        tools.register_plugin_tool(Box::new(tool), owner)?;
    }
    if set.servers().is_empty() {
        return Ok(resolver);
    }
    Ok(Box::new(McpResources::new(
        resolver,
        set.servers().to_vec(),
    )))
}
