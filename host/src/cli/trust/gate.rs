//! The configuration a command that runs plugins uses (`front::trust_gate`): `warden run`,
//! `preview` and `compact` refuse (exit 2) while code waits for trust, and run without the
//! project's code and settings, with one warning naming them, when only settings wait;
//! `warden chat` asks on the terminal; `warden mcp serve` runs without the project's code,
//! with one warning.

use std::io::{BufRead, IsTerminal};
use std::path::Path;

use crate::cli::common::{print_alert, print_config_warnings};
use crate::cli::exit::CliError;
use crate::config::Loaded;
pub(crate) use crate::front::trust_gate::change_lines;
use crate::front::trust_gate::{self, question_header};
use crate::setup::trust::Pending;
use crate::store::Home;

/// What a command does while trust is waiting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum WhenWaiting {
    /// Exit 2 naming what waits and `warden trust -C ROOT`.
    Refuse,
    /// Show what is new or changed and ask y/N on the terminal.
    Ask,
    /// Run without the project's code, with one warning (`warden mcp serve`: its stdin is the
    /// protocol, nobody can be asked).
    LeaveOut,
}

/// The layered configuration for `workspace`, with the project's code only if it is trusted;
/// its warnings are printed as alerts.
pub(crate) fn load_config_trusted(
    workspace: &Path,
    home: &Home,
    when: WhenWaiting,
) -> Result<Loaded, CliError> {
    let mut terminal = ask;
    let when = match when {
        WhenWaiting::Refuse => trust_gate::WhenWaiting::Refuse,
        WhenWaiting::Ask => trust_gate::WhenWaiting::Ask(&mut terminal),
        WhenWaiting::LeaveOut => trust_gate::WhenWaiting::LeaveOut,
    };
    match trust_gate::load_trusted(workspace, home, when) {
        Ok(gated) => {
            print_config_warnings(&gated.warnings);
            if let Some(alert) = &gated.alert {
                print_alert(alert);
            }
            Ok(gated.loaded)
        }
        Err(refused) => {
            print_config_warnings(&refused.warnings);
            Err(refused.error.into())
        }
    }
}

/// Show what waits for trust and read y/N from the terminal (anything else, end of input or
/// no terminal: no).
fn ask(pending: &Pending) -> bool {
    eprintln!("{}", question_header(pending));
    for line in change_lines(pending, false) {
        eprintln!("{line}");
    }
    if !std::io::stdin().is_terminal() {
        eprintln!("not asked: standard input is not a terminal");
        return false;
    }
    eprint!("trust it and load it? [y/N] ");
    let mut line = String::new();
    match std::io::stdin().lock().read_line(&mut line) {
        Ok(0) | Err(_) => false,
        Ok(_) => matches!(line.trim().to_ascii_lowercase().as_str(), "y" | "yes"),
    }
}
