//! Which commands print the one-line notice while a large plugin component compiles for the
//! first time (`compiling NAME (18.3 MB), once; later starts use the cache`, on stderr): those
//! whose output a person reads. Not `--json` (a program reads it), not the full-screen chat,
//! not `plugin bench` (it times the cold compile itself).

use super::args::Command;
use super::operator::OperatorCommand;
use super::plugin::PluginCommand;

/// Turn the notice on for `command` when a person reads its output.
pub(super) fn enable_for(command: &Command) {
    if wanted(command) {
        crate::plugin::announce_slow_compiles(print);
    }
}

fn print(line: &str) {
    eprintln!("{line}");
}

fn wanted(command: &Command) -> bool {
    match command {
        Command::Run(args) => !args.json,
        Command::Preview { json, .. } => !json,
        Command::Plugin {
            command: PluginCommand::Check { json, .. } | PluginCommand::Replay { json, .. },
        } => !json,
        Command::Operator(OperatorCommand::Doctor { .. }) => true,
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::args::Cli;

    fn wanted_for(args: &[&str]) -> bool {
        let cli = Cli::try_parse_from(args).unwrap();
        wanted(&cli.command)
    }

    #[test]
    fn only_commands_a_person_reads_print_the_notice() {
        assert!(wanted_for(&["warden", "run", "hello"]));
        assert!(!wanted_for(&["warden", "run", "--json", "hello"]));
        assert!(wanted_for(&["warden", "preview", "hello"]));
        assert!(!wanted_for(&["warden", "preview", "--json", "hello"]));
        assert!(wanted_for(&["warden", "plugin", "replay", "s", "p.wasm"]));
        assert!(!wanted_for(&["warden", "plugin", "bench", "p.wasm"]));
        assert!(!wanted_for(&["warden", "chat"]));
    }
}
