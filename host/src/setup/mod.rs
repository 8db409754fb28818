//! The assembly layer, above the worker and below the CLI: a [`Worker`](crate::worker::Worker)
//! built from configuration — the plugin engine with its compiled-code cache, the resolver,
//! interceptors, hooks, the tool registry, the model provider and the session.
//!
//! - `open`: the standard assembly ([`open()`], and its parts for `preview`).
//! - `mcp`: the `[[mcp]]` servers started, their tools registered and their resources in
//!   front of the resolver ([`start_mcp`], [`add_mcp`]).
//! - [`provider`]: configuration and environment → a model provider.
//! - [`trust`]: whether a workspace's project plugins may load (`warden trust`).

mod mcp;
mod open;
pub mod plugin_policy;
pub mod provider;
pub mod trust;

pub use mcp::{add_mcp, mcp_options, start_mcp};
pub use open::{
    LoadedPlugins, SetupError, builtin_tools, check_sign_key, engine, engine_for, open, open_child,
    plugins, resolver, tool_plugins, tool_registry, workspace_root,
};
