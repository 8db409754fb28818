//! Command-line arguments.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// warden: an LLM agent's worker loop with sandboxed WebAssembly plugins.
#[derive(Debug, Parser)]
#[command(name = "warden", version, about, after_help = super::exit::EXIT_CODES_HELP)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run one turn: the answer goes to stdout, alerts to stderr.
    Run(super::run_args::RunArgs),
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
        /// Start a child session of this existing one; each turn's end is reported to it.
        #[arg(long, value_name = "ID", conflicts_with_all = ["resume", "continue_last"])]
        parent: Option<String>,
        /// Provider and model for this chat.
        #[command(flatten)]
        model: super::run_args::ModelFlags,
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
        /// Workspace root (default: the nearest ancestor holding `.warden/`, else `.git`, else
        /// the current directory).
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
    /// List, show, export, verify, salvage, delete and prune sessions.
    Session {
        #[command(subcommand)]
        command: SessionCommand,
    },
    /// Show configuration, audit logs, and run an operator's first checks.
    #[command(flatten)]
    Operator(super::operator_args::OperatorCommand),
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
    /// Write a plugin project into ./NAME that builds out of the box.
    New {
        /// Project and crate name.
        name: String,
        /// The world the plugin implements.
        #[arg(long, value_enum)]
        world: super::plugin_new::NewWorld,
        /// The language.
        #[arg(long, value_enum, default_value = "rust")]
        lang: super::plugin_new::NewLang,
        /// Depend on the Rust SDK at this path instead of by version.
        #[arg(long, value_name = "DIR")]
        sdk_path: Option<PathBuf>,
    },
    /// Feed a plugin the inputs a recorded session saw; print what it would decide beside what
    /// the chain decided then. Nothing is committed.
    Replay {
        /// Session id.
        session: String,
        /// The component file.
        file: PathBuf,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Print only the points where the decision differs.
        #[arg(long)]
        diff: bool,
    },
    /// Time a plugin's call points on a synthetic turn (warm instance, fresh instance) and its
    /// start-up (warm compiled-code cache, cold).
    Bench {
        /// The component file.
        file: PathBuf,
        /// A config value for the plugin's `init` (repeatable).
        #[arg(long = "config", value_name = "KEY=VALUE")]
        config: Vec<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Write the sha256 of a configured plugin's file into the config file that declared it.
    Pin {
        /// The plugin's name in `[[plugins]]`.
        name: String,
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// List sessions, oldest first (those with nothing committed only with `--all`).
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// Also list sessions with no committed group.
        #[arg(long)]
        all: bool,
    },
    /// Delete a session (history, audit log and inbox).
    Delete {
        /// Session id.
        id: String,
    },
    /// Delete the sessions matching a criterion; each one deleted is printed.
    Prune {
        /// Sessions with no committed group.
        #[arg(long)]
        empty: bool,
        /// Sessions whose last activity is older than this many days.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
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
    /// Check the checksums and framing of one session, or of all; exit 1 if any is damaged.
    Verify {
        /// Session id (all sessions when omitted).
        id: Option<String>,
    },
    /// Copy the complete groups before a session's first damage into a new session; the
    /// original is left as it is.
    Salvage {
        /// Session id.
        id: String,
    },
}
