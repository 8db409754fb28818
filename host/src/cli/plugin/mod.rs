//! `warden plugin`: work on plugin components.
//!
//! - `args`: the subcommands ([`PluginCommand`]) and their dispatch.
//! - `check`: `plugin check`, a component's world, API version, sha256 and imports.
//! - `new`: `plugin new`, a plugin project from the templates in `templates/`.
//! - `vendor`: the Rust SDK this binary carries, as `plugin new` writes it into a project.
//! - `replay`: `plugin replay`, a plugin's decisions on a recorded session.
//! - `shadow_report`: `plugin shadow-report`, where a shadow interceptor disagreed.
//! - `call`: `plugin call`, one call of one point, its answer printed.
//! - `bench`, `bench_tool`: `plugin bench`, what a plugin's call points and start-up cost.
//! - `dev`: `plugin dev`, a build under development loaded for this user through the dev
//!   overlay, watched.
//! - `project_name`: the name a build is loaded under by default: its project's.
//! - `dev_resolver`: `plugin dev` for a resolver, loaded as this user's `fileref.resolver`.
//! - `configured`: the `[[plugins]]` entry (and its config) `bench`, `replay` and `dev` use.
//! - `list`: `plugin list`, the configured plugins, or (`--builtin`) those the binary carries.
//! - `lockfile`: the lock file `plugin new` writes beside the SDK it carries.
//! - `clear_cache`: `plugin clear-cache`, the compiled-code cache emptied.
//! - `pin`: `plugin pin`, a plugin's sha256 written into the config file that declared it.
//! - `package`: `plugin package`, the standard metadata sections written into a component.
//! - `keygen`, `sign`, `verify`: `plugin keygen | sign | verify`, embedded Ed25519 signatures.
//! - `admit`: managed policy (`allowed_sources`, `require_signed`) at the commands that
//!   fetch or write plugin entries.
//! - `previous_pin`, `rollback`: the pin an update replaced, and `plugin update --rollback`.
//! - `trust_next`: whether a project must be trusted again after an update or rollback.
//! - `fetch`: `plugin fetch`, the pinned components of `oci://` entries into the cache.
//! - `push`, `add`, `update`, `remove`: plugins distributed through OCI registries
//!   (`docs/distribution.md`); `oci_common` holds what they share.

mod add;
mod admit;
mod args;
mod bench;
mod bench_tool;
mod call;
mod check;
mod clear_cache;
mod configured;
mod dev;
mod dev_resolver;
mod fetch;
mod keygen;
mod list;
mod lockfile;
mod new;
mod oci_common;
mod package;
mod pin;
mod previous_pin;
mod project_name;
mod push;
mod remove;
mod replay;
mod rollback;
mod shadow_report;
mod sign;
mod trust_next;
mod update;
mod vendor;
mod verify;

pub(super) use args::PluginCommand;
pub(crate) use clear_cache::mib;
