//! `--mode MODE` (`run`, `chat`) and `/mode MODE` (chat): a permission mode asked for by the
//! person, held to managed policy — refused above `policy.max_mode` or against a lock on
//! `tools.mode`, naming the managed file and key, never narrowed silently.

use clap::Args;

use crate::cli::exit::CliError;
use crate::config::Loaded;
use crate::domain::Mode;

/// `--mode`: the permission mode for this command.
#[derive(Debug, Args, Default, Clone)]
pub(crate) struct ModeFlag {
    /// Permission mode: `read-only` (writes and commands denied), `ask` (both ask), `auto-edit`
    /// (writes run, commands ask) or `full-auto` (both run). Default: `[tools] mode`, else `ask`.
    #[arg(long, value_name = "MODE", value_parser = parse_mode)]
    pub(crate) mode: Option<Mode>,
}

fn parse_mode(text: &str) -> Result<Mode, String> {
    text.parse::<Mode>().map_err(|err| err.to_string())
}

impl ModeFlag {
    /// Apply the flag to `loaded` (exit 2 when managed policy refuses it).
    pub(crate) fn apply(&self, loaded: &mut Loaded) -> Result<(), CliError> {
        if let Some(mode) = self.mode {
            allowed(loaded, mode, "--mode").map_err(CliError::usage)?;
            loaded.config.tools.mode = mode;
        }
        Ok(())
    }
}

pub(crate) use crate::front::mode::allowed;
