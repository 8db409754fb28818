//! The `warden` command line: argument parsing, logging set-up, and one module per command.
//! This is the front end: it is the one place that prints.

#![allow(clippy::print_stdout, clippy::print_stderr)]

mod args;
mod exit;
mod plugin;

use std::process::ExitCode;

use clap::Parser;

pub use exit::{CliError, EXIT_CANCELLED, EXIT_FAILURE, EXIT_USAGE};

/// Entry point of the binary.
pub fn main() -> ExitCode {
    let cli = match args::Cli::try_parse() {
        Ok(cli) => cli,
        Err(err) => {
            let code = if err.use_stderr() { EXIT_USAGE } else { 0 };
            let _ = err.print();
            return ExitCode::from(code);
        }
    };
    init_tracing();
    match run(cli) {
        Ok(code) => ExitCode::from(code),
        Err(err) => {
            eprintln!("warden: {}", err.message);
            ExitCode::from(err.code)
        }
    }
}

fn run(cli: args::Cli) -> Result<u8, CliError> {
    match cli.command {
        args::Command::Plugin {
            command: args::PluginCommand::Check { file, json },
        } => plugin::check(&file, json),
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
