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
        #[arg(long, value_name = "ID", conflicts_with = "parent")]
        session: Option<String>,
        /// Start a child session of this one; the turn's end is reported to its inbox.
        #[arg(long, value_name = "ID")]
        parent: Option<String>,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The prompt; `@path` mentions pull in files.
        #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
        prompt: Vec<String>,
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
    /// Replace what a session's next request is built from by a summary and current copies of
    /// the files it referenced (history keeps everything).
    Compact {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Session id.
        session: String,
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
        /// Only what the next request would contain (from the latest compaction on).
        #[arg(long)]
        as_sent: bool,
    },
}
