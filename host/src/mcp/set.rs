//! Every configured MCP server, started together (one thread each, every start under its own
//! deadline, so that the slowest bounds the wait), and what the person is told: one alert per
//! server that failed to start, naming it and why. Its tools are then not offered; a failed
//! server whose entry says `failure = "closed"` stops the session before its first turn
//! ([`McpSet::closed_failure`]).

use std::collections::HashMap;
use std::sync::Arc;

use serde::Serialize;

use super::launch::LaunchContext;
use super::listing_cache;
use super::server::{McpServer, ServerState};
use super::tool::{McpTool, tool_name};
use crate::config::{FailurePolicy, McpEntry, McpTransport, ShellSandbox};
use crate::domain::Alert;

pub use super::launch::LaunchContext as StartOptions;

/// The configured servers, started.
pub struct McpSet {
    servers: Vec<Arc<McpServer>>,
    skipped: Vec<String>,
}

/// One server as `warden mcp list` and `/mcp` show it.
#[derive(Debug, Clone, Serialize)]
pub struct ServerRow {
    /// Its name.
    pub name: String,
    /// `stdio` or `http`.
    pub transport: &'static str,
    /// The command line or the URL.
    pub target: String,
    /// The layer that declared it.
    pub origin: String,
    /// `sandboxed`, `unsandboxed` (stdio) or `remote` (HTTP).
    pub confinement: &'static str,
    /// `started`, `starts at first use` (its tools listed from the kept list) or `failed`.
    pub state: &'static str,
    /// Why it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Its tools as the model sees them.
    pub tools: Vec<String>,
    /// Its resources' URIs.
    pub resources: Vec<String>,
}

/// 1–64 of `A-Z a-z 0-9 _ -`: what the model providers accept as a tool name.
fn usable(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl McpSet {
    /// No servers.
    pub fn empty() -> Self {
        Self {
            servers: Vec::new(),
            skipped: Vec::new(),
        }
    }

    /// Start every server of `entries` as a session does (one with a kept listing and an
    /// open failure policy at its first use); `env` reads warden's environment (header
    /// variables).
    pub fn start(
        entries: &[McpEntry],
        options: &LaunchContext,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, String> {
        Self::start_with(entries, options, env, false)
    }

    /// Start every server of `entries` now, kept listing or not: what `warden mcp list`
    /// shows is each server as it answers today (its listing is kept again).
    pub fn start_now(
        entries: &[McpEntry],
        options: &LaunchContext,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Self, String> {
        Self::start_with(entries, options, env, true)
    }

    fn start_with(
        entries: &[McpEntry],
        options: &LaunchContext,
        env: &dyn Fn(&str) -> Option<String>,
        now: bool,
    ) -> Result<Self, String> {
        if entries.is_empty() {
            return Ok(Self::empty());
        }
        let runtime = Arc::new(
            tokio::runtime::Builder::new_multi_thread()
                .worker_threads(1)
                .thread_name("warden-mcp")
                .enable_all()
                .build()
                .map_err(|e| format!("the MCP client's runtime: {e}"))?,
        );
        let vars: HashMap<String, String> = entries
            .iter()
            .flat_map(|e| &e.headers)
            .filter_map(|h| env(&h.var).map(|v| (h.var.clone(), v)))
            .collect();
        let servers: Vec<Arc<McpServer>> = std::thread::scope(|scope| {
            let handles: Vec<_> = entries
                .iter()
                .map(|entry| {
                    let runtime = Arc::clone(&runtime);
                    let vars = &vars;
                    scope.spawn(move || start_or_defer(entry, runtime, options, vars, now))
                })
                .collect();
            handles
                .into_iter()
                .zip(entries)
                .map(|(handle, entry)| {
                    handle.join().unwrap_or_else(|_| {
                        McpServer::failed(entry.clone(), Arc::clone(&runtime), "its start panicked")
                    })
                })
                .map(Arc::new)
                .collect()
        });
        let mut skipped = Vec::new();
        for server in &servers {
            for tool in server.tools() {
                let name = tool_name(server.name(), &tool.name);
                if !usable(&name) {
                    skipped.push(format!(
                        "MCP server `{}`: tool `{}` is not offered: `{name}` is not a usable tool name (1 to 64 of A-Z a-z 0-9 _ -)",
                        server.name(),
                        tool.name
                    ));
                }
            }
        }
        Ok(Self { servers, skipped })
    }

    /// The servers, in configuration order.
    pub fn servers(&self) -> &[Arc<McpServer>] {
        &self.servers
    }

    /// One alert per server that failed to start, and per tool left out.
    pub fn alerts(&self) -> Vec<Alert> {
        let mut alerts: Vec<Alert> = self
            .servers
            .iter()
            .filter_map(|server| match server.state() {
                ServerState::Failed(why) => Some(Alert::warn(
                    format!("mcp:{}", server.name()),
                    format!(
                        "MCP server `{}` failed to start: {why}; its tools are not offered",
                        server.name()
                    ),
                )),
                ServerState::Started | ServerState::Deferred => None,
            })
            .collect();
        alerts.extend(
            self.skipped
                .iter()
                .map(|message| Alert::warn("mcp", message.clone())),
        );
        alerts
    }

    /// The first server that failed to start under `failure = "closed"`, as a message.
    pub fn closed_failure(&self) -> Option<String> {
        self.servers.iter().find_map(|server| match server.state() {
            ServerState::Failed(why) if server.entry().failure == FailurePolicy::Closed => {
                Some(format!(
                    "MCP server `{}` failed to start and its failure policy is closed: {why}",
                    server.name()
                ))
            }
            _ => None,
        })
    }

    /// Every usable tool of every started server, with its server.
    pub fn tools(&self) -> Vec<(Arc<McpServer>, McpTool)> {
        self.servers
            .iter()
            .flat_map(|server| {
                server
                    .tools()
                    .iter()
                    .filter(|tool| usable(&tool_name(server.name(), &tool.name)))
                    .map(|tool| {
                        (
                            Arc::clone(server),
                            McpTool::new(Arc::clone(server), tool.clone()),
                        )
                    })
            })
            .collect()
    }

    /// What `warden mcp list` and `/mcp` show.
    pub fn rows(&self) -> Vec<ServerRow> {
        self.servers.iter().map(|server| row(server)).collect()
    }
}

/// Start the server of `entry`, keeping its listing, or, when a listing is kept, its failure
/// policy is open and it is not wanted `now`, defer its start to its first use. A closed
/// server always starts: its failure must stop the session before the first turn.
fn start_or_defer(
    entry: &McpEntry,
    runtime: Arc<tokio::runtime::Runtime>,
    options: &LaunchContext,
    vars: &HashMap<String, String>,
    now: bool,
) -> McpServer {
    let cache = listing_cache::path_for(&options.vars, entry);
    if !now
        && entry.failure != FailurePolicy::Closed
        && let Some(listing) = cache.as_deref().and_then(listing_cache::load)
    {
        return McpServer::deferred(entry.clone(), runtime, options, vars, listing, cache);
    }
    let server = McpServer::start(entry.clone(), runtime, options, vars);
    if server.state() == ServerState::Started
        && let Some(cache) = &cache
    {
        let listing = (server.tools().to_vec(), server.resources().to_vec());
        listing_cache::store(cache, &listing);
    }
    server
}

fn row(server: &McpServer) -> ServerRow {
    let entry = server.entry();
    let (transport, confinement) = match &entry.transport {
        McpTransport::Stdio { .. } if entry.sandbox == ShellSandbox::None => {
            ("stdio", "unsandboxed")
        }
        McpTransport::Stdio { .. } => ("stdio", "sandboxed"),
        McpTransport::Http { .. } => ("http", "remote"),
    };
    let (state, error) = match server.state() {
        ServerState::Started => ("started", None),
        ServerState::Deferred => ("starts at first use", None),
        ServerState::Failed(why) => ("failed", Some(why)),
    };
    ServerRow {
        name: entry.name.clone(),
        transport,
        target: entry.target(),
        origin: entry.origin.clone(),
        confinement,
        state,
        error,
        tools: server
            .tools()
            .iter()
            .map(|t| tool_name(server.name(), &t.name))
            .collect(),
        resources: server.resources().iter().map(|r| r.uri.clone()).collect(),
    }
}
