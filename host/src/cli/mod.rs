//! The `warden` command line: argument parsing, logging set-up, and one module per command.
//! This is the front end: it is the one place that prints.
//!
//! - `args`: the top-level commands, parsed and dispatched here.
//! - `run/`: `run` (one turn) and `preview`, with the prompt reading and model flags they share.
//! - `chat/`: `chat`, the interactive front end; `acp`: `warden acp`, the editor's (its
//!   protocol mapping is `crate::acp`; what the two share is `crate::front`).
//! - `plugin/`: `plugin check | new | replay | bench | pin`.
//! - `session/`: `session list | show | export | verify | salvage | delete | prune`, and the
//!   session a command continues or creates.
//! - `operator/`: `config show`, `audit` and `doctor`.
//! - `mcp/`: `mcp serve` (warden's tools over MCP).
//! - `trust/`: `trust`, and the configuration the commands that run plugins use (the
//!   project's plugins only in a trusted workspace).
//! - `mcp/`: `mcp list`, the configured MCP servers' state and tools; `mcp add`, an entry
//!   written into a layer's file.
//! - `complete`, `compact`, `notify`: the command of that name.
//! - Shared by the commands: `common` (environment, configuration, alerts), `config_file` (the
//!   user and project files a command edits: `plugin add`, `mcp add`), `mode` (the `--mode`
//!   flag), `exit` (exit
//!   codes, [`CliError`]), `out` (stdout that survives a closed
//!   pipe), `colour`, `signals`.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod acp;
mod args;
mod chat;
mod colour;
mod common;
mod compact;
mod compile_notice;
mod complete;
mod config_file;
mod dev_writes;
mod exit;
mod hooks;
mod mcp;
mod mode;
mod notify;
mod operator;
mod out;
mod plugin;
mod rules;
mod run;
mod session;
mod signals;
mod tracked_denied;
mod trust;
pub(crate) mod undo;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

use crate::config;

pub use exit::{CliError, EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Entry point of the binary: the system managed file is [`config::SYSTEM_MANAGED_PATH`].
pub fn main() -> ExitCode {
    main_with_system_managed(PathBuf::from(config::SYSTEM_MANAGED_PATH))
}

/// Entry point with the system managed file at `system_managed` instead of
/// `/etc/warden/managed.toml`. The `warden` binary never calls it; the test build of the
/// command line does, so that tests can put a system policy in place without writing to `/etc`.
pub fn main_with_system_managed(system_managed: PathBuf) -> ExitCode {
    // The `shell` tool's sandbox launcher (hidden): first, while this process has one thread.
    if std::env::args_os().nth(1).as_deref()
        == Some(std::ffi::OsStr::new(crate::sandbox::LAUNCHER_SUBCOMMAND))
    {
        let code = crate::sandbox::launcher_main();
        return ExitCode::from(u8::try_from(code).unwrap_or(1));
    }
    common::set_system_managed(system_managed);
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() {
                EXIT_USAGE
            } else {
                EXIT_OK
            };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    init_tracing();
    signals::ignore_file_size_signal();
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("warden: {}", crate::domain::escape::terminal(&err.message));
            ExitCode::from(err.code)
        }
    }
}

fn dispatch(cli: args::Cli) -> Result<u8, CliError> {
    use args::Command;
    compile_notice::enable_for(&cli.command);
    match cli.command {
        Command::Run(mut args) => {
            if args.continue_last {
                args.session = common::continue_target(args.dir.as_deref(), None, true)?;
            }
            run::run(args)
        }
        Command::Chat {
            dir,
            resume,
            no_history,
            continue_last,
            parent,
            model,
            mode,
        } => {
            let resume = resume.map(|id| id.unwrap_or_default());
            chat::chat(
                dir.as_deref(),
                resume,
                continue_last,
                parent.as_deref(),
                !no_history,
                &model,
                &mode,
            )
        }
        Command::Complete {
            dir,
            json,
            limit,
            query,
        } => complete::complete(dir.as_deref(), json, limit, &query.join(" ")),
        Command::Preview {
            dir,
            json,
            full,
            prompt,
        } => run::preview(dir.as_deref(), json, full, &prompt.join(" ")),
        Command::Trust {
            dir,
            root,
            revoke,
            json,
        } => trust::trust_command(dir.or(root).as_deref(), revoke, json),
        Command::Rules { command } => command.run(),
        Command::Plugin { command } => command.run(),
        Command::Mcp { command } => command.run(),
        Command::Acp(args) => acp::acp(&args),
        Command::Hooks { command } => command.run(),
        Command::Session { command } => command.run(),
        Command::Operator(command) => command.run(),
        Command::Compact { dir, session } => compact::compact(dir.as_deref(), &session),
        Command::Undo {
            dir,
            session,
            turns,
            force,
        } => undo::undo(dir.as_deref(), session.as_deref(), turns, force),
        Command::Notify { session, text } => notify::notify(&session, &text.join(" ")),
    }
}

/// Logs go to stderr, filtered by `WARDEN_LOG` (default: warnings), coloured only on a
/// terminal and never under `NO_COLOR`.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WARDEN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    use tracing_subscriber::Layer as _;
    use tracing_subscriber::layer::SubscriberExt as _;
    use tracing_subscriber::util::SubscriberInitExt as _;
    let fmt = tracing_subscriber::fmt::layer()
        .with_writer(std::io::stderr)
        .with_ansi(colour::stderr_colour())
        .with_target(false)
        .with_filter(filter);
    let _ = tracing_subscriber::registry().with(fmt).try_init();
}
