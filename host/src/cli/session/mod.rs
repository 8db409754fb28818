//! `warden session`: list, show, export, verify, salvage, delete and prune sessions, and which
//! session a command continues or creates.
//!
//! - `args`: the subcommands ([`SessionCommand`]) and their dispatch.
//! - `list`: `session list`.
//! - `show`: `session show` and `session export`, a session's history.
//! - `verify`: `session verify` and `session salvage`.
//! - `prune`: `session delete` and `session prune`.
//! - `target`: the session `run` continues or creates ([`target`]), and [`existing`], the check
//!   every command taking a session id makes.

mod args;
mod list;
mod prune;
mod show;
mod target;
mod verify;

pub(super) use args::SessionCommand;
pub(super) use target::{SessionChoice, existing, target};

use crate::cli::exit::CliError;
use crate::store::StoreError;

fn not_found(err: StoreError) -> CliError {
    CliError::failure(err.to_string())
}
