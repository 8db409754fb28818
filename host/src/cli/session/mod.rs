//! `warden session`: list, show, export, verify, salvage, delete and prune sessions, and which
//! session a command continues or creates.
//!
//! - `args`: the subcommands ([`SessionCommand`]) and their dispatch.
//! - `list`: `session list`, `show`, `export`, `verify` and `salvage`.
//! - `prune`: `session delete` and `session prune`.
//! - `target`: the session `run` continues or creates ([`target`]), and [`existing`], the check
//!   every command taking a session id makes.

mod args;
mod list;
mod prune;
mod target;

pub(super) use args::SessionCommand;
pub(super) use target::{SessionChoice, existing, target};
