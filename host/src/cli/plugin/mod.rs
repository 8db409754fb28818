//! `warden plugin`: work on plugin components.
//!
//! - `args`: the subcommands ([`PluginCommand`]) and their dispatch.
//! - `check`: `plugin check`, a component's world, API version, sha256 and imports.
//! - `new`: `plugin new`, a plugin project from the templates in `templates/`.
//! - `replay`: `plugin replay`, a plugin's decisions on a recorded session.
//! - `bench`: `plugin bench`, what a plugin's call points and start-up cost.
//! - `clear_cache`: `plugin clear-cache`, the compiled-code cache emptied.
//! - `pin`: `plugin pin`, a plugin's sha256 written into the config file that declared it.

mod args;
mod bench;
mod check;
mod clear_cache;
mod new;
mod pin;
mod replay;

pub(super) use args::PluginCommand;
pub(crate) use clear_cache::mib;
