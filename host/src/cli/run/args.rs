//! Arguments of `warden run`, and the model flags `run` and `chat` share.

use std::path::PathBuf;

use clap::Args;

/// `warden run [-C DIR] [--session ID | --new-session NAME | --continue] [--json | --json-stream] [-v] PROMPT… | - | --file F`.
#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// Workspace root (default: the nearest ancestor holding `.warden/`, else `.git`, else the
    /// current directory). A resumed session always runs in the workspace it records.
    #[arg(short = 'C', value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
    /// Continue this existing session.
    #[arg(long, value_name = "ID", conflicts_with = "new_session")]
    pub(crate) session: Option<String>,
    /// Start a new session with this name.
    #[arg(long, value_name = "NAME")]
    pub(crate) new_session: Option<String>,
    /// Continue the most recent session of this workspace.
    #[arg(long = "continue", conflicts_with_all = ["session", "new_session"])]
    pub(crate) continue_last: bool,
    /// Start a child session of this existing one; the turn's end is reported to its inbox.
    #[arg(long, value_name = "ID", conflicts_with_all = ["session", "new_session", "continue_last"])]
    pub(crate) parent: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Print one JSON line per event of the turn as it happens (see `docs/events.md`).
    #[arg(long, conflicts_with = "json")]
    pub(crate) json_stream: bool,
    /// Approve every call that would ask: tool plugins marked `approve = "ask"`, and writes or
    /// commands the permission mode asks about (without it they are denied, and the model is
    /// told why).
    #[arg(long)]
    pub(crate) yes: bool,
    /// The permission mode for this run.
    #[command(flatten)]
    pub(crate) mode: crate::cli::mode::ModeFlag,
    /// Print the workspace root used and each tool call's outcome (on stderr).
    #[arg(short = 'v', long)]
    pub(crate) verbose: bool,
    /// Read the prompt from this file.
    #[arg(long, value_name = "FILE", conflicts_with = "prompt")]
    pub(crate) file: Option<PathBuf>,
    /// Provider and model for this run.
    #[command(flatten)]
    pub(crate) model: ModelFlags,
    /// The prompt (`-` reads it from stdin); `@path` mentions pull in files.
    #[arg(num_args = 1.., value_name = "PROMPT", required_unless_present = "file")]
    pub(crate) prompt: Vec<String>,
}

/// `--provider` and `--model`: override `model.provider` and `model.name` for one command
/// (unless managed policy locks them).
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ModelFlags {
    /// Model provider: `echo`, `anthropic` or `openai`.
    #[arg(long, value_name = "NAME")]
    pub(crate) provider: Option<String>,
    /// Model name as the provider knows it.
    #[arg(long, value_name = "NAME")]
    pub(crate) model: Option<String>,
}

impl ModelFlags {
    /// Apply the flags to `config`; a key locked by managed policy keeps its value and yields
    /// a warning, as the same setting in a config file would.
    pub(crate) fn apply(
        &self,
        config: &mut crate::config::Config,
    ) -> Result<Vec<String>, crate::cli::exit::CliError> {
        let mut warnings = Vec::new();
        let locked = |key: &str| {
            config
                .policy
                .locked
                .iter()
                .any(|l| key == l || key.starts_with(&format!("{l}.")))
        };
        let locked_provider = locked("model.provider");
        let locked_name = locked("model.name");
        if let Some(name) = &self.provider {
            let kind: crate::domain::ProviderKind =
                serde_json::from_value(serde_json::Value::String(name.clone())).map_err(|_| {
                    crate::cli::exit::CliError::usage(format!(
                        "unknown provider {name:?} (--provider): use echo, anthropic or openai"
                    ))
                })?;
            if locked_provider {
                warnings.push(
                    "--provider: `model.provider` is locked by managed policy; the flag was ignored"
                        .to_owned(),
                );
            } else {
                if kind != config.model.provider && !locked_name && self.model.is_none() {
                    // Another provider's model name would not make sense.
                    config.model.name = None;
                }
                config.model.provider = kind;
            }
        }
        if let Some(model) = &self.model {
            if locked_name {
                warnings.push(
                    "--model: `model.name` is locked by managed policy; the flag was ignored"
                        .to_owned(),
                );
            } else {
                config.model.name = Some(model.clone());
            }
        }
        Ok(warnings)
    }
}
