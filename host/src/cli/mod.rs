//! The `warden` command line: argument parsing, logging set-up, and one module per command.
//! This is the front end: it is the one place that prints.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod common;
mod compact;
mod exit;
mod notify;
mod out;
mod plugin;
mod preview;
mod run;
mod session;

use std::process::ExitCode;

use clap::Parser;

pub use exit::{CliError, EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK, EXIT_USAGE};

/// Entry point of the binary.
pub fn main() -> ExitCode {
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
    match dispatch(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("warden: {}", err.message);
            ExitCode::from(err.code)
        }
    }
}

fn dispatch(cli: args::Cli) -> Result<u8, CliError> {
    use args::{Command, PluginCommand, SessionCommand};
    match cli.command {
        Command::Run {
            dir,
            session,
            parent,
            json,
            prompt,
        } => {
            let target = match parent.as_deref() {
                Some(parent) => run::Target::ChildOf(parent),
                None => run::Target::Session(session.as_deref()),
            };
            run::run(dir.as_deref(), target, json, &prompt.join(" "))
        }
        Command::Preview { dir, json, prompt } => {
            preview::preview(dir.as_deref(), json, &prompt.join(" "))
        }
        Command::Plugin {
            command: PluginCommand::Check { file, json },
        } => plugin::check(&file, json),
        Command::Session { command } => match command {
            SessionCommand::List { json } => session::list(json),
            SessionCommand::Show { id } => session::show(&id),
            SessionCommand::Export { id, as_sent } => session::export(&id, as_sent),
        },
        Command::Compact { dir, session } => compact::compact(dir.as_deref(), &session),
        Command::Notify { session, text } => notify::notify(&session, &text.join(" ")),
    }
}

/// Logs go to stderr, filtered by `WARDEN_LOG` (default: warnings).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("WARDEN_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .try_init();
}
