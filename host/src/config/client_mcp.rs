//! MCP servers an editor asks for when it opens a session (ACP `session/new` `mcpServers`):
//! joined to the configuration as the user's own `[[mcp]]` entries, so that every managed
//! ceiling, lock and policy that holds for the user's servers holds for them — the same
//! confinement for a stdio server, the same host checks for a URL, the same deadlines and
//! output caps. Where managed policy locks `mcp`, they are left out with a warning. The values
//! the editor hands over (environment variables, headers) are kept in memory for the start of
//! those servers only; nothing is written to disk.

use std::collections::BTreeMap;
use std::path::Path;

use super::error::ConfigError;
use super::load::{LayerKind, Loaded};
use super::mcp::{McpSpec, check_unique, clamp, resolve};

/// One server as the editor describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientServer {
    /// Its name.
    pub name: String,
    /// The program and its arguments (stdio).
    pub command: Option<Vec<String>>,
    /// Its URL (Streamable HTTP).
    pub url: Option<String>,
    /// Variables to set for a stdio server: name and value.
    pub env: Vec<(String, String)>,
    /// Headers to send to a URL server: name and value.
    pub headers: Vec<(String, String)>,
}

/// The values the servers were given, by the variable each is read from.
pub type ClientValues = BTreeMap<String, String>;

/// Join `servers` (described by `from`: `the editor's session/new`) to `loaded` as user-layer
/// entries; returns the values their start needs. A server that policy refuses is an error
/// naming it; under a managed lock on `mcp` none is added and a warning says so.
pub fn add_client_servers(
    loaded: &mut Loaded,
    servers: &[ClientServer],
    from: &Path,
) -> Result<ClientValues, ConfigError> {
    let mut values = ClientValues::new();
    if servers.is_empty() {
        return Ok(values);
    }
    if let Some(lock) = loaded.locked_by("mcp") {
        let names: Vec<&str> = servers.iter().map(|s| s.name.as_str()).collect();
        loaded.warnings.push(format!(
            "MCP servers {} from {} not started: `mcp` is locked by managed policy ({}:{})",
            names.join(", "),
            from.display(),
            lock.file.display(),
            lock.line
        ));
        return Ok(values);
    }
    let mut added = Vec::new();
    for (n, server) in servers.iter().enumerate() {
        let mut env_names = Vec::new();
        for (name, value) in &server.env {
            if let Some(earlier) = values.get(name)
                && earlier != value
            {
                return Err(ConfigError::Invalid {
                    path: from.to_owned(),
                    key: format!("mcp.{}.env.{name}", server.name),
                    message: "two servers set this variable to different values; warden passes one value per name".into(),
                });
            }
            values.insert(name.clone(), value.clone());
            env_names.push(name.clone());
        }
        let mut headers = BTreeMap::new();
        for (h, (name, value)) in server.headers.iter().enumerate() {
            let var = format!("WARDEN_CLIENT_MCP_{n}_HEADER_{h}");
            values.insert(var.clone(), value.clone());
            headers.insert(name.clone(), format!("env:{var}"));
        }
        let spec = McpSpec {
            name: server.name.clone(),
            command: server.command.clone(),
            url: server.url.clone(),
            headers,
            env: (!env_names.is_empty()).then_some(env_names),
            approve: None,
            timeout_s: None,
            start_timeout_s: None,
            max_output_bytes: None,
            failure: None,
            fs: None,
            network: None,
            allowed_hosts: None,
            unix_sockets: None,
            sandbox: None,
            trust_files: Vec::new(),
        };
        let mut entry = resolve(
            spec,
            LayerKind::User.as_str(),
            from,
            &loaded.config.policy,
            None,
        )?;
        entry.declared_in = Some(from.to_owned());
        added.push(entry);
    }
    clamp(&mut added, &loaded.config.policy, &mut loaded.warnings);
    let mut all = loaded.config.mcp.clone();
    all.extend(added);
    check_unique(&all)?;
    loaded.config.mcp = all;
    Ok(values)
}
