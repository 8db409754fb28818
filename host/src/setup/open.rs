//! The standard assembly of a [`Worker`] from configuration: the plugin engine (with its
//! compiled-code cache under `$WARDEN_HOME/cache`), the resolver, interceptors, hooks, tool
//! plugins and the tool registry, the model provider, and the session.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::provider;
use crate::config::{Config, PluginEntry, PluginKind};
use crate::domain::{Hook, Resolve, Tool};
use crate::fileref::tools::file_tools;
use crate::fileref::{DenyGlobs, DenyGuard};
use crate::llm::LlmError;
use crate::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, LoadJob, PluginEngine, PluginError,
    ResolverPlugin, ToolLoad, ToolPlugin, load_parallel, load_resolver, with_roots,
};
use crate::sandbox::ShellTool;
use crate::store::{AuditLog, Home, SessionWriter, StoreError};
use crate::tools::workspace_tools;
use crate::worker::{
    ChainEntry, DuplicateTool, Hooks, ToolClash, ToolOwner, ToolRegistry, Worker, WorkerParts,
};
/// Why a worker could not be assembled.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// A plugin or the resolver could not be loaded.
    #[error("{0}")]
    Plugin(#[from] PluginError),
    /// The model provider is misconfigured (e.g. a missing API key).
    #[error("{0}")]
    Provider(#[from] LlmError),
    /// The session could not be opened.
    #[error("{0}")]
    Store(#[from] StoreError),
    /// Two tools share a name.
    #[error("{0}")]
    Tools(#[from] DuplicateTool),
    /// A configured plugin's component file is missing.
    #[error(
        "{}: plugin `{name}`: its `path` {} {problem}",
        declared_in.display(),
        path.display()
    )]
    MissingComponent {
        /// Plugin name.
        name: String,
        /// The component path as configured.
        path: PathBuf,
        /// The config file that declared the plugin.
        declared_in: PathBuf,
        /// What is wrong with it.
        problem: String,
    },
    /// A plugin from a registry (`source = "oci://…"`) whose component is not in the cache.
    #[error(
        "{}: plugin `{name}`: its component from {reference} is not in the plugin cache ({problem}): run `warden plugin fetch {name}` where the registry can be reached (or copy the component to {}); nothing is fetched when plugins load",
        declared_in.display(),
        path.display()
    )]
    NotCached {
        /// Plugin name.
        name: String,
        /// The configured `source`.
        reference: String,
        /// The cache file.
        path: PathBuf,
        /// The config file that declared the plugin.
        declared_in: PathBuf,
        /// What is wrong with the cache file.
        problem: String,
    },
    /// A tool plugin's tool has the name of a built-in tool or of another plugin's tool.
    #[error("{0}")]
    ToolClash(#[from] ToolClash),
    /// An MCP server under `failure = "closed"` failed to start, or the client could not run.
    #[error("{0}")]
    Mcp(String),
    /// `[audit] sign_key` names a key that cannot be read or is not a secret key.
    #[error("{0}")]
    SignKey(String),
    /// The workspace directory is unusable.
    #[error("{}: {message}", path.display())]
    Workspace {
        /// Directory.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
}

impl SetupError {
    /// True when the person must fix configuration or usage (exit 2) rather than a runtime
    /// failure (exit 1).
    pub fn is_usage(&self) -> bool {
        match self {
            Self::Plugin(_)
            | Self::Workspace { .. }
            | Self::Tools(_)
            | Self::MissingComponent { .. }
            | Self::NotCached { .. }
            | Self::ToolClash(_)
            | Self::SignKey(_) => true,
            Self::Provider(err) => err.is_config_error(),
            Self::Store(_) | Self::Mcp(_) => false,
        }
    }
}

/// The canonical workspace root for `dir`.
pub fn workspace_root(dir: &Path) -> Result<PathBuf, SetupError> {
    let path = std::fs::canonicalize(dir).map_err(|err| SetupError::Workspace {
        path: dir.to_owned(),
        message: err.to_string(),
    })?;
    if !path.is_dir() {
        return Err(SetupError::Workspace {
            path,
            message: "not a directory".into(),
        });
    }
    Ok(path)
}

/// The plugin engine, caching compiled code under `home`.
pub fn engine(home: Option<&Home>) -> Result<PluginEngine, SetupError> {
    Ok(PluginEngine::new(EngineOptions {
        cache_dir: home.map(|h| h.root().join("cache").join("compiled")),
        ..EngineOptions::default()
    })?)
}

/// The plugin engine for `config` (its maximum component size), caching under `home`.
pub fn engine_for(home: Option<&Home>, config: &Config) -> Result<PluginEngine, SetupError> {
    Ok(PluginEngine::new(EngineOptions {
        cache_dir: home.map(|h| h.root().join("cache").join("compiled")),
        max_component_bytes: Some(config.policy.max_component_bytes()),
        signing: super::plugin_policy::enforce(config)?,
        ..EngineOptions::default()
    })?)
}

/// The configured resolver, seeing `workspace` read-only, behind the host's own deny check.
pub fn resolver(
    engine: &PluginEngine,
    config: &Config,
    workspace: &Path,
) -> Result<DenyGuard<ResolverPlugin>, SetupError> {
    let roots = [workspace.to_owned()];
    check_dev_resolver(config, workspace)?;
    let plugin = load_resolver(engine, &roots, &config.fileref)?;
    let deny =
        DenyGlobs::new(&config.fileref.deny, &roots).map_err(|message| PluginError::Load {
            plugin: "resolver".into(),
            stage: "deny globs",
            message,
        })?;
    Ok(DenyGuard::new(plugin, deny))
}

/// Refuse a resolver under development (`warden plugin dev`) whose file a session saw a tool
/// call, a command or an MCP server write, until the person accepts it again. (A file with
/// other bytes than the accepted build is refused by its `resolver_sha256` pin.)
fn check_dev_resolver(config: &Config, workspace: &Path) -> Result<(), SetupError> {
    let Some(resolver) = &config.fileref.resolver else {
        return Ok(());
    };
    let Some(overlay) = crate::config::dev_overlay_path(workspace, &|k| std::env::var(k).ok())
    else {
        return Ok(());
    };
    let name = crate::config::DEV_RESOLVER;
    if crate::config::dev_resolver(&overlay).as_ref() != Some(resolver)
        || !crate::config::written_in_session(&overlay, name)
    {
        return Ok(());
    }
    let found = std::fs::read(resolver)
        .map(|bytes| crate::plugin::sha256_hex(&bytes))
        .unwrap_or_else(|err| format!("unreadable ({err})"));
    Err(PluginError::Load {
        plugin: "resolver".into(),
        stage: "dev build check",
        message: crate::config::dev_build_not_accepted(
            name,
            resolver,
            config.fileref.resolver_sha256.as_deref(),
            &found,
            true,
        ),
    }
    .into())
}

/// Interceptors in chain order, and hooks.
pub type LoadedPlugins = (Vec<ChainEntry>, Vec<Box<dyn Hook>>);

/// The error for an entry whose component file cannot be used, if it cannot.
fn check_component(entry: &PluginEntry) -> Result<(), SetupError> {
    match missing_component(&entry.path) {
        None => Ok(()),
        Some(problem) if entry.source.is_some() => Err(SetupError::NotCached {
            name: entry.name.clone(),
            reference: entry.source.clone().unwrap_or_default(),
            path: entry.path.clone(),
            declared_in: entry
                .declared_in
                .clone()
                .unwrap_or_else(|| PathBuf::from(&entry.origin)),
            problem,
        }),
        Some(problem) => Err(SetupError::MissingComponent {
            name: entry.name.clone(),
            path: entry.path.clone(),
            declared_in: entry
                .declared_in
                .clone()
                .unwrap_or_else(|| PathBuf::from(&entry.origin)),
            problem,
        }),
    }
}

fn init_config(entry: &PluginEntry) -> Vec<(String, String)> {
    entry
        .config
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Load `entries` with `load` on a few threads (see [`load_parallel`]), results in their
/// order. The first failing entry in configuration order is the error (a component file that
/// cannot be used fails before it is loaded).
fn load_in_order<'a, T: Send>(
    entries: &[&'a PluginEntry],
    load: impl Fn(&'a PluginEntry) -> Result<T, PluginError> + Sync,
) -> Result<Vec<T>, SetupError> {
    let checks: Vec<Result<(), SetupError>> = entries
        .iter()
        .map(|entry| check_component(entry).and_then(|()| check_dev_digest(entry)))
        .collect();
    let load = &load;
    let jobs: Vec<LoadJob<'_, Result<T, PluginError>>> = entries
        .iter()
        .zip(&checks)
        .filter(|(_, check)| check.is_ok())
        .map(|(entry, _)| {
            let entry: &'a PluginEntry = entry;
            Box::new(move || load(entry)) as LoadJob<'_, Result<T, PluginError>>
        })
        .collect();
    let mut loaded = load_parallel(jobs).into_iter();
    let mut out = Vec::with_capacity(entries.len());
    for (entry, check) in entries.iter().zip(checks) {
        check?;
        let Some(result) = loaded.next() else {
            return Err(PluginError::Load {
                plugin: entry.name.clone(),
                stage: "load",
                message: "not loaded".into(),
            }
            .into());
        };
        out.push(result.map_err(|err| cached_mismatch(entry, err))?);
    }
    Ok(out)
}

/// Whether `entry` is a dev build of `warden plugin dev` (declared in the dev overlay).
fn is_dev(entry: &PluginEntry) -> bool {
    entry
        .declared_in
        .as_deref()
        .is_some_and(crate::config::is_dev_overlay)
}

/// A dev build's entry records the digest `warden plugin dev` accepted; one without it (written
/// before digests were recorded), or whose file a session saw written since, is refused like
/// a file that changed.
fn check_dev_digest(entry: &PluginEntry) -> Result<(), SetupError> {
    let written = entry
        .declared_in
        .as_deref()
        .is_some_and(|overlay| crate::config::written_in_session(overlay, &entry.name));
    if !is_dev(entry) || (entry.sha256.is_some() && !written) {
        return Ok(());
    }
    let found = std::fs::read(&entry.path).map_or_else(
        |err| format!("unreadable: {err}"),
        |bytes| crate::plugin::sha256_hex(&bytes),
    );
    Err(PluginError::Load {
        plugin: entry.name.clone(),
        stage: "dev build check",
        message: crate::config::dev_build_not_accepted(
            &entry.name,
            &entry.path,
            entry.sha256.as_deref(),
            &found,
            written,
        ),
    }
    .into())
}

/// A registry plugin's pin mismatch names the cache and `plugin update`, not `plugin pin`: the
/// file in the cache was changed, and the pin is what the registry served. A dev build's names
/// `warden plugin dev`: the file is not the build it accepted.
fn cached_mismatch(entry: &PluginEntry, err: PluginError) -> PluginError {
    if is_dev(entry)
        && let PluginError::DigestMismatch {
            plugin,
            expected,
            found,
        } = err
    {
        return PluginError::Load {
            message: crate::config::dev_build_not_accepted(
                &plugin,
                &entry.path,
                Some(&expected),
                &found,
                false,
            ),
            plugin,
            stage: "dev build check",
        };
    }
    match (&entry.source, err) {
        (
            Some(source),
            PluginError::DigestMismatch {
                plugin,
                expected,
                found,
            },
        ) => PluginError::Load {
            plugin,
            stage: "cache check",
            message: format!(
                "{} was changed since it was fetched from {source}: sha256 {found}, its pin \
                     {expected}; `warden plugin update {}` fetches it again",
                entry.path.display(),
                entry.name
            ),
        },
        (_, err) => err,
    }
}

/// Interceptors (chain order) and hooks from `config.plugins` (tool plugins are loaded by
/// [`tool_plugins`]), loaded on a few threads; the first failing entry in configuration order
/// is the error. Their `init` config gets `roots` (the workspace roots, as tool plugins and
/// resolvers do), though they see no filesystem.
pub fn plugins(
    engine: &PluginEngine,
    config: &Config,
    workspace: &Path,
) -> Result<LoadedPlugins, SetupError> {
    let roots = [workspace.to_owned()];
    enum Loaded {
        Interceptor(InterceptorPlugin),
        Hook(HookPlugin),
    }
    let entries: Vec<&PluginEntry> = config
        .plugins
        .iter()
        .filter(|entry| entry.kind != PluginKind::Tool)
        .collect();
    let init = |entry: &PluginEntry| with_roots(init_config(entry), &roots);
    let loaded = load_in_order(&entries, |entry| {
        let limits = Limits::from_entry(entry);
        let (name, path, pin) = (&entry.name, &entry.path, entry.sha256.as_deref());
        match entry.kind {
            PluginKind::Hook => {
                HookPlugin::load(engine, name, path, pin, limits, init(entry)).map(Loaded::Hook)
            }
            // Tool entries are filtered out above.
            PluginKind::Interceptor | PluginKind::Tool => {
                InterceptorPlugin::load(engine, name, path, pin, limits, init(entry))
                    .map(Loaded::Interceptor)
            }
        }
    })?;
    let mut chain = Vec::new();
    let mut hooks: Vec<Box<dyn Hook>> = Vec::new();
    for (entry, plugin) in entries.into_iter().zip(loaded) {
        match plugin {
            Loaded::Interceptor(plugin) => chain.push(ChainEntry {
                shadow: (entry.mode == crate::config::PluginMode::Shadow)
                    .then(|| plugin.info().sha256.clone()),
                plugin: Box::new(plugin),
                failure: entry.failure,
                // Checked when the configuration loaded; a matcher that no longer compiles
                // is refused here rather than widened to every tool.
                matcher: entry
                    .matcher
                    .as_deref()
                    .map(crate::domain::tool_matcher::ToolMatcher::parse)
                    .transpose()
                    .map_err(|reason| {
                        SetupError::Plugin(PluginError::Refused {
                            what: format!("plugin `{}`", entry.name),
                            reason: format!("`matcher` {reason}"),
                        })
                    })?,
            }),
            Loaded::Hook(plugin) => hooks.push(Box::new(plugin)),
        }
    }
    chain.extend(command_hooks(config, workspace)?);
    Ok((chain, hooks))
}

/// The `[[hooks]]` entries of `config`, in order, as chain entries: each runs its command in
/// the sandbox through this executable's launcher; `on_error = "deny"` is a closed failure
/// policy, `mode = "shadow"` records its answers under its digest.
pub fn command_hooks(config: &Config, workspace: &Path) -> Result<Vec<ChainEntry>, SetupError> {
    let launch = super::mcp_options(config, workspace);
    config
        .hooks
        .iter()
        .map(|entry| {
            let refused = |reason: String| {
                SetupError::Plugin(PluginError::Refused {
                    what: format!("hook `{}` ({})", entry.name, entry.declared_where()),
                    reason,
                })
            };
            let matcher = entry
                .matcher
                .as_deref()
                .filter(|_| entry.event.matches_tools())
                .map(crate::domain::tool_matcher::ToolMatcher::parse)
                .transpose()
                .map_err(|reason| refused(format!("`matcher` {reason}")))?;
            let hook = crate::command_hook::CommandHook::new(entry.clone(), launch.clone())
                .map_err(refused)?;
            Ok(ChainEntry {
                shadow: (entry.mode == crate::config::PluginMode::Shadow).then(|| entry.digest()),
                plugin: Box::new(hook),
                failure: match entry.on_error {
                    crate::config::HookOnError::Deny => crate::config::FailurePolicy::Closed,
                    crate::config::HookOnError::Allow => crate::config::FailurePolicy::Open,
                },
                matcher,
            })
        })
        .collect()
}

/// The tool plugins of `config.plugins`, in order, each given its grants over `workspace`
/// (its `env` grant reads variables through `env`), loaded on a few threads like the other
/// plugins.
pub fn tool_plugins(
    engine: &PluginEngine,
    config: &Config,
    workspace: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<(ToolPlugin, ToolOwner)>, SetupError> {
    let roots = [workspace.to_owned()];
    let entries: Vec<&PluginEntry> = config
        .plugins
        .iter()
        .filter(|e| e.kind == PluginKind::Tool)
        .collect();
    // The granted variables, read here: `env` need not be shared between threads. Those that
    // name warden's own paths too (a plugin is given only its granted ones).
    let vars: HashMap<&str, String> = entries
        .iter()
        .flat_map(|entry| entry.grants.env.iter().map(String::as_str))
        .chain(crate::config::OWN_PATH_VARS.iter().copied())
        .filter_map(|key| env(key).map(|value| (key, value)))
        .collect();
    let plugins = load_in_order(&entries, |entry| {
        ToolPlugin::load(
            engine,
            &entry.name,
            ToolLoad {
                path: &entry.path,
                pin: entry.sha256.as_deref(),
                limits: Limits::from_entry(entry),
                grants: &entry.grants,
                roots: &roots,
                deny: &config.fileref.deny,
            },
            init_config(entry),
            &|key| vars.get(key).cloned(),
        )
    })?;
    Ok(entries
        .into_iter()
        .zip(plugins)
        .map(|(entry, plugin)| {
            let owner = ToolOwner {
                plugin: entry.name.clone(),
                approve: entry.approve,
                grants: entry.grants.clone(),
                failure: entry.failure,
                mcp: None,
            };
            (plugin, owner)
        })
        .collect())
}

/// The built-in tools, in the order they are offered: `read_file` and `list_files` (through
/// the resolver), then `write_file`, `edit_file`, `grep` and `glob` (native, on `workspace`),
/// then `shell` (in its sandbox), then `update_plan`.
pub fn builtin_tools(config: &Config, workspace: &Path) -> Result<Vec<Box<dyn Tool>>, SetupError> {
    let mut tools = file_tools(&config.fileref);
    tools.extend(workspace_tools(&config.fileref, workspace).map_err(|e| {
        SetupError::Workspace {
            path: workspace.to_path_buf(),
            message: e.to_string(),
        }
    })?);
    tools.push(Box::new(ShellTool::for_this_process(
        config,
        &[workspace.to_owned()],
    )));
    tools.push(Box::new(crate::tools::UpdatePlan));
    Ok(tools)
}

/// The built-in tools, then every tool of `tool_plugins`; a name taken twice is a
/// configuration error naming both owners.
pub fn tool_registry(
    config: &Config,
    workspace: &Path,
    tool_plugins: &[(ToolPlugin, ToolOwner)],
) -> Result<ToolRegistry, SetupError> {
    let mut registry = ToolRegistry::with(builtin_tools(config, workspace)?)?;
    for (plugin, owner) in tool_plugins {
        for tool in plugin.tools() {
            registry.register_plugin_tool(tool, owner.clone())?;
        }
    }
    Ok(registry)
}

/// Why a component path cannot be used, if it cannot.
fn missing_component(path: &Path) -> Option<String> {
    if let Some(problem) = crate::plugin::builtin::check_path(path) {
        return problem;
    }
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() => None,
        Ok(_) => Some("is not a regular file".to_owned()),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => Some("does not exist".to_owned()),
        Err(err) => Some(format!("cannot be read: {err}")),
    }
}

/// Checks that `[audit] sign_key`, when set, names a usable secret key: a key that cannot be
/// used is said before a session starts, not when it ends.
pub fn check_sign_key(config: &Config) -> Result<(), SetupError> {
    if let Some(path) = &config.audit.sign_key {
        crate::worker::audit_sign::load_key(path)
            .map_err(|e| SetupError::SignKey(format!("audit.sign_key: {e}")))?;
    }
    Ok(())
}

/// A worker for `workspace` on the session `session` (created when absent; a new id when
/// `None`).
pub fn open(
    config: &Config,
    workspace: &Path,
    session: Option<&str>,
    home: &Home,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Worker, SetupError> {
    open_with(config, workspace, home, env, || match session {
        Some(id) => SessionWriter::open_or_create(home, id, workspace),
        None => SessionWriter::create(home, None, workspace),
    })
}

/// A worker for `workspace` on a new child session of `parent` (which must exist): each turn's
/// end is reported to the parent's inbox.
pub fn open_child(
    config: &Config,
    workspace: &Path,
    parent: &str,
    home: &Home,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Worker, SetupError> {
    open_with(config, workspace, home, env, || {
        SessionWriter::create_child(home, workspace, parent)
    })
}

/// Everything but the session, then the session from `writer` (so that a configuration error
/// creates no session).
fn open_with(
    config: &Config,
    workspace: &Path,
    home: &Home,
    env: &dyn Fn(&str) -> Option<String>,
    make_writer: impl FnOnce() -> Result<SessionWriter, StoreError>,
) -> Result<Worker, SetupError> {
    check_sign_key(config)?;
    let provider = provider::from_config(&config.model, env)?;
    let engine = engine_for(Some(home), config)?;
    let resolver: Box<dyn Resolve> = Box::new(resolver(&engine, config, workspace)?);
    let (chain, hooks) = plugins(&engine, config, workspace)?;
    let mut tools = tool_registry(
        config,
        workspace,
        &tool_plugins(&engine, config, workspace, env)?,
    )?;
    let mcp = super::start_mcp(config, workspace, env)?;
    let resolver = super::add_mcp(&mcp, resolver, &mut tools)?;
    let writer = make_writer()?;
    for warning in writer.warnings() {
        tracing::warn!("{warning}");
    }
    let audit = AuditLog::open(home, writer.id())?;
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider,
        resolver,
        chain,
        hooks: Hooks::new(hooks),
        tools,
        config: config.clone(),
    });
    for alert in mcp.alerts() {
        worker.defer_alert(alert);
    }
    Ok(worker)
}
