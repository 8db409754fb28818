//! The chat's worker: the standard assembly, with every plugin wrapped so that `/plugins` can
//! show its calls and failures.

use std::path::Path;
use std::sync::Arc;

use super::counted::{CountedHook, CountedInterceptor, CountedTool, PluginRow};
use super::dev_reload::DevBuilds;
use crate::cli::common::{env, setup_error};
use crate::cli::exit::CliError;
use crate::config::{Config, PluginKind};
use crate::domain::Resolve;
use crate::mcp::ServerRow;
use crate::setup;
use crate::store::{AuditLog, Home, SessionWriter};
use crate::worker::{Hooks, ToolRegistry, Worker, WorkerParts};

/// What the chat is made of: its worker, the `/plugins` rows, the `/mcp` rows, and the dev
/// builds it reloads when they are rebuilt.
pub(crate) struct Assembled {
    pub worker: Worker,
    pub plugins: Vec<PluginRow>,
    pub mcp: Vec<ServerRow>,
    pub dev: DevBuilds,
}

/// A worker on `session` (a new session when `None`), with its rows and dev builds.
pub(crate) fn assemble(
    config: &Config,
    workspace: &Path,
    home: &Home,
    session: Option<&str>,
) -> Result<Assembled, CliError> {
    setup::check_sign_key(config).map_err(setup_error)?;
    let provider =
        setup::provider::from_config(&config.model, &env).map_err(|e| setup_error(e.into()))?;
    let engine = setup::engine_for(Some(home), config).map_err(setup_error)?;
    let resolver: Box<dyn Resolve> =
        Box::new(setup::resolver(&engine, config, workspace).map_err(setup_error)?);
    let (chain, hooks) = setup::plugins(&engine, config, workspace).map_err(setup_error)?;
    let tool_plugins =
        setup::tool_plugins(&engine, config, workspace, &env).map_err(setup_error)?;
    let mut rows = Vec::new();
    let mut chain = chain.into_iter();
    let mut hooks = hooks.into_iter();
    let mut tool_plugins = tool_plugins.iter();
    let mut wrapped_chain = Vec::new();
    let mut wrapped_hooks = Vec::new();
    let mut dev = DevBuilds::new(config, workspace);
    let mut tools =
        ToolRegistry::with(setup::builtin_tools(config, workspace).map_err(setup_error)?)
            .map_err(|e| CliError::usage(e.to_string()))?;
    for entry in &config.plugins {
        let (row, counters) = PluginRow::new(entry);
        rows.push(row);
        match entry.kind {
            PluginKind::Interceptor => {
                if let Some(mut plugin) = chain.next() {
                    if dev.is_dev(entry) {
                        plugin = dev.interceptor(entry, plugin);
                    }
                    wrapped_chain.push(CountedInterceptor::wrap(plugin, counters));
                }
            }
            PluginKind::Hook => {
                if let Some(mut hook) = hooks.next() {
                    if dev.is_dev(entry) {
                        hook = dev.hook(entry, hook);
                    }
                    wrapped_hooks.push(CountedHook::wrap(hook, counters));
                }
            }
            PluginKind::Tool => {
                if let Some((plugin, owner)) = tool_plugins.next() {
                    let mut loaded = plugin.tools();
                    if dev.is_dev(entry) {
                        loaded = dev.tools(entry, loaded);
                    }
                    for tool in loaded {
                        tools
                            .register_plugin_tool(
                                CountedTool::wrap(tool, Arc::clone(&counters)),
                                owner.clone(),
                            )
                            .map_err(|e| CliError::usage(e.to_string()))?;
                    }
                }
            }
        }
    }
    let mcp = setup::start_mcp(config, workspace, &env).map_err(setup_error)?;
    let resolver = setup::add_mcp(&mcp, resolver, &mut tools).map_err(setup_error)?;
    let writer = match session {
        Some(id) => SessionWriter::open(home, id),
        None => SessionWriter::create(home, None, workspace),
    }
    .map_err(|e| CliError::failure(e.to_string()))?;
    for warning in writer.warnings() {
        tracing::warn!("{warning}");
    }
    let audit = AuditLog::open(home, writer.id()).map_err(|e| CliError::failure(e.to_string()))?;
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
    dev.keep_engine(engine);
    Ok(Assembled {
        worker,
        plugins: rows,
        mcp: mcp.rows(),
        dev,
    })
}

/// Open session `id` for this chat, refusing one recorded for another workspace.
pub(crate) fn open_session(
    home: &Home,
    workspace: &Path,
    id: &str,
) -> Result<(SessionWriter, AuditLog), String> {
    let writer = SessionWriter::open(home, id).map_err(|e| e.to_string())?;
    let recorded = &writer.header().workspace;
    if recorded != workspace {
        return Err(format!(
            "session {id} belongs to {}; run `warden chat -C {} --resume {id}`",
            recorded.display(),
            recorded.display()
        ));
    }
    let audit = AuditLog::open(home, id).map_err(|e| e.to_string())?;
    Ok((writer, audit))
}

/// A new session of `workspace`.
pub(crate) fn new_session(
    home: &Home,
    workspace: &Path,
) -> Result<(SessionWriter, AuditLog), String> {
    let writer = SessionWriter::create(home, None, workspace).map_err(|e| e.to_string())?;
    let audit = AuditLog::open(home, writer.id()).map_err(|e| e.to_string())?;
    Ok((writer, audit))
}
