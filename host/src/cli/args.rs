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
    /// Run one turn: the answer goes to stdout, alerts to stderr.
    Run {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Continue this session (created when it does not exist).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// Continue the most recent session of this workspace.
        #[arg(long = "continue", conflicts_with = "session")]
        continue_last: bool,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The prompt; `@path` mentions pull in files.
        #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
        prompt: Vec<String>,
    },
    /// Talk with the model interactively, with `@` completion and slash commands.
    Chat {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Resume session ID (without ID: the most recent session of this workspace).
        #[arg(long, value_name = "ID", num_args = 0..=1)]
        resume: Option<Option<String>>,
        /// Continue the most recent session of this workspace.
        #[arg(long = "continue", conflicts_with = "resume")]
        continue_last: bool,
    },
    /// Rank workspace paths for a partial `@` mention, best first.
    Complete {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print a JSON array of `{"path","kind","score"}`.
        #[arg(long)]
        json: bool,
        /// How many paths to print.
        #[arg(long, default_value_t = 50, value_name = "N")]
        limit: usize,
        /// The partial path (a leading `@` is ignored); empty lists the top of the tree.
        #[arg(num_args = 0.., value_name = "QUERY")]
        query: Vec<String>,
    },
    /// Show what a prompt would commit: no model call, nothing written.
    Preview {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object (`items`, `alerts`, `refs`).
        #[arg(long)]
        json: bool,
        /// The prompt.
        #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
        prompt: Vec<String>,
    },
    /// Inspect plugin components.
    Plugin {
        #[command(subcommand)]
        command: PluginCommand,
    },
    /// List, show and export sessions.
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Queue a notification; it is committed before that session's next model request.
    Notify {
        /// The session.
        #[arg(long, value_name = "ID")]
        session: String,
        /// The text.
        #[arg(required = true, num_args = 1.., value_name = "TEXT")]
        text: Vec<String>,
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

#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// List sessions, oldest first.
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
    },
    /// Print a session's history for a person.
    Show {
        /// Session id.
        id: String,
    },
    /// Print a session's history as `history.json` (an array of items).
    Export {
        /// Session id.
        id: String,
    },
}
