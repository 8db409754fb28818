//! `warden plugin`: work on plugin components.
//!
//! - `args`: the subcommands ([`PluginCommand`]) and their dispatch.
//! - `check`: `plugin check`, a component's world, API version, sha256 and imports.
//! - `new`: `plugin new`, a plugin project from the templates in `templates/`.
//! - `replay`: `plugin replay`, a plugin's decisions on a recorded session.
//! - `bench`: `plugin bench`, what a plugin's call points and start-up cost.
//! - `pin`: `plugin pin`, a plugin's sha256 written into the config file that declared it.
//! - `push`, `add`, `update`, `remove`: plugins distributed through OCI registries
//!   (`docs/distribution.md`); `oci_common` holds what they share.

mod add;
mod args;
mod bench;
mod check;
mod new;
mod oci_common;
mod pin;
mod push;
mod remove;
mod replay;
mod update;

pub(super) use args::PluginCommand;
