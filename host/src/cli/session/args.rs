//! Arguments of `warden session list | show | export | verify | salvage | delete | prune`, and
//! their dispatch.

use clap::Subcommand;

use crate::cli::CliError;

#[derive(Debug, Subcommand)]
pub(crate) enum SessionCommand {
    /// List sessions, oldest first, with the workspace of each (those with nothing committed
    /// only with `--all`).
    List {
        /// Print a JSON array.
        #[arg(long)]
        json: bool,
        /// Also list sessions with no committed group.
        #[arg(long)]
        all: bool,
        /// Only the sessions of this workspace (the one holding DIR).
        #[arg(short = 'C', long = "workspace", value_name = "DIR")]
        workspace: Option<std::path::PathBuf>,
        /// Only the sessions whose prompts contain TEXT (any case).
        #[arg(long, value_name = "TEXT")]
        grep: Option<String>,
    },
    /// Delete a session (history, audit log and inbox).
    Delete {
        /// Session id (or a unique prefix of one).
        id: String,
    },
    /// Delete the sessions matching a criterion, after listing them and asking (or with
    /// `--yes`); sessions in use are skipped and named.
    Prune {
        /// Sessions with no committed group.
        #[arg(long)]
        empty: bool,
        /// Sessions whose last activity is older than this many days.
        #[arg(long, value_name = "DAYS")]
        older_than: Option<u64>,
        /// Only list the sessions that would be deleted.
        #[arg(long, conflicts_with = "yes")]
        dry_run: bool,
        /// Delete without asking (required when there is no terminal to ask on).
        #[arg(long, short = 'y')]
        yes: bool,
    },
    /// Print a session's history for a person.
    Show {
        /// Session id (or a unique prefix of one).
        id: String,
    },
    /// Print a session's history as `history.json` (an array of items).
    Export {
        /// Session id (or a unique prefix of one).
        id: String,
        /// Only what the next request would contain (from the latest compaction on).
        #[arg(long)]
        as_sent: bool,
    },
    /// Check the checksums and framing of one session, or of all; exit 1 if any is damaged.
    Verify {
        /// Session id or a unique prefix (all sessions when omitted).
        id: Option<String>,
    },
    /// Copy the complete groups before a session's first damage into a new session; the
    /// original is left as it is.
    Salvage {
        /// Session id (or a unique prefix of one).
        id: String,
    },
}

impl SessionCommand {
    /// Run the command.
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::List {
                json,
                all,
                workspace,
                grep,
            } => super::list::list(&super::list::ListArgs {
                json,
                all,
                workspace: workspace.as_deref(),
                grep: grep.as_deref(),
            }),
            Self::Show { id } => super::show::show(&id),
            Self::Export { id, as_sent } => super::show::export(&id, as_sent),
            Self::Delete { id } => super::prune::delete(&id),
            Self::Prune {
                empty,
                older_than,
                dry_run,
                yes,
            } => super::prune::prune(super::prune::PruneArgs {
                empty,
                older_than_days: older_than,
                dry_run,
                yes,
            }),
            Self::Verify { id } => super::verify::verify(id.as_deref()),
            Self::Salvage { id } => super::verify::salvage(&id),
        }
    }
}
