//! `warden session`: list, show, export, verify, salvage, delete and prune sessions, and which
//! session a command continues or creates.
//!
//! - `args`: the subcommands ([`SessionCommand`]) and their dispatch.
//! - `list`: `session list`.
//! - `show`: `session show` and `session export`, a session's history.
//! - `verify`: `session verify` and `session salvage`.
//! - `prune`: `session delete` and `session prune`.
//! - `target`: the session `run` continues or creates ([`target`]).
//! - `resolve`: [`resolve`], the id (full, or a unique prefix) every command taking a session
//!   id reads; an unknown id is a usage error naming the closest ones.
//! - `pick`: the numbered list `chat --resume` and `/resume` offer without an id.

mod args;
mod list;
mod pick;
mod prune;
mod resolve;
mod show;
mod target;
mod verify;

pub(super) use args::SessionCommand;
pub(super) use pick::{candidates, pick};
pub(super) use resolve::resolve;
pub(super) use target::{SessionChoice, target};

use crate::cli::exit::CliError;
use crate::store::StoreError;

fn not_found(err: StoreError) -> CliError {
    CliError::failure(err.to_string())
}
