//! The resolved configuration: plain serde types with their defaults written down once.
//!
//! A config file is parsed into a [`Layer`](super::Layer) (every field optional); layers are
//! merged into one [`Config`] by [`super::load`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::domain::defaults::{DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_TOTAL_BYTES};
use crate::domain::{Mode, ProviderKind};

/// Everything warden reads from configuration, after layering.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct Config {
    /// The model provider.
    pub model: ModelConfig,
    /// `@path` references.
    pub fileref: FileRefConfig,
    /// The turn loop.
    pub worker: WorkerConfig,
    /// The model's plan (`update_plan`).
    pub plan: PlanConfig,
    /// The built-in tools and the permission mode.
    pub tools: ToolsConfig,
    /// Interceptor and hook plugins, in chain order.
    pub plugins: Vec<PluginEntry>,
    /// `[[hooks]]`: command hooks, in layer order (managed, then user, then project), each
    /// asked in the chain after the interceptor plugins.
    pub hooks: Vec<super::CommandHookEntry>,
    /// Managed policy (only the managed layer may set it).
    pub policy: PolicyConfig,
    /// MCP servers (`[[mcp]]`), in order.
    pub mcp: Vec<super::McpEntry>,
    /// The registries credentials go to, and the limits on registry requests.
    pub registries: super::RegistriesConfig,
    /// `[[rules]]` of every layer and the built-in ones: when a tool call asks.
    pub rules: crate::domain::rules::RuleSet,
    /// `[telemetry]`: OpenTelemetry export.
    pub telemetry: super::TelemetryConfig,
    /// `[audit]`: signing each session's audit chain head when it ends.
    pub audit: super::AuditConfig,
}

/// Which model answers, and how requests are made.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ModelConfig {
    /// `echo` (offline), `anthropic` or `openai`.
    pub provider: ProviderKind,
    /// Model name as the provider knows it; each provider has a default.
    pub name: Option<String>,
    /// Cap on answer tokens.
    pub max_tokens: u32,
    /// Longest wait, in seconds, for the response to start and for more of a streamed answer
    /// (a time to first byte and an idle-stream timeout; not a bound on the whole answer).
    pub timeout_s: u64,
    /// Retries after a retryable failure (429, 5xx, reset, timeout); a server that cannot be
    /// reached (refused, no such host) is retried once at most.
    pub max_retries: u32,
    /// Budget, in seconds, for one request across all its attempts and the waits between
    /// them, until the answer begins (at least 300 s for a non-streamed request).
    #[serde(default = "default_max_wait_s")]
    pub max_wait_s: u64,
    /// Wait before the first retry, in milliseconds; doubled for each further retry (with
    /// jitter) unless the provider asks for a specific wait (`retry-after`).
    #[serde(default = "default_retry_base_ms")]
    pub retry_base_ms: u64,
    /// Cap on one computed retry wait, in milliseconds.
    #[serde(default = "default_retry_max_ms")]
    pub retry_max_ms: u64,
    /// Stream answers as they arrive.
    pub stream: bool,
    /// System prompt sent with every request.
    pub system_prompt: Option<String>,
    /// The model's context window in tokens, for the chat's status line (the built-in table
    /// knows the default models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
    /// The model's prices in US dollars per million tokens (`input`, `output`, `cache_read`,
    /// `cache_write`), for `/cost` (the built-in table knows the default models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price: Option<crate::domain::price::ModelPrice>,
}

impl Default for ModelConfig {
    fn default() -> Self {
        Self {
            provider: ProviderKind::Echo,
            name: None,
            max_tokens: 4096,
            // A streamed answer's headers come at once and its stream is never silent for long
            // (tokens, or the provider's keep-alive events): 30 s of silence means a hung server.
            timeout_s: 30,
            max_retries: 4,
            max_wait_s: default_max_wait_s(),
            retry_base_ms: default_retry_base_ms(),
            retry_max_ms: default_retry_max_ms(),
            stream: true,
            system_prompt: None,
            context_window: None,
            price: None,
        }
    }
}

fn default_max_wait_s() -> u64 {
    60
}

fn default_retry_base_ms() -> u64 {
    500
}

fn default_retry_max_ms() -> u64 {
    30_000
}

/// How resolved files are placed into history.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Placement {
    /// One `System` item per reference, `[File: <path>]\n<body>`.
    #[default]
    SystemMessage,
    /// One `System` item `<system-reminder>` holding `<file>` blocks.
    Reminder,
    /// A synthesized `read_file` / `list_files` call and its result.
    ToolResult,
}

/// `@path` reference settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FileRefConfig {
    /// Placement policy.
    pub placement: Placement,
    /// Per-file cap, cut at a UTF-8 boundary and marked.
    pub max_bytes: u64,
    /// Budget across all references of one prompt.
    pub max_total_bytes: u64,
    /// Entries listed for a directory reference.
    pub max_entries: u32,
    /// Deny globs (the defaults plus any added; a managed layer can only add).
    pub deny: Vec<String>,
    /// Replace a file shown before with unchanged content by a short note.
    pub dedup: bool,
    /// Resolver component; `None` is the built-in one.
    pub resolver: Option<PathBuf>,
    /// Required sha256 of the resolver component.
    pub resolver_sha256: Option<String>,
    /// Config map handed to the resolver's `init`.
    pub resolver_config: BTreeMap<String, String>,
    /// Deadline of one resolver call, in milliseconds (clamped to the plugin ceiling).
    pub resolver_timeout_ms: u64,
}

/// Deny globs that apply unless a layer adds more; they can never be removed.
pub use crate::domain::defaults::DEFAULT_DENY;

impl Default for FileRefConfig {
    fn default() -> Self {
        Self {
            placement: Placement::SystemMessage,
            max_bytes: DEFAULT_MAX_BYTES,
            max_total_bytes: DEFAULT_MAX_TOTAL_BYTES,
            max_entries: DEFAULT_MAX_ENTRIES,
            deny: DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect(),
            dedup: true,
            resolver: None,
            resolver_sha256: None,
            resolver_config: BTreeMap::new(),
            resolver_timeout_ms: 10_000,
        }
    }
}

/// The project instructions file read when the configuration names none.
pub const DEFAULT_INSTRUCTIONS_FILE: &str = "AGENTS.md";

/// Turn loop settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WorkerConfig {
    /// `on-turn-end` continuations allowed per turn.
    pub max_continuations: u32,
    /// Model requests allowed per turn (tool round trips included).
    pub max_steps: u32,
    /// Largest prompt accepted, in bytes; a larger one is refused before anything is committed.
    pub max_prompt_bytes: u64,
    /// Project instructions at the workspace root, committed as a `System` item (source
    /// `project`) at a session's first turn and again whenever it changed; empty disables it.
    pub instructions_file: String,
    /// Compact the session when a prompt is submitted and the next request's estimated size
    /// passes this many tokens (see `docs/sessions.md`); unset: only `warden compact`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compact_at_tokens: Option<u64>,
    /// Without `compact_at_tokens`: compact when the next request's estimated size passes
    /// this share (in percent) of the model's context window (`[model] context_window` or the
    /// built-in table); 0 turns it off. A model whose window is not known is not compacted.
    pub compact_at_percent: u8,
}

/// The share of the model's window past which a session is compacted by default.
pub const DEFAULT_COMPACT_AT_PERCENT: u8 = 85;

impl Default for WorkerConfig {
    fn default() -> Self {
        Self {
            max_continuations: 4,
            max_steps: 200,
            max_prompt_bytes: 1024 * 1024,
            instructions_file: DEFAULT_INSTRUCTIONS_FILE.to_owned(),
            compact_at_tokens: None,
            compact_at_percent: DEFAULT_COMPACT_AT_PERCENT,
        }
    }
}

/// `[plan]`: the model's plan (`update_plan`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PlanConfig {
    /// Re-send the plan's open steps as a committed `<system-reminder>` at the first request
    /// of the Nth prompt in a row that found them unchanged; 0 never reminds.
    pub remind_after_turns: u32,
}

impl Default for PlanConfig {
    fn default() -> Self {
        Self {
            remind_after_turns: 3,
        }
    }
}

/// `[tools]`: how much the model's tool calls may do without asking.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolsConfig {
    /// The permission mode: `read-only`, `ask` (default), `auto-edit` or `full-auto`.
    pub mode: Mode,
    /// `[tools.shell]`: the built-in `shell` tool and its sandbox.
    pub shell: super::ShellConfig,
    /// Whether the built-in rules (read-only commands, builds and tests run unasked under
    /// `ask`) are in force; `false` in any layer turns them off.
    pub builtin_rules: bool,
}

impl Default for ToolsConfig {
    fn default() -> Self {
        Self {
            mode: Mode::default(),
            shell: super::ShellConfig::default(),
            builtin_rules: true,
        }
    }
}

/// The kind of a configured plugin.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginKind {
    /// May continue, cancel or extend a turn.
    Interceptor,
    /// Observes only.
    Hook,
    /// Serves tools to the model, through the capabilities its grants give (WIT 0.2.0).
    Tool,
}

impl PluginKind {
    /// `interceptor`, `hook` or `tool`, as written in configuration.
    pub fn name(self) -> &'static str {
        match self {
            Self::Interceptor => "interceptor",
            Self::Hook => "hook",
            Self::Tool => "tool",
        }
    }
}

/// What happens when a plugin fails (trap, deadline, bad output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FailurePolicy {
    /// Cancel the turn with an alert (default for interceptors).
    Closed,
    /// Carry on without the plugin's contribution, with an alert.
    Open,
}

/// Whether an interceptor's decisions apply (`enforce`) or are only recorded (`shadow`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PluginMode {
    /// Its decisions apply (the default).
    #[default]
    Enforce,
    /// It is asked at every call point beside the chain; its decisions are audited, never
    /// applied, and its failures never fail the turn.
    Shadow,
}

/// One `[[plugins]]` entry as written in a file; defaults are applied by [`PluginSpec::resolve`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSpec {
    /// Name used in alerts, logs and item sources.
    pub name: String,
    /// Interceptor or hook.
    pub kind: PluginKind,
    /// Component file (empty when the entry has a `source`).
    #[serde(default)]
    pub path: PathBuf,
    /// Where the component was fetched from: `oci://HOST/REPO[:TAG]@sha256:…` (see
    /// `docs/distribution.md`); its bytes are read from the local cache.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Required sha256 of the component bytes (hex).
    pub sha256: Option<String>,
    /// Failure policy.
    pub failure: Option<FailurePolicy>,
    /// Deadline of one call, in milliseconds.
    pub timeout_ms: Option<u64>,
    /// Linear memory cap, in MiB.
    pub memory_mb: Option<u64>,
    /// Cap on items one call may return.
    pub max_items: Option<u32>,
    /// Cap on the total bytes of items one call may return.
    pub max_output_bytes: Option<u64>,
    /// Config map handed to `init`.
    #[serde(default)]
    pub config: BTreeMap<String, String>,
    /// Tool plugins: file-system grant over the workspace roots (default `none`).
    pub fs: Option<super::FsGrant>,
    /// Tool plugins: hosts outgoing HTTP may reach (default none).
    pub allowed_hosts: Option<Vec<String>>,
    /// Tool plugins: names of environment variables passed in (default none).
    pub env: Option<Vec<String>>,
    /// Tool plugins: `ask` to have each call approved by the person (default `never`).
    pub approve: Option<super::Approve>,
    /// Interceptors: `shadow` to record its decisions without applying them (default
    /// `enforce`).
    pub mode: Option<PluginMode>,
    /// Interceptors: the tool calls it is asked about, in Claude Code's syntax (`Bash`,
    /// `Edit|Write`, `mcp__github__.*`; default every tool). See `domain::tool_matcher`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
}

impl PluginSpec {
    /// The entry with every default applied; `origin` names the layer that declared it.
    pub fn resolve(self, origin: &str) -> PluginEntry {
        let (failure, timeout_ms) = match self.kind {
            PluginKind::Interceptor => (
                self.failure.unwrap_or(FailurePolicy::Closed),
                self.timeout_ms
                    .unwrap_or(plugin_defaults::INTERCEPTOR_TIMEOUT_MS),
            ),
            // Hooks only observe: they always fail open.
            PluginKind::Hook => (
                FailurePolicy::Open,
                self.timeout_ms.unwrap_or(plugin_defaults::HOOK_TIMEOUT_MS),
            ),
            // A failed tool call is an error result the model sees; `closed` ends the turn.
            PluginKind::Tool => (
                self.failure.unwrap_or(FailurePolicy::Open),
                self.timeout_ms.unwrap_or(plugin_defaults::TOOL_TIMEOUT_MS),
            ),
        };
        PluginEntry {
            name: self.name,
            kind: self.kind,
            path: self.path,
            source: self.source,
            sha256: self.sha256,
            failure,
            timeout_ms,
            memory_mb: self.memory_mb.unwrap_or(plugin_defaults::MEMORY_MB),
            max_items: self.max_items.unwrap_or(plugin_defaults::MAX_ITEMS),
            max_output_bytes: self
                .max_output_bytes
                .unwrap_or(plugin_defaults::MAX_OUTPUT_BYTES),
            config: self.config,
            grants: super::ToolGrants {
                fs: self.fs.unwrap_or_default(),
                allowed_hosts: self.allowed_hosts.unwrap_or_default(),
                env: self.env.unwrap_or_default(),
            },
            approve: self.approve.unwrap_or_default(),
            mode: self.mode.unwrap_or_default(),
            matcher: self.matcher,
            origin: origin.to_owned(),
            declared_in: None,
        }
    }
}

/// One plugin with every default applied.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PluginEntry {
    /// Name used in alerts, logs and item sources (`plugin:<name>`).
    pub name: String,
    /// Interceptor or hook.
    pub kind: PluginKind,
    /// Component file; relative paths are relative to the config file that named it. For an
    /// entry with a `source`, the component's file in the local OCI cache.
    pub path: PathBuf,
    /// `oci://HOST/REPO[:TAG]@sha256:…` the component came from, as configured; matched
    /// against `policy.allowed_sources` instead of the path.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// Required sha256 of the component bytes (hex).
    pub sha256: Option<String>,
    /// Failure policy; hooks are always `open`.
    pub failure: FailurePolicy,
    /// Deadline of one call, in milliseconds.
    pub timeout_ms: u64,
    /// Linear memory cap, in MiB.
    pub memory_mb: u64,
    /// Cap on items one call may return.
    pub max_items: u32,
    /// Cap on the total bytes of items one call may return.
    pub max_output_bytes: u64,
    /// Config map handed to `init`.
    pub config: BTreeMap<String, String>,
    /// What a tool plugin may reach (nothing for other kinds).
    pub grants: super::ToolGrants,
    /// Whether each call of a tool plugin's tools is approved by the person.
    pub approve: super::Approve,
    /// Whether an interceptor's decisions apply or are only recorded.
    pub mode: PluginMode,
    /// An interceptor's `matcher`: the tool calls it is asked about (`None`: every tool).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matcher: Option<String>,
    /// Which layer declared it (`user`, `project`, `managed`).
    pub origin: String,
    /// The config file that declared it, when loaded from one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<PathBuf>,
}

impl PluginEntry {
    /// Where the entry comes from, for a message: the file that declared it, else its layer.
    pub fn declared_where(&self) -> String {
        self.declared_in
            .as_ref()
            .map_or_else(|| self.origin.clone(), |path| path.display().to_string())
    }
}

/// Per-plugin defaults.
pub mod plugin_defaults {
    /// Interceptor call deadline.
    pub const INTERCEPTOR_TIMEOUT_MS: u64 = 1000;
    /// Hook call deadline.
    pub const HOOK_TIMEOUT_MS: u64 = 100;
    /// Tool plugin call deadline.
    pub const TOOL_TIMEOUT_MS: u64 = 10_000;
    /// Memory cap.
    pub const MEMORY_MB: u64 = 64;
    /// Items per call.
    pub const MAX_ITEMS: u32 = 64;
    /// Bytes per call.
    pub const MAX_OUTPUT_BYTES: u64 = 256 * 1024;
    /// Ceiling on any plugin's `max_output_bytes`; larger values are clamped (policy may lower
    /// it with `policy.max_plugin_output_bytes`).
    pub const MAX_OUTPUT_BYTES_CEILING: u64 = 1024 * 1024;
    /// Ceiling on any plugin's deadline; larger values are clamped (managed policy may lower it).
    pub const MAX_TIMEOUT_MS: u64 = 60_000;
    /// Ceiling on any plugin's memory cap; larger values are clamped (managed policy may lower it).
    pub const MAX_MEMORY_MB: u64 = 4096;
}

/// Largest component file (plugin or resolver) warden reads, in MiB; `policy.max_component_mb`
/// may lower it, never raise it.
pub const MAX_COMPONENT_MB: u64 = 256;

/// Managed policy for locked-down deployments.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PolicyConfig {
    /// Every plugin (and a custom resolver) must carry a sha256 pin.
    pub require_sha256: bool,
    /// Only plugins (and a resolver) declared by the managed layer load.
    pub managed_plugins_only: bool,
    /// Dotted keys the user and project layers may not change (`model.provider`); a table
    /// locks everything under it (see [`LOCKABLE_KEYS`](super::LOCKABLE_KEYS)).
    pub locked: Vec<String>,
    /// Lowers the ceiling on plugin deadlines (ms) below the built-in 60 000.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plugin_timeout_ms: Option<u64>,
    /// Lowers the ceiling on plugin memory caps (MiB) below the built-in 4096.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plugin_memory_mb: Option<u64>,
    /// Largest component file read, in MiB (1 to [`MAX_COMPONENT_MB`]).
    pub max_component_mb: u64,
    /// Only tool plugins declared by the managed layer are allowed; a user or project tool
    /// entry is a configuration error.
    pub managed_tools_only: bool,
    /// Only the managed layer's `allow` rules apply: those of the user and project layers
    /// are left out (their `deny` and `ask` rules still apply).
    pub managed_rules_only: bool,
    /// The most a user or project tool plugin may be granted; a grant above it is refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tool_grants: Option<super::ToolGrantCeiling>,
    /// The files that set `max_tool_grants`, in layer order, each with its own ceiling and
    /// whether it is the managed file: what messages about the ceiling name.
    #[serde(skip)]
    pub max_tool_grants_from: Vec<(PathBuf, bool, super::ToolGrantCeiling)>,
    /// The file that set each lowered plugin and shell ceiling (`max_plugin_timeout_ms`, …),
    /// by key: what the warnings of clamped values name.
    #[serde(skip)]
    pub ceilings_from: std::collections::BTreeMap<String, PathBuf>,
    /// Lowers the ceiling on plugin output caps (bytes) below the built-in 1 MiB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plugin_output_bytes: Option<u64>,
    /// Managed layer only: globs of workspace roots whose project plugins load without being
    /// trusted with `warden trust` (`/srv/repos/**`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trusted_paths: Vec<String>,
    /// Managed layer only: `false` forbids trusting a project; its plugins never load.
    pub allow_trust: bool,
    /// User or managed layer only: the secret-looking variables and the hosts a project's tool
    /// plugin may be granted (by default it may be granted neither).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project_tool_grants: Option<super::ProjectToolGrants>,
    /// Managed layer only: the most permissive mode any layer, `--mode` or `/mode` may ask
    /// for; a higher one is refused, never narrowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_mode: Option<Mode>,
    /// Lowers the ceiling on `tools.shell.timeout_s` (seconds) below the built-in 600.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_shell_timeout_s: Option<u64>,
    /// `false` forbids `tools.shell.sandbox = "none"` (a configuration error).
    pub allow_unsandboxed_shell: bool,
    /// Managed layer only: the host patterns `tools.shell.allowed_hosts` of the user and project
    /// layers must stay within (and `tools.shell.network = true` is then refused); a host
    /// outside is refused, never narrowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shell_allowed_hosts: Option<Vec<String>>,
    /// Managed layer only: the Unix socket paths a user `tools.shell.unix_sockets` or `[[mcp]]`
    /// `unix_sockets` grant may name; another path is refused, never narrowed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unix_sockets: Option<Vec<std::path::PathBuf>>,
    /// Only `[[mcp]]` entries of the managed layer are allowed; another layer's is a
    /// configuration error.
    pub managed_mcp_only: bool,
    /// Managed layer only: globs (`*` matches anything) of the commands (argv joined by
    /// spaces) and URLs a user or project `[[mcp]]` entry may name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_mcp: Option<Vec<String>>,
    /// `false` forbids `[[mcp]] sandbox = "none"` (a configuration error).
    pub allow_unsandboxed_mcp: bool,
    /// Managed layer only: only `[[hooks]]` entries of the managed layer are allowed; another
    /// layer's is a configuration error.
    pub managed_hooks_only: bool,
    /// Every command hook's failure denies (`on_error = "deny"`), whatever its entry says.
    pub hooks_fail_closed: bool,
    /// Managed layer only: `false` refuses `--yes` (`warden run`, `warden mcp serve`), which
    /// approves every call that would ask with nobody asked.
    pub allow_unattended: bool,
    /// Managed layer only: the public keys plugins may be signed with, each `ed25519:BASE64`
    /// inline or the path of a key file (relative to the managed file).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trusted_keys: Vec<String>,
    /// Managed layer only: every plugin file (and a custom resolver) must carry a signature by
    /// one of `trusted_keys`.
    pub require_signed: bool,
    /// Managed layer only: globs (`*` matches anything) of where plugins may come from, matched
    /// against an entry's `source`, else its canonical path (`builtin:NAME` for bundled ones).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_sources: Option<Vec<String>>,
    /// The managed file that set the signing keys, named by refusals.
    #[serde(skip)]
    pub signing_from: Option<PathBuf>,
    /// Which kinds of per-command escalation a `shell` call may ask for (see
    /// [`AllowEscalation`](super::AllowEscalation); unset: `network` and `git`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_escalation: Option<super::AllowEscalation>,
}

impl Default for PolicyConfig {
    fn default() -> Self {
        Self {
            require_sha256: false,
            managed_plugins_only: false,
            locked: Vec::new(),
            max_plugin_timeout_ms: None,
            max_plugin_memory_mb: None,
            max_component_mb: MAX_COMPONENT_MB,
            managed_tools_only: false,
            managed_rules_only: false,
            max_tool_grants: None,
            max_tool_grants_from: Vec::new(),
            ceilings_from: std::collections::BTreeMap::new(),
            max_plugin_output_bytes: None,
            trusted_paths: Vec::new(),
            allow_trust: true,
            project_tool_grants: None,
            max_mode: None,
            max_shell_timeout_s: None,
            allow_unsandboxed_shell: true,
            shell_allowed_hosts: None,
            unix_sockets: None,
            managed_mcp_only: false,
            allowed_mcp: None,
            allow_unsandboxed_mcp: true,
            managed_hooks_only: false,
            hooks_fail_closed: false,
            allow_unattended: true,
            trusted_keys: Vec::new(),
            require_signed: false,
            allowed_sources: None,
            signing_from: None,
            allow_escalation: None,
        }
    }
}

impl PolicyConfig {
    /// [`PolicyConfig::max_component_mb`] in bytes.
    pub fn max_component_bytes(&self) -> u64 {
        self.max_component_mb.min(MAX_COMPONENT_MB) << 20
    }
}
