//! `[[mcp]]`: the MCP servers whose tools the model is offered (as `mcp__<server>__<tool>`)
//! and whose resources `@server:uri` attaches. A server is either a command (stdio, run in the
//! shell's sandbox with the entry's grants) or a `url` (Streamable HTTP).
//!
//! Secrets never appear in configuration: a header's value is `env:NAME` (optionally after a
//! scheme word, `"Bearer env:TOKEN"`), read from warden's environment when the server starts;
//! any other value is a configuration error. `env = [...]` names the variables a stdio server
//! gets besides the sandbox's harmless allowlist.
//!
//! The grant keys are held to the same rules as a tool plugin's: `policy.max_tool_grants`,
//! a project's variables (`env`, header variables) and hosts (`allowed_hosts`, a `url`'s host)
//! only if the user lists them in `policy.project_tool_grants`, `policy.managed_mcp_only`,
//! `policy.allowed_mcp` (an allowlist of commands and URLs) and `sandbox = "none"` only where
//! `policy.allow_unsandboxed_mcp` is true. `trust_files` globs name further workspace files a
//! stdio server runs: a project's trust hashes them with the files its command names.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::grants::{Approve, FsGrant};
use super::project_grants::ProjectToolGrants;
use super::schema::{FailurePolicy, PluginKind, PluginSpec, PolicyConfig, plugin_defaults};
use super::shell::ShellSandbox;

/// Default deadline of one MCP tool call, in seconds.
pub const MCP_TIMEOUT_S: u64 = 30;
/// Default deadline for a server to start and answer `initialize` and `tools/list`, in seconds.
pub const MCP_START_TIMEOUT_S: u64 = 30;

/// One `[[mcp]]` entry as written in a file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpSpec {
    /// Server name: tools are `mcp__<name>__<tool>`, resources `@<name>:<uri>`.
    pub name: String,
    /// Stdio server: the program and its arguments.
    pub command: Option<Vec<String>>,
    /// Streamable HTTP server: its endpoint.
    pub url: Option<String>,
    /// HTTP headers, each value `env:NAME` or `<scheme> env:NAME`.
    #[serde(default)]
    pub headers: BTreeMap<String, String>,
    /// Stdio: names of environment variables passed through.
    pub env: Option<Vec<String>>,
    /// `ask` (default) or `never`.
    pub approve: Option<Approve>,
    /// Deadline of one call, in seconds.
    pub timeout_s: Option<u64>,
    /// Deadline for the server to start, in seconds.
    pub start_timeout_s: Option<u64>,
    /// Cap on one result's bytes.
    pub max_output_bytes: Option<u64>,
    /// `open` (default): a failure is an error result (a failed start, an alert); `closed`:
    /// the turn ends.
    pub failure: Option<FailurePolicy>,
    /// Stdio: the workspace roots `none` (hidden, the default), `read` or `read-write`.
    pub fs: Option<FsGrant>,
    /// Stdio: network reachable (default false).
    pub network: Option<bool>,
    /// Stdio: host patterns reachable through warden's filtering HTTP proxy (`name`,
    /// `name:port`, `*.domain`), with the network otherwise off.
    pub allowed_hosts: Option<Vec<String>>,
    /// Stdio: Unix socket paths the server may connect to although no process of its sandbox
    /// listens there.
    pub unix_sockets: Option<Vec<PathBuf>>,
    /// Stdio: `required` (default) or `none` (no confinement, if policy allows it).
    pub sandbox: Option<ShellSandbox>,
    /// Stdio: globs (relative to the workspace root; `*` stays within one path component,
    /// `**` crosses them) of further workspace files the server runs, hashed into a project's
    /// trust like the files its command names.
    #[serde(default)]
    pub trust_files: Vec<String>,
}

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum McpTransport {
    /// A child process speaking JSON-RPC on its standard input and output.
    Stdio {
        /// Program and arguments.
        command: Vec<String>,
    },
    /// Streamable HTTP.
    Http {
        /// The endpoint.
        url: String,
    },
}

/// A header whose value comes from the environment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EnvHeader {
    /// Header name.
    pub name: String,
    /// Written before the value (`Bearer `), possibly empty.
    pub prefix: String,
    /// The variable holding the value.
    pub var: String,
}

/// One MCP server with every default applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct McpEntry {
    /// Server name.
    pub name: String,
    /// How it is reached.
    pub transport: McpTransport,
    /// Headers from the environment.
    pub headers: Vec<EnvHeader>,
    /// Variables passed through (stdio).
    pub env: Vec<String>,
    /// Whether each call waits for the person.
    pub approve: Approve,
    /// Deadline of one call, in seconds.
    pub timeout_s: u64,
    /// Deadline of the start, in seconds.
    pub start_timeout_s: u64,
    /// Cap on one result.
    pub max_output_bytes: u64,
    /// Failure policy.
    pub failure: FailurePolicy,
    /// Workspace roots, for a stdio server.
    pub fs: FsGrant,
    /// Network, for a stdio server.
    pub network: bool,
    /// Host patterns a stdio server reaches through the filtering proxy (`network` is then
    /// false).
    pub allowed_hosts: Vec<String>,
    /// Unix socket paths a stdio server may connect to.
    pub unix_sockets: Vec<PathBuf>,
    /// Confinement of a stdio server.
    pub sandbox: ShellSandbox,
    /// Globs of further workspace files the server runs (a project's trust hashes them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trust_files: Vec<String>,
    /// `user`, `project` or `managed`.
    pub origin: String,
    /// The file that declared it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub declared_in: Option<PathBuf>,
}

impl McpEntry {
    /// What `policy.allowed_mcp` matches: the command line joined by spaces, or the URL.
    pub fn target(&self) -> String {
        match &self.transport {
            McpTransport::Stdio { command } => command.join(" "),
            McpTransport::Http { url } => url.clone(),
        }
    }
}

/// `true` for a server name usable in `mcp__<name>__<tool>` and `@<name>:`: 1–32 of
/// `a-z A-Z 0-9 -` and single `_` (a double `_` would make tool names ambiguous).
pub fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 32
        && !name.contains("__")
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `env:NAME` or `<scheme> env:NAME`, as `(prefix, NAME)`; `None` for a literal.
fn env_value(value: &str) -> Option<(String, String)> {
    let (prefix, rest) = match value.rsplit_once(' ') {
        Some((scheme, rest)) if scheme.bytes().all(|b| b.is_ascii_alphabetic()) => {
            (format!("{scheme} "), rest)
        }
        Some(_) => return None,
        None => (String::new(), value),
    };
    let var = rest.strip_prefix("env:")?;
    super::check_env_name(var).ok()?;
    Some((prefix, var.to_owned()))
}

/// Does `glob` (`*` matches any run of characters, `/` included) match `text`? Used for
/// `policy.allowed_mcp` and `policy.allowed_sources`.
pub fn glob_match(glob: &str, text: &str) -> bool {
    let parts: Vec<&str> = glob.split('*').collect();
    let (Some(first), Some(last)) = (parts.first(), parts.last()) else {
        return false;
    };
    if parts.len() == 1 {
        return glob == text;
    }
    if !text.starts_with(first) || text.len() < first.len() + last.len() || !text.ends_with(last) {
        return false;
    }
    let mut rest = &text[first.len()..text.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// The synthetic tool entry the grant checks shared with tool plugins judge (the header
/// variables count as `env` grants: they hand a secret to the server; `allowed_hosts` is
/// judged as a tool's, entry by entry against the exact hosts of `policy.max_tool_grants` and
/// `policy.project_tool_grants`, so a `*.domain` pattern passes only where that very pattern
/// is listed — which a ceiling, taking exact hosts only, never does).
fn as_tool_spec(spec: &McpSpec, header_vars: &[String], url_as_host: bool) -> PluginSpec {
    let mut env: Vec<String> = spec.env.clone().unwrap_or_default();
    env.extend(header_vars.iter().cloned());
    PluginSpec {
        name: spec.name.clone(),
        kind: PluginKind::Tool,
        path: PathBuf::new(),
        source: None,
        sha256: None,
        failure: None,
        timeout_ms: None,
        memory_mb: None,
        max_items: None,
        max_output_bytes: None,
        config: BTreeMap::new(),
        fs: spec.fs,
        // A `url` server is reached at its own host: held to the same host ceilings.
        allowed_hosts: match spec
            .url
            .as_deref()
            .filter(|_| url_as_host)
            .and_then(super::url_parts::url_host_port)
        {
            Some(host) => Some(vec![host]),
            None => spec.allowed_hosts.clone().filter(|hosts| !hosts.is_empty()),
        },
        env: (!env.is_empty()).then_some(env),
        approve: None,
        mode: None,
        matcher: None,
    }
}

/// A `url` server's host is held to host grants as `allowed_hosts`: name the key written.
fn url_key(err: ConfigError, spec: &McpSpec) -> ConfigError {
    match err {
        ConfigError::Invalid { path, key, message } if spec.url.is_some() => ConfigError::Invalid {
            path,
            key: key.replace(".allowed_hosts", ".url"),
            message,
        },
        other => other,
    }
}

/// A tool plugin's error, said of the `[[mcp]]` entry.
fn as_mcp_error(err: ConfigError) -> ConfigError {
    match err {
        ConfigError::Invalid { path, key, message } => ConfigError::Invalid {
            path,
            key: key.replacen("plugins.", "mcp.", 1),
            message: message.replace("tool plugin", "MCP server").replace(
                "managed tools only (`policy.managed_tools_only`)",
                "managed tools only",
            ),
        },
        other => other,
    }
}

/// Check one entry of the `layer` layer read from `path` and apply its defaults.
pub(crate) fn resolve(
    spec: McpSpec,
    layer: &str,
    path: &Path,
    policy: &PolicyConfig,
    project: Option<(Option<&ProjectToolGrants>, &Path)>,
) -> Result<McpEntry, ConfigError> {
    let name = spec.name.clone();
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: if key.is_empty() {
            format!("mcp.{name}")
        } else {
            format!("mcp.{name}.{key}")
        },
        message: format!("({} layer) {message}", layer),
    };
    if !valid_server_name(&spec.name) {
        return Err(ConfigError::Invalid {
            path: path.to_owned(),
            key: "mcp.name".into(),
            message: format!(
                "({layer} layer) {:?}: a server name is 1 to 32 of A-Z a-z 0-9 - _ without `__`",
                spec.name
            ),
        });
    }
    let transport = match (&spec.command, &spec.url) {
        (Some(command), None) => {
            if command.first().is_none_or(|p| p.trim().is_empty()) {
                return Err(invalid(
                    "command",
                    "must name a program: `command = [\"npx\", \"-y\", \"@scope/server\"]`".into(),
                ));
            }
            McpTransport::Stdio {
                command: command.clone(),
            }
        }
        (None, Some(url)) => {
            // Read as the HTTP client reads it: the host checked is the host reached.
            super::url_parts::parse_http_url(url).map_err(|why| invalid("url", why))?;
            McpTransport::Http { url: url.clone() }
        }
        (Some(_), Some(_)) => {
            return Err(invalid(
                "",
                "set either `command` (stdio) or `url` (Streamable HTTP), not both".into(),
            ));
        }
        (None, None) => {
            return Err(invalid(
                "",
                "set `command` (stdio) or `url` (Streamable HTTP)".into(),
            ));
        }
    };
    let stdio = matches!(transport, McpTransport::Stdio { .. });
    if !stdio {
        for (key, set) in [
            ("env", spec.env.is_some()),
            ("fs", spec.fs.is_some()),
            ("network", spec.network.is_some()),
            ("allowed_hosts", spec.allowed_hosts.is_some()),
            ("unix_sockets", spec.unix_sockets.is_some()),
            ("sandbox", spec.sandbox.is_some()),
            ("trust_files", !spec.trust_files.is_empty()),
        ] {
            if set {
                return Err(invalid(
                    key,
                    format!("`{key}` applies to a stdio server (`command`), not to a `url` one"),
                ));
            }
        }
    } else if !spec.headers.is_empty() {
        return Err(invalid(
            "headers",
            "`headers` apply to a `url` server, not to a stdio one (pass variables with `env`)"
                .into(),
        ));
    }
    let mut headers = Vec::new();
    for (header, value) in &spec.headers {
        let Some((prefix, var)) = env_value(value) else {
            return Err(invalid(
                &format!("headers.{header}"),
                "a header's value must come from the environment: write `\"env:NAME\"` or `\"Bearer env:NAME\"`; a literal value (a secret in a config file) is refused".into(),
            ));
        };
        headers.push(EnvHeader {
            name: header.clone(),
            prefix,
            var,
        });
    }
    for var in spec.env.iter().flatten() {
        super::check_env_name(var).map_err(|why| invalid("env", why))?;
        if var.starts_with("WARDEN_") {
            return Err(invalid(
                "env",
                format!("{var:?}: warden's own variables are never passed to a server"),
            ));
        }
    }
    for glob in &spec.trust_files {
        check_trust_glob(glob).map_err(|why| invalid("trust_files", why))?;
    }
    let allowed_hosts = spec.allowed_hosts.clone().unwrap_or_default();
    super::parse_host_patterns(&allowed_hosts).map_err(|why| invalid("allowed_hosts", why))?;
    if spec.network == Some(true) && !allowed_hosts.is_empty() {
        return Err(invalid(
            "allowed_hosts",
            "`network = true` (every host) and `allowed_hosts` (only these, through the proxy) contradict each other: keep one".into(),
        ));
    }
    let unix_sockets = spec.unix_sockets.clone().unwrap_or_default();
    super::check_socket_paths(&unix_sockets).map_err(|why| invalid("unix_sockets", why))?;
    if layer != "managed"
        && let Some(socket) = super::outside_ceiling(&unix_sockets, policy.unix_sockets.as_deref())
    {
        return Err(invalid(
            "unix_sockets",
            format!(
                "{} is outside the ceiling `policy.unix_sockets = {:?}` of managed policy; refused (grants are never narrowed silently)",
                socket.display(),
                policy.unix_sockets.as_deref().unwrap_or_default()
            ),
        ));
    }
    let sandbox = spec.sandbox.unwrap_or_default();
    if sandbox == ShellSandbox::None && !allowed_hosts.is_empty() {
        return Err(invalid(
            "allowed_hosts",
            "`allowed_hosts` is enforced by the sandbox; with `sandbox = \"none\"` the server would reach every host: drop one of the two".into(),
        ));
    }
    if sandbox == ShellSandbox::None && !policy.allow_unsandboxed_mcp {
        return Err(invalid(
            "sandbox",
            "`sandbox = \"none\"` is refused: managed policy sets `policy.allow_unsandboxed_mcp = false`".into(),
        ));
    }
    if layer != "managed" {
        if policy.managed_mcp_only {
            return Err(invalid(
                "",
                format!(
                    "MCP server `{name}` refused: managed policy allows managed MCP servers only (`policy.managed_mcp_only`)"
                ),
            ));
        }
        if policy.managed_tools_only {
            return Err(invalid(
                "",
                format!(
                    "MCP server `{name}` refused: managed policy allows managed tools only (`policy.managed_tools_only`)"
                ),
            ));
        }
    }
    let header_vars: Vec<String> = headers.iter().map(|h| h.var.clone()).collect();
    let tool = as_tool_spec(&spec, &header_vars, true);
    let ceiling_files: Vec<std::path::PathBuf> = policy
        .max_tool_grants_from
        .iter()
        .map(|(path, _, _)| path.clone())
        .collect();
    super::tool_policy::check_against_policy(
        &tool,
        layer,
        path,
        policy.max_tool_grants.as_ref(),
        &ceiling_files,
        false,
    )
    .map_err(as_mcp_error)
    .map_err(|err| url_key(err, &spec))?;
    if let Some((allowed, user_file)) = project {
        // A project's server gets no variable (`env`, header variables) and reaches no host
        // (`allowed_hosts`, a `url`'s own host) the user has not allowed a project.
        let project_tool = as_tool_spec(&spec, &header_vars, true);
        super::project_grants::check_project_tool(&project_tool, path, allowed, user_file)
            .map_err(as_mcp_error)
            .map_err(|err| url_key(err, &spec))?;
    }
    if layer != "managed"
        && let Some(ceiling) = policy.max_tool_grants.as_ref()
    {
        let set_in = if ceiling_files.is_empty() {
            String::new()
        } else {
            let files: Vec<String> = ceiling_files
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            format!(", set in {}", files.join(" and "))
        };
        // What nothing would hold to the ceiling: the whole network, or no sandbox at all.
        if spec.network == Some(true) && ceiling.allowed_hosts.is_some() {
            return Err(invalid(
                "network",
                format!(
                    "`network = true` reaches every host, above `policy.max_tool_grants.allowed_hosts`{set_in}; grant the hosts it needs with `allowed_hosts`"
                ),
            ));
        }
        if spec.command.is_some()
            && sandbox == ShellSandbox::None
            && (ceiling.allowed_hosts.is_some()
                || ceiling.fs.is_some_and(|fs| fs != FsGrant::ReadWrite))
        {
            return Err(invalid(
                "sandbox",
                format!(
                    "`sandbox = \"none\"` would give the server every file and host, above `policy.max_tool_grants`{set_in}"
                ),
            ));
        }
    }
    let entry = McpEntry {
        name: spec.name,
        transport,
        headers,
        env: spec.env.unwrap_or_default(),
        approve: spec.approve.unwrap_or(Approve::Ask),
        timeout_s: spec.timeout_s.unwrap_or(MCP_TIMEOUT_S).max(1),
        start_timeout_s: spec.start_timeout_s.unwrap_or(MCP_START_TIMEOUT_S).max(1),
        max_output_bytes: spec
            .max_output_bytes
            .unwrap_or(plugin_defaults::MAX_OUTPUT_BYTES),
        failure: spec.failure.unwrap_or(FailurePolicy::Open),
        fs: spec.fs.unwrap_or_default(),
        network: spec.network.unwrap_or(false),
        allowed_hosts,
        unix_sockets,
        sandbox,
        trust_files: spec.trust_files,
        origin: layer.to_owned(),
        declared_in: Some(path.to_owned()),
    };
    if let Some(allowed) = &policy.allowed_mcp
        && layer != "managed"
    {
        let target = entry.target();
        let admits = |pattern: &String| match &entry.transport {
            // A URL is matched on its parsed parts by a pattern written as a URL.
            McpTransport::Http { .. } if super::url_parts::is_url_pattern(pattern) => {
                super::url_parts::url_pattern_matches(pattern, &target)
            }
            _ => glob_match(pattern, &target),
        };
        if !allowed.iter().any(admits) {
            return Err(invalid(
                if stdio { "command" } else { "url" },
                format!(
                    "{target:?} is not in the managed allowlist `policy.allowed_mcp = {allowed:?}`; refused"
                ),
            ));
        }
    }
    Ok(entry)
}

/// A `trust_files` glob: relative, inside the workspace, and compilable.
fn check_trust_glob(glob: &str) -> Result<(), String> {
    if glob.trim().is_empty() {
        return Err("an empty glob".into());
    }
    if glob.starts_with('/') || glob.split('/').any(|part| part == "..") {
        return Err(format!(
            "{glob:?}: write a glob relative to the workspace root, without `..` (`srv/*.py`)"
        ));
    }
    globset::GlobBuilder::new(glob)
        .literal_separator(true)
        .build()
        .map(|_| ())
        .map_err(|err| format!("{glob:?}: {err}"))
}

/// Clamp deadlines and output caps to the plugin ceilings of `policy` (a warning each).
pub(crate) fn clamp(entries: &mut [McpEntry], policy: &PolicyConfig, warnings: &mut Vec<String>) {
    let timeout_ms = super::timeout_ceiling_ms(policy);
    let max_s = (timeout_ms / 1000).max(1);
    let max_out = super::output_ceiling_bytes(policy);
    let timeout_source = super::ceilings::ceiling_source(
        timeout_ms < super::schema::plugin_defaults::MAX_TIMEOUT_MS,
        "max_plugin_timeout_ms",
        policy,
    );
    let output_source = super::ceilings::ceiling_source(
        max_out < super::schema::plugin_defaults::MAX_OUTPUT_BYTES_CEILING,
        "max_plugin_output_bytes",
        policy,
    );
    for entry in entries {
        if entry.timeout_s > max_s {
            warnings.push(format!(
                "MCP server `{}`: timeout_s {} lowered to {max_s} ({timeout_source})",
                entry.name, entry.timeout_s
            ));
            entry.timeout_s = max_s;
        }
        if entry.max_output_bytes > max_out {
            warnings.push(format!(
                "MCP server `{}`: max_output_bytes {} lowered to {max_out} ({output_source})",
                entry.name, entry.max_output_bytes
            ));
            entry.max_output_bytes = max_out;
        }
    }
}

/// Two entries with one name: an error naming both files.
pub(crate) fn check_unique(entries: &[McpEntry]) -> Result<(), ConfigError> {
    for (i, a) in entries.iter().enumerate() {
        if let Some(b) = entries[..i].iter().find(|b| b.name == a.name) {
            let file = |e: &McpEntry| {
                e.declared_in
                    .as_ref()
                    .map_or_else(|| e.origin.clone(), |p| p.display().to_string())
            };
            return Err(ConfigError::Invalid {
                path: a.declared_in.clone().unwrap_or_default(),
                key: format!("mcp.{}", a.name),
                message: format!(
                    "MCP server `{}` is declared twice: by the {} layer ({}) and the {} layer ({}); server names must be unique",
                    a.name,
                    b.origin,
                    file(b),
                    a.origin,
                    file(a)
                ),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
#[path = "mcp_tests.rs"]
mod tests;
