//! `warden mcp serve [-C DIR] [--http ADDR] [--mode MODE] [--yes]`: warden's tools and
//! workspace files served over MCP, on stdio or Streamable HTTP on a loopback address. The
//! configuration is loaded as `warden run` loads it, except that a project whose code is not
//! trusted runs without it (one warning): nobody can be asked on stdio.

use std::path::PathBuf;

use clap::Args;

use crate::cli::common::{env, home};
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::front::workspace::Workspace;
use crate::serve::{self, ServeError, ServeOptions};

/// Arguments of `warden mcp serve`.
#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Workspace root (default: as for `run`).
    #[arg(short = 'C', value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Serve Streamable HTTP on this loopback address (`127.0.0.1:PORT`, `[::1]:PORT`,
    /// `localhost:PORT`; port 0 picks one) instead of stdio; the address bound is printed on
    /// stderr.
    #[arg(long, value_name = "ADDR")]
    http: Option<String>,
    /// Approve every call that would ask (the mode, a plugin's `approve = "ask"`) instead of
    /// asking the client.
    #[arg(long)]
    yes: bool,
    /// The permission mode for the calls served.
    #[command(flatten)]
    mode: crate::cli::mode::ModeFlag,
}

fn serve_error(err: ServeError) -> CliError {
    if err.is_usage() {
        CliError::usage(err.to_string())
    } else {
        CliError::failure(err.to_string())
    }
}

/// Serve until the client leaves (stdio) or the process is stopped (HTTP).
pub(crate) fn serve(args: ServeArgs) -> Result<u8, CliError> {
    // The address is checked before anything is loaded.
    if let Some(addr) = &args.http {
        serve::check_http_address(addr).map_err(serve_error)?;
    }
    let home = home()?;
    let workspace = Workspace::find(args.dir.as_deref())?;
    let mut loaded = load_config_trusted(&workspace.root, &home, WhenWaiting::LeaveOut)?;
    crate::cli::run::check_unattended(args.yes, &loaded)?;
    args.mode.apply(&mut loaded)?;
    let options = ServeOptions {
        config: loaded.config,
        workspace: workspace.root.clone(),
        home,
        yes: args.yes,
        env,
    };
    let mode = options.config.tools.mode;
    let root = workspace.root.display().to_string();
    match &args.http {
        Some(addr) => serve::serve_http(options, addr, |session, bound| {
            eprintln!(
                "warden: serving MCP on http://{bound}/mcp (workspace {root}, mode {mode}, session {session})"
            );
        }),
        None => serve::serve_stdio(options, |session| {
            eprintln!(
                "warden: serving MCP on stdio (workspace {root}, mode {mode}, session {session})"
            );
        }),
    }
    .map_err(serve_error)?;
    Ok(EXIT_OK)
}
