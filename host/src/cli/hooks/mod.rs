//! `warden hooks …`: command hooks written for Claude Code and Codex.
//!
//! - `import`: `warden hooks import FILE [--to user|project] [--dry-run]`, the hooks of a
//!   Claude Code `settings.json` / `hooks.json` or a Codex `hooks.json` / `config.toml`
//!   written as `[[hooks]]` entries.

mod import;

use clap::Subcommand;

use crate::cli::CliError;

/// `warden hooks` subcommands.
#[derive(Debug, Subcommand)]
pub(crate) enum HooksCommand {
    /// Write the hooks of a Claude Code `settings.json` / `hooks.json` or a Codex
    /// `hooks.json` / `config.toml` as `[[hooks]]` entries of the project config (for a file
    /// in the workspace's `.claude/` or `.codex/`) or the user config, after checking that the configuration loads
    /// with them; says what it could not carry over.
    Import(import::ImportArgs),
}

impl HooksCommand {
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::Import(args) => import::import(&args),
        }
    }
}
