//! Arguments of the operator's commands (`config show`, `audit`, `audit verify`, `doctor`) and their dispatch.

use std::path::PathBuf;

use clap::Subcommand;

/// Commands an operator runs to see what warden does and why.
#[derive(Debug, Subcommand)]
pub(crate) enum OperatorCommand {
    /// Show the effective configuration.
    Config {
        #[command(subcommand)]
        command: ConfigCommand,
    },
    /// Show what left the machine, per turn: files, plugin decisions, model requests.
    #[command(args_conflicts_with_subcommands = true)]
    Audit {
        #[command(subcommand)]
        command: Option<AuditCommand>,
        /// One session (default: every session).
        id: Option<String>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Only turns at or after this time (RFC 3339, e.g. `2026-01-31T09:00:00Z`).
        #[arg(long, value_name = "TIME")]
        since: Option<String>,
    },
    /// Check configuration, plugins, provider and state directory; exit 1 if a check fails.
    Doctor {
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Also probe the model provider (one small request, 3-second limit).
        #[arg(long)]
        network: bool,
    },
}

/// `warden audit …`.
#[derive(Debug, Subcommand)]
pub(crate) enum AuditCommand {
    /// Check each audit log's hash chain; exit 1 at the first record edited, removed,
    /// reordered or out of chain.
    Verify {
        /// One session (default: every session of the workspace).
        id: Option<String>,
        /// Every session, of any workspace.
        #[arg(long, conflicts_with = "id")]
        all: bool,
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// Also require each log to hold the head signed by this public key (a key file or
        /// `ed25519:BASE64`) with `audit sign`.
        #[arg(long, value_name = "PUB")]
        key: Option<String>,
    },
    /// Sign the chain head of each intact audit log with an operator's secret key (as made by
    /// `warden plugin keygen`), into the session's `audit.sig`.
    Sign {
        /// One session (default: every session of the workspace).
        id: Option<String>,
        /// Every session, of any workspace.
        #[arg(long, conflicts_with = "id")]
        all: bool,
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// The secret key file.
        #[arg(long, value_name = "SECRET")]
        key: PathBuf,
    },
}

/// `warden config …`.
#[derive(Debug, Subcommand)]
pub(crate) enum ConfigCommand {
    /// Every effective value, the layer it came from, and which keys are locked.
    Show {
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
}

impl OperatorCommand {
    /// Run the command.
    pub(crate) fn run(self) -> Result<u8, crate::cli::CliError> {
        match self {
            Self::Config {
                command: ConfigCommand::Show { dir, json },
            } => super::config_show::show(dir.as_deref(), json),
            Self::Audit {
                command:
                    Some(AuditCommand::Verify {
                        id,
                        all,
                        dir,
                        json,
                        key,
                    }),
                ..
            } => super::audit_verify::verify(
                super::audit_verify::Which {
                    id: id.as_deref(),
                    all,
                    dir: dir.as_deref(),
                },
                json,
                key.as_deref(),
            ),
            Self::Audit {
                command: Some(AuditCommand::Sign { id, all, dir, key }),
                ..
            } => super::audit_verify::sign(
                super::audit_verify::Which {
                    id: id.as_deref(),
                    all,
                    dir: dir.as_deref(),
                },
                &key,
            ),
            Self::Audit {
                command: None,
                id,
                json,
                since,
            } => super::audit::audit(id.as_deref(), json, since.as_deref()),
            Self::Doctor { dir, network } => super::doctor::doctor(dir.as_deref(), network),
        }
    }
}
