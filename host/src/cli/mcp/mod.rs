//! `warden mcp …`: the Model Context Protocol.
//!
//! - `serve`: `warden mcp serve`, warden's tools served to an MCP client.

mod serve;

use clap::Subcommand;

use super::exit::CliError;

/// `warden mcp` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Serve warden's tools (built-in and tool plugins) and workspace files over MCP, every
    /// call through the interceptors, the permission mode, the sandbox and the audit log.
    Serve(serve::ServeArgs),
}

impl McpCommand {
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::Serve(args) => serve::serve(args),
        }
    }
}
