//! The `warden` command line: argument parsing, logging set-up, and one module per command.
//! This is the front end: it is the one place that prints.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod audit;
mod chat;
mod colour;
mod common;
mod compact;
mod complete;
mod config_show;
mod doctor;
mod exit;
mod notify;
mod operator_args;
mod out;
mod plugin;
mod plugin_bench;
mod plugin_new;
mod plugin_pin;
mod plugin_replay;
mod preview;
mod progress;
mod prompt;
mod run;
mod run_args;
mod session;
mod session_prune;
mod session_target;
mod signals;
mod workspace;

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
    use args::{Command, PluginCommand, SessionCommand};
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
            continue_last,
            parent,
            model,
        } => {
            let resume = resume.map(|id| id.unwrap_or_default());
            chat::chat(
                dir.as_deref(),
                resume,
                continue_last,
                parent.as_deref(),
                &model,
            )
        }
        Command::Complete {
            dir,
            json,
            limit,
            query,
        } => complete::complete(dir.as_deref(), json, limit, &query.join(" ")),
        Command::Preview { dir, json, prompt } => {
            preview::preview(dir.as_deref(), json, &prompt.join(" "))
        }
        Command::Plugin {
            command: PluginCommand::Check { file, json },
        } => plugin::check(&file, json),
        Command::Plugin {
            command:
                PluginCommand::New {
                    name,
                    world,
                    lang,
                    sdk_path,
                },
        } => plugin_new::new(&name, world, lang, sdk_path.as_deref()),
        Command::Plugin {
            command:
                PluginCommand::Replay {
                    session,
                    file,
                    config,
                    json,
                    diff,
                },
        } => plugin_replay::replay(&session, &file, &config, json, diff),
        Command::Plugin {
            command: PluginCommand::Bench { file, config, json },
        } => plugin_bench::bench(&file, &config, json),
        Command::Plugin {
            command: PluginCommand::Pin { name, dir },
        } => plugin_pin::pin(&name, dir.as_deref()),
        Command::Session { command } => match command {
            SessionCommand::List { json, all } => session::list(json, all),
            SessionCommand::Show { id } => session::show(&id),
            SessionCommand::Export { id, as_sent } => session::export(&id, as_sent),
            SessionCommand::Delete { id } => session_prune::delete(&id),
            SessionCommand::Prune { empty, older_than } => session_prune::prune(empty, older_than),
            SessionCommand::Verify { id } => session::verify(id.as_deref()),
            SessionCommand::Salvage { id } => session::salvage(&id),
        },
        Command::Operator(command) => command.run(),
        Command::Compact { dir, session } => compact::compact(dir.as_deref(), &session),
        Command::Notify { session, text } => notify::notify(&session, &text.join(" ")),
    }
}

/// Logs go to stderr, filtered by `WARDEN_LOG` (default: warnings), coloured only on a
/// terminal and never under `NO_COLOR`.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WARDEN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour::stderr_colour())
        .with_target(false)
        .try_init();
}
