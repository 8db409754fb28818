//! `warden mcp …`: the Model Context Protocol, both ways.
//!
//! - `list`: `warden mcp list [-C DIR] [--json]`, every configured server started as a turn
//!   would start it, its state (started, or failed and why) and its tools.
//! - `add`: `warden mcp add NAME …`, an `[[mcp]]` entry checked and written into the user
//!   or project config.
//! - `serve`: `warden mcp serve`, warden's tools served to an MCP client.

mod add;
mod list;
mod serve;

use std::path::PathBuf;

use clap::Subcommand;

use crate::cli::CliError;

pub(crate) use list::rows_text;

/// `warden mcp` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Start the configured MCP servers and show each one's state and tools.
    List {
        /// The workspace (default: found from the current directory).
        #[arg(short = 'C', long = "dir", value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write an `[[mcp]]` entry into the user config (or `--project`), after checking that
    /// the configuration loads with it; prints the file and the entry.
    Add(add::AddArgs),
    /// Serve warden's tools (built-in and tool plugins) and workspace files over MCP, every
    /// call through the interceptors, the permission mode, the sandbox and the audit log.
    Serve(serve::ServeArgs),
}

impl McpCommand {
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::List { dir, json } => list::list(dir.as_deref(), json),
            Self::Add(args) => add::add(&args),
            Self::Serve(args) => serve::serve(args),
        }
    }
}
