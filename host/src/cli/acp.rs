//! `warden acp [--mode MODE] [--ask-timeout SECS]`: warden for an editor, as an Agent Client
//! Protocol agent on stdin and stdout (`acp/`). Nothing but the protocol is written to stdout;
//! what goes wrong before the connection starts is said on stderr with exit 2.

use std::time::Duration;

use clap::Args;

use super::common::{home, start_telemetry};
use super::exit::{CliError, EXIT_OK};
use crate::acp::{AcpOptions, serve};

/// Default wait for the editor's answer to a question, in seconds.
const ASK_TIMEOUT_S: u64 = 600;

/// `warden acp`.
#[derive(Debug, Args)]
pub(crate) struct AcpArgs {
    /// The permission mode every session starts in (the editor can change it, within managed
    /// policy). Default: `[tools] mode`, else `ask`.
    #[command(flatten)]
    mode: super::mode::ModeFlag,
    /// How long an approval question waits for the editor's answer before the call is not run.
    #[arg(long, value_name = "SECS", default_value_t = ASK_TIMEOUT_S,
          value_parser = clap::value_parser!(u64).range(1..=86_400))]
    ask_timeout: u64,
}

/// Serve the editor until it closes the connection.
pub(crate) fn acp(args: &AcpArgs) -> Result<u8, CliError> {
    let home = home()?;
    // Telemetry as the user's and the managed configuration say: one export for the process,
    // whatever workspaces its sessions are in (warden's own state directory stands in for a
    // workspace, so that no project layer is read).
    let user = crate::config::load_without_project_code(&super::common::sources(home.root()))
        .map(|loaded| loaded.config.telemetry)
        .unwrap_or_default();
    let _telemetry = start_telemetry(&user, &home);
    serve(AcpOptions {
        home,
        mode: args.mode.mode,
        ask_timeout: Duration::from_secs(args.ask_timeout),
    })
    .map_err(CliError::failure)?;
    Ok(EXIT_OK)
}
