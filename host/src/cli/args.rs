//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// warden: an LLM agent's worker loop with sandboxed WebAssembly plugins.
#[derive(Debug, Parser)]
#[command(name = "warden", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Inspect plugin components.
    Plugin {
        #[command(subcommand)]
        command: PluginCommand,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum PluginCommand {
    /// Print a component's world, API version, sha256 and imports, or why it cannot run.
    Check {
        /// The component file.
        file: PathBuf,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}
