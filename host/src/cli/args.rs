//! Command-line arguments: the top-level commands. A command group's subcommands are in its
//! folder (`plugin/args.rs`, `session/args.rs`, `operator/args.rs`, `run/args.rs`).

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// `warden --version`: the crate version, the commit it was built from (`unknown` outside a
/// git checkout) and the `warden:plugin` WIT versions it loads.
pub(crate) const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (commit ",
    env!("WARDEN_COMMIT"),
    ")\nwarden:plugin WIT ",
    env!("WARDEN_WIT_VERSIONS")
);

/// warden: an LLM agent's worker loop with sandboxed WebAssembly plugins.
#[derive(Debug, Parser)]
#[command(name = "warden", version = VERSION, about, after_help = super::exit::EXIT_CODES_HELP)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run one turn: the answer goes to stdout, alerts to stderr.
    Run(super::run::RunArgs),
    /// Talk with the model interactively, with `@` completion and slash commands.
    Chat {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Resume session ID, or a unique prefix of one (without ID: pick from a list).
        #[arg(long, value_name = "ID", num_args = 0..=1)]
        resume: Option<Option<String>>,
        /// On resume, do not show the last exchanges.
        #[arg(long)]
        no_history: bool,
        /// Continue the most recent session of this workspace.
        #[arg(long = "continue", conflicts_with = "resume")]
        continue_last: bool,
        /// Start a child session of this existing one; each turn's end is reported to it.
        #[arg(long, value_name = "ID", conflicts_with_all = ["resume", "continue_last"])]
        parent: Option<String>,
        /// Provider and model for this chat.
        #[command(flatten)]
        model: super::run::ModelFlags,
        /// The permission mode for this chat.
        #[command(flatten)]
        mode: super::mode::ModeFlag,
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
        /// Print whole item bodies (by default each item's header, size and first line).
        #[arg(long)]
        full: bool,
        /// The prompt.
        #[arg(required = true, num_args = 1.., value_name = "PROMPT")]
        prompt: Vec<String>,
    },
    /// Trust this workspace's project configuration to run the plugins (and resolver) it
    /// declares, as declared now; `--revoke` removes that trust.
    Trust {
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Workspace root, as an argument: `warden trust .` is `warden trust -C .`.
        #[arg(value_name = "DIR", conflicts_with = "dir")]
        root: Option<PathBuf>,
        /// Remove the trust instead.
        #[arg(long)]
        revoke: bool,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// The `[[rules]]` in force: how a command would be judged.
    Rules {
        #[command(subcommand)]
        command: super::rules::RulesCommand,
    },
    /// Inspect plugin components.
    Plugin {
        #[command(subcommand)]
        command: super::plugin::PluginCommand,
    },
    /// The Model Context Protocol: `list` the configured servers, `serve` warden's tools.
    Mcp {
        #[command(subcommand)]
        command: super::mcp::McpCommand,
    },
    /// Serve an editor (Zed, JetBrains, Neovim, Emacs) as an Agent Client Protocol agent on
    /// stdin and stdout (see docs/editors.md).
    Acp(super::acp::AcpArgs),
    /// Command hooks written for Claude Code and Codex: `import` them as `[[hooks]]` entries.
    Hooks {
        #[command(subcommand)]
        command: super::hooks::HooksCommand,
    },
    /// List, show, export, verify, salvage, delete and prune sessions.
    Session {
        #[command(subcommand)]
        command: super::session::SessionCommand,
    },
    /// Show configuration, audit logs, and run an operator's first checks.
    #[command(flatten)]
    Operator(super::operator::OperatorCommand),
    /// Replace what a session's next request is built from by a summary and current copies of
    /// the files it referenced (history keeps everything).
    Compact {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Session id.
        session: String,
    },
    /// Put back the files the last turns' write_file/edit_file calls changed.
    Undo {
        /// Workspace directory (default: the current directory).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Session id (default: the most recent session of this workspace).
        #[arg(long, value_name = "ID")]
        session: Option<String>,
        /// How many turns to undo, newest first.
        #[arg(long, value_name = "N", default_value_t = 1)]
        turns: usize,
        /// Restore files changed since the turn too.
        #[arg(long)]
        force: bool,
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
