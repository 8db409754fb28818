//! The worker a front end talks to: the standard assembly from configuration (provider,
//! engine, resolver, interceptor chain with the command hooks, hooks, tool plugins, MCP
//! servers, session), with a seam ([`Wrap`]) through which a front end may wrap each plugin it
//! loads (the chat counts calls for `/plugins` and swaps dev builds).

use std::path::Path;

use crate::config::{Config, PluginEntry, PluginKind};
use crate::domain::{Hook, Resolve, Tool};
use crate::mcp::ServerRow;
use crate::plugin::PluginEngine;
use crate::setup;
use crate::store::{AuditLog, Home, SessionWriter};
use crate::worker::{ChainEntry, Hooks, ToolRegistry, Worker, WorkerParts};

use super::error::FrontError;
use super::sources::env;

/// What a front end may do to each plugin as it is loaded; every method keeps it as it is
/// unless overridden.
pub trait Wrap {
    /// `entry` (a `[[plugins]]` entry, in configuration order) is about to be loaded.
    fn entry(&mut self, entry: &PluginEntry) {
        let _ = entry;
    }
    /// The interceptor loaded for `entry`.
    fn interceptor(&mut self, entry: &PluginEntry, loaded: ChainEntry) -> ChainEntry {
        let _ = entry;
        loaded
    }
    /// The hook loaded for `entry`.
    fn hook(&mut self, entry: &PluginEntry, loaded: Box<dyn Hook>) -> Box<dyn Hook> {
        let _ = entry;
        loaded
    }
    /// The tools of the tool plugin loaded for `entry`.
    fn tools(
        &mut self,
        entry: &PluginEntry,
        loaded: Vec<Box<dyn Tool + Send>>,
    ) -> Vec<Box<dyn Tool + Send>> {
        let _ = entry;
        loaded
    }
    /// A value an MCP server's start reads (`env`, a header) that the front end holds itself
    /// (an editor's `mcpServers` hand them over); `None`: read the environment.
    fn mcp_value(&self, var: &str) -> Option<String> {
        let _ = var;
        None
    }
    /// The engine the plugins were loaded with, once they all are.
    fn engine(&mut self, engine: PluginEngine) {
        let _ = engine;
    }
}

/// Plugins as they are loaded.
pub struct AsLoaded;

impl Wrap for AsLoaded {}

/// A worker and the rows of its MCP servers (state and tools, for `/mcp`).
pub struct Assembled {
    /// The worker.
    pub worker: Worker,
    /// The MCP servers as started.
    pub mcp: Vec<ServerRow>,
}

/// A worker on `session` (a new session of `workspace` when `None`).
pub fn assemble(
    config: &Config,
    workspace: &Path,
    home: &Home,
    session: Option<&str>,
    wrap: &mut dyn Wrap,
) -> Result<Assembled, FrontError> {
    setup::check_sign_key(config)?;
    let provider = setup::provider::from_config(&config.model, &env)
        .map_err(|e| FrontError::from(setup::SetupError::from(e)))?;
    let engine = setup::engine_for(Some(home), config)?;
    let resolver: Box<dyn Resolve> = Box::new(setup::resolver(&engine, config, workspace)?);
    let (chain, hooks) = setup::plugins(&engine, config, workspace)?;
    let tool_plugins = setup::tool_plugins(&engine, config, workspace, &env)?;
    let mut chain = chain.into_iter();
    let mut hooks = hooks.into_iter();
    let mut tool_plugins = tool_plugins.iter();
    let mut wrapped_chain = Vec::new();
    let mut wrapped_hooks = Vec::new();
    let mut tools = ToolRegistry::with(setup::builtin_tools(config, workspace)?)
        .map_err(|e| FrontError::usage(e.to_string()))?;
    for entry in &config.plugins {
        wrap.entry(entry);
        match entry.kind {
            PluginKind::Interceptor => {
                if let Some(plugin) = chain.next() {
                    wrapped_chain.push(wrap.interceptor(entry, plugin));
                }
            }
            PluginKind::Hook => {
                if let Some(hook) = hooks.next() {
                    wrapped_hooks.push(wrap.hook(entry, hook));
                }
            }
            PluginKind::Tool => {
                if let Some((plugin, owner)) = tool_plugins.next() {
                    for tool in wrap.tools(entry, plugin.tools()) {
                        tools
                            .register_plugin_tool(tool, owner.clone())
                            .map_err(|e| FrontError::usage(e.to_string()))?;
                    }
                }
            }
        }
    }
    // The `[[hooks]]` command hooks come after the interceptor plugins, in the one chain.
    wrapped_chain.extend(chain);
    let mcp_env = |var: &str| wrap.mcp_value(var).or_else(|| env(var));
    let mcp = setup::start_mcp(config, workspace, &mcp_env)?;
    let resolver = setup::add_mcp(&mcp, resolver, &mut tools)?;
    let writer = match session {
        // An id that names no session (or one in use) is the caller's to fix.
        Some(id) => SessionWriter::open(home, id).map_err(|e| FrontError::usage(e.to_string())),
        None => SessionWriter::create(home, None, workspace)
            .map_err(|e| FrontError::failure(e.to_string())),
    }?;
    for warning in writer.warnings() {
        tracing::warn!("{warning}");
    }
    let audit =
        AuditLog::open(home, writer.id()).map_err(|e| FrontError::failure(e.to_string()))?;
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider,
        resolver,
        chain: wrapped_chain,
        hooks: Hooks::new(wrapped_hooks),
        tools,
        config: config.clone(),
    });
    for alert in mcp.alerts() {
        worker.defer_alert(alert);
    }
    wrap.engine(engine);
    Ok(Assembled {
        worker,
        mcp: mcp.rows(),
    })
}

/// Open session `id` of `workspace`, refusing one recorded for another workspace
/// (`resume_hint`: the command that would resume it there, given the recorded root).
pub fn open_session(
    home: &Home,
    workspace: &Path,
    id: &str,
    resume_hint: &dyn Fn(&Path) -> String,
) -> Result<(SessionWriter, AuditLog), FrontError> {
    let writer = SessionWriter::open(home, id).map_err(|e| FrontError::usage(e.to_string()))?;
    let recorded = &writer.header().workspace;
    if recorded != workspace {
        return Err(FrontError::usage(format!(
            "session {id} belongs to {}; {}",
            recorded.display(),
            resume_hint(recorded)
        )));
    }
    let audit = AuditLog::open(home, id).map_err(|e| FrontError::failure(e.to_string()))?;
    Ok((writer, audit))
}

/// A new session of `workspace`.
pub fn new_session(home: &Home, workspace: &Path) -> Result<(SessionWriter, AuditLog), FrontError> {
    let writer = SessionWriter::create(home, None, workspace)
        .map_err(|e| FrontError::failure(e.to_string()))?;
    let audit =
        AuditLog::open(home, writer.id()).map_err(|e| FrontError::failure(e.to_string()))?;
    Ok((writer, audit))
}
