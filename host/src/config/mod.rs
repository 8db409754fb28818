//! Layered TOML configuration: built-in defaults < user < project < managed.
//!
//! - [`load`]: reading and merging the layers into a [`Loaded`] configuration.
//! - [`managed`]: which managed file is in force ([`ManagedSource`]), read so that a broken
//!   policy fails closed.
//! - [`locks`]: the keys `policy.locked` may name ([`LOCKABLE_KEYS`]) and [`LockedKey`].
//! - [`schema`]: the configuration types and their defaults; [`grants`]: what a tool plugin
//!   may reach; `tool_policy`: grant keys checked, and held to `policy.max_tool_grants`;
//!   `project_grants`: the default ceiling on a project's tool grants
//!   (`policy.project_tool_grants`) and the variables no layer may grant.
//! - `plugin_source`: `source = "oci://…"` in a `[[plugins]]` entry ([`OciReference`]) and
//!   where its component sits in the local cache ([`cached_component`]).
//! - `mcp`: `[[mcp]]` servers ([`McpEntry`]), checked against policy like tool plugins.
//! - `shell`: `[tools.shell]` and how the layers may set it; [`HostPattern`]: the host patterns
//!   of its `allowed_hosts` and of `policy.shell_allowed_hosts`.
//! - `rules`: `[[rules]]` of each layer, checked with their examples and gathered into the
//!   [`RuleSet`](crate::domain::rules::RuleSet) in force ([`Config::rules`]).
//! - `registries`: `[registries]`, the registries credentials go to ([`RegistriesConfig`])
//! - `telemetry`: `[telemetry]`, OpenTelemetry export ([`TelemetryConfig`])
//! - `unset`: the optional keys no layer set and what applies instead ([`unset_keys`]), for
//!   `warden config show`.
//!   and the limits on a registry request; user and managed layers only.
//! - [`trust`]: what the project layer declares that runs code ([`ProjectCode`]) and the
//!   settings held back until it is trusted ([`HELD_SETTINGS`]), its digest, and the managed
//!   keys that pre-trust or forbid trusting a workspace; `trust_files`: the workspace files a
//!   project's MCP server runs, hashed into that digest.
//!
//! For `warden config show` and `warden doctor`: [`Loaded::managed`] says which managed file is
//! in force (path and sha256), [`Loaded::locks`] which keys are locked and by which layer, file
//! and line ([`Loaded::locked_by`] answers for one key).

mod audit;
mod ceilings;
mod client_mcp;
mod command_hooks;
mod dev_overlay;
mod error;
mod escalation_policy;
mod grants;
pub mod hook_import;
mod known_secrets;
mod load;
mod locks;
mod managed;
mod mcp;
mod own_paths;
mod plugin_source;
mod project_grants;
mod registries;
mod rules;
mod schema;
mod shell;
mod shell_hosts;
mod signing_policy;
mod telemetry;
mod telemetry_layers;
mod tool_policy;
mod trust;
mod trust_files;
mod unix_sockets;
mod unset;
mod url_parts;
mod user_only;

pub use audit::AuditConfig;
pub use ceilings::{
    ClampedDefault, clamp_plugins, clamp_resolver, memory_ceiling_mb, output_ceiling_bytes,
    timeout_ceiling_ms,
};
pub use client_mcp::{ClientServer, ClientValues, add_client_servers};
pub(crate) use command_hooks::command_files;
pub use command_hooks::{
    CommandHookEntry, HOOK_TIMEOUT_S, HookOnError, HookSpec, MAX_HOOK_TIMEOUT_S, default_name,
};
pub use dev_overlay::{
    DEV_DIR, DEV_RESOLVER, accepted_digest, clear_written, dev_build_not_accepted,
    dev_overlay_path, dev_resolver, is_dev_overlay, record_written, recorded_digest,
    written_in_session, written_path,
};
pub use error::ConfigError;
pub use escalation_policy::{AllowEscalation, escalation_kinds};
pub use grants::{Approve, FsGrant, ToolGrants};
pub use known_secrets::known_secrets;
pub use load::{
    LayerKind, Loaded, Origin, Origins, Sources, load, load_with_origins, load_without_project_code,
};
pub use locks::{LOCKABLE_KEYS, LockedKey};
pub use managed::{MANAGED_CONFIG_VAR, ManagedSource, SYSTEM_MANAGED_PATH};
pub use mcp::{
    EnvHeader, MCP_START_TIMEOUT_S, MCP_TIMEOUT_S, McpEntry, McpSpec, McpTransport, glob_match,
    valid_server_name,
};
pub use own_paths::{OWN_PATH_VARS, own_paths};
pub use plugin_source::{OCI_SCHEME, OciReference, cached_component, oci_cache_dir};
pub use project_grants::{
    GUEST_LOG_LEVEL_ENV, HOST_SET_ENV, ProjectToolGrants, SECRET_SUFFIXES, looks_secret,
};
pub use registries::{
    REGISTRY_DEADLINE_S, REGISTRY_IDLE_TIMEOUT_S, REGISTRY_PASSWORD_ENV, REGISTRY_USER_ENV,
    RegistriesConfig, RegistryHost,
};
pub use rules::{remove_user_rule, save_user_rules};
pub use schema::*;
pub use shell::{
    DEFAULT_HIDE, MAX_SHELL_TIMEOUT_S, SHELL_TIMEOUT_S, ShellConfig, ShellSandbox,
    timeout_ceiling_s as shell_timeout_ceiling_s,
};
pub use shell_hosts::{HostPattern, host_allowed, parse_host_patterns};
pub use telemetry::{TelemetryConfig, TelemetryProtocol};
pub use tool_policy::{ToolGrantCeiling, check_env_name, check_host};
pub use trust::{Declared, HELD_SETTINGS, ProjectCode, ProjectResolver, TrustPaths};
pub use unix_sockets::{check_socket_paths, inside_roots, outside_ceiling};
pub use unset::{UnsetKey, unset_keys};
pub use url_parts::{userinfo, without_userinfo};
