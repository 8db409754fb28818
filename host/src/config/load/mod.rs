//! Loading and layering: built-in defaults < user < project < managed.
//!
//! Each file is first checked on its own (so an error names its file, line and key), then the
//! layers are merged as TOML tables: later layers override, `fileref.deny` only ever grows,
//! `[[plugins]]` accumulate, and keys the managed layer locks (tables included, `plugins`
//! included) keep the managed (or default) value. Policy from any layer can only tighten;
//! under `managed_plugins_only` the resolver keys of other layers are ignored too.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use super::error::ConfigError;
use super::locks::{self, LockedKey};
use super::managed::{self, ManagedSource, SYSTEM_MANAGED_PATH};
use super::schema::{
    Config, FileRefConfig, ModelConfig, PluginSpec, PolicyConfig, ToolsConfig, WorkerConfig,
};
use super::trust::{ProjectCode, ProjectResolver};

mod mode;
mod origin;
mod policy;
mod validate;

pub use origin::{Origin, Origins, load_with_origins};

/// A configuration file's shape.
#[derive(Debug, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
struct FileConfig {
    model: ModelConfig,
    fileref: FileRefConfig,
    worker: WorkerConfig,
    plan: super::PlanConfig,
    tools: ToolsConfig,
    plugins: Vec<PluginSpec>,
    policy: PolicyConfig,
    mcp: Vec<super::McpSpec>,
    hooks: Vec<super::HookSpec>,
    registries: super::RegistriesConfig,
    telemetry: super::TelemetryConfig,
    audit: super::AuditConfig,
    /// Read with their lines by `config/rules.rs`.
    rules: Vec<Value>,
}

/// Which layer a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LayerKind {
    /// `~/.config/warden/config.toml`.
    User,
    /// `<workspace>/.warden/config.toml`.
    Project,
    /// `/etc/warden/managed.toml`, or `$WARDEN_MANAGED_CONFIG` where no system file exists.
    Managed,
}

impl LayerKind {
    /// `user`, `project` or `managed`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::User => "user",
            Self::Project => "project",
            Self::Managed => "managed",
        }
    }
}

/// Where the layers are read from.
#[derive(Debug, Clone)]
pub struct Sources {
    /// Files in precedence order, lowest first; missing files are skipped. A managed file that
    /// exists but cannot be read or parsed is an error. A second `User` layer is the workspace's
    /// dev overlay (`config/dev_overlay.rs`): only its `[[plugins]]` and resolver keys are read.
    pub layers: Vec<(LayerKind, PathBuf)>,
    /// Whether the managed file in `layers` is the system one.
    pub managed_is_system: bool,
    /// Warnings about the choice of files (an ignored `$WARDEN_MANAGED_CONFIG`).
    pub notes: Vec<String>,
}

impl Sources {
    /// The standard locations for a workspace, honouring `$XDG_CONFIG_HOME`, `$HOME` and
    /// (where no system managed file exists) `$WARDEN_MANAGED_CONFIG`.
    pub fn standard(workspace: &Path, env: &dyn Fn(&str) -> Option<String>) -> Self {
        Self::standard_with_system(workspace, env, Path::new(SYSTEM_MANAGED_PATH))
    }

    /// Like [`Sources::standard`], with the system managed file at `system`.
    pub fn standard_with_system(
        workspace: &Path,
        env: &dyn Fn(&str) -> Option<String>,
        system: &Path,
    ) -> Self {
        let mut layers = Vec::new();
        let config_home = env("XDG_CONFIG_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .or_else(|| env("HOME").map(|h| PathBuf::from(h).join(".config")));
        if let Some(dir) = config_home {
            layers.push((LayerKind::User, dir.join("warden").join("config.toml")));
            // The dev overlay of `warden plugin dev`, when there is one: a second user layer.
            if let Some(dev) = super::dev_overlay_path(workspace, env).filter(|p| p.is_file()) {
                layers.push((LayerKind::User, dev));
            }
        }
        layers.push((
            LayerKind::Project,
            workspace.join(".warden").join("config.toml"),
        ));
        let (managed, managed_is_system, note) = managed::choose(system, env);
        layers.push((LayerKind::Managed, managed));
        Self {
            layers,
            managed_is_system,
            notes: note.into_iter().collect(),
        }
    }
}

/// The merged configuration and what the person should be told about it.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The configuration.
    pub config: Config,
    /// Settings that were ignored (locked keys, policy loosening), for alerts.
    pub warnings: Vec<String>,
    /// Built-in defaults lowered to a ceiling without a warning (nobody set them), for
    /// `warden config show`.
    pub defaults_clamped: Vec<super::ClampedDefault>,
    /// Files that were read, in order.
    pub files: Vec<PathBuf>,
    /// The managed file in force, if any: path and sha256.
    pub managed: Option<ManagedSource>,
    /// The keys locked by managed policy, each with the layer, file and line that locked it.
    pub locks: Vec<LockedKey>,
    /// What the project layer declares that runs code (its plugins, its resolver keys), if
    /// anything: what `warden trust` records.
    pub project_code: Option<ProjectCode>,
    /// False when the project's code was left out ([`load_without_project_code`]): then
    /// [`Loaded::project_code`] says what was left out.
    pub project_code_loaded: bool,
    /// Plugin entries refused by policy (a grant over a ceiling), each as the error it would
    /// be: only [`load_for_show`] fills it; every other load fails on the first.
    pub refused: Vec<String>,
    /// Names of the dev overlay's entries (`warden plugin dev`): a project entry of the same
    /// name is left out, and waits for trust as it was last trusted.
    pub dev_overrides: Vec<String>,
}

impl Loaded {
    /// The lock covering dotted `key` (the key itself or a table above it), if any.
    pub fn locked_by(&self, key: &str) -> Option<&LockedKey> {
        self.locks.iter().find(|lock| lock.covers(key))
    }
}

/// One layer read and checked.
struct Layer {
    kind: LayerKind,
    path: PathBuf,
    table: Table,
    rules: Vec<crate::domain::rules::Rule>,
    /// The dev overlay.
    dev: bool,
}

/// Read and merge the layers in `sources`.
pub fn load(sources: &Sources) -> Result<Loaded, ConfigError> {
    load_with(sources, true, false)
}

/// [`load`] for `warden config show`: a plugin entry that policy refuses (a grant above a
/// ceiling, a tool under managed-tools-only) is left out and listed in [`Loaded::refused`]
/// instead of failing the load, so that everything else can still be shown.
pub fn load_for_show(sources: &Sources) -> Result<Loaded, ConfigError> {
    load_with(sources, true, true)
}

/// [`load`], leaving out what the project layer declares that runs code or grants more: its
/// `[[plugins]]` and `[[mcp]]` entries, its `fileref.resolver`, `resolver_sha256` and
/// `resolver_config`, a `tools.mode` above the user layer's, and the settings held back until
/// trust ([`HELD_SETTINGS`](super::HELD_SETTINGS)), for a workspace that is not trusted. Its
/// other settings (deny globs, lower ceilings, a lower mode) apply as usual.
pub fn load_without_project_code(sources: &Sources) -> Result<Loaded, ConfigError> {
    load_with(sources, false, false)
}

fn load_with(
    sources: &Sources,
    include_project_code: bool,
    lenient: bool,
) -> Result<Loaded, ConfigError> {
    let mut parsed = Vec::new();
    let mut managed = None;
    let mut locks = Vec::new();
    let mut user_layers = 0;
    for (kind, path) in &sources.layers {
        if *kind == LayerKind::User {
            user_layers += 1;
        }
        let dev = *kind == LayerKind::User && user_layers > 1;
        let text = if *kind == LayerKind::Managed {
            match managed::read(path)? {
                Some(text) => text,
                None => continue,
            }
        } else {
            match std::fs::read_to_string(path) {
                Ok(text) => text,
                Err(err) if err.kind() == std::io::ErrorKind::NotFound => continue,
                Err(source) => {
                    return Err(ConfigError::Read {
                        path: path.clone(),
                        source,
                    });
                }
            }
        };
        let mut table = parse_layer(path, &text)?;
        if dev {
            // Its plugins, and the resolver keys of a resolver under development.
            table.retain(|key, _| key == "plugins" || key == "fileref");
            if let Some(Value::Table(fileref)) = table.get_mut("fileref") {
                fileref.retain(|key, _| RESOLVER_KEYS.contains(&key));
            }
        }
        let rules = if dev {
            Vec::new()
        } else {
            super::rules::read_layer(*kind, path, &text)?
        };
        if *kind == LayerKind::Managed {
            locks = locks::check(path, &text)?;
            managed = Some(managed::source(path, &text, sources.managed_is_system));
        }
        parsed.push(Layer {
            kind: *kind,
            path: path.clone(),
            table,
            rules,
            dev,
        });
    }
    let user_file = sources
        .layers
        .iter()
        .find(|(kind, _)| *kind == LayerKind::User)
        .map(|(_, path)| path.clone());
    // The project layer is `<workspace>/.warden/config.toml`, read or not.
    let workspace = sources
        .layers
        .iter()
        .find(|(kind, _)| *kind == LayerKind::Project)
        .and_then(|(_, path)| path.parent()?.parent().map(Path::to_owned));
    let mut loaded = merge_layers(
        parsed,
        &locks,
        include_project_code,
        lenient,
        user_file,
        workspace,
    )?;
    let mut warnings = sources.notes.clone();
    warnings.append(&mut loaded.warnings);
    loaded.warnings = warnings;
    loaded.managed = managed;
    loaded.locks = locks;
    Ok(loaded)
}

/// Parse and check one file: syntax, unknown keys and types, with file, line and key.
fn parse_layer(path: &Path, text: &str) -> Result<Table, ConfigError> {
    if let Err(err) = toml::from_str::<FileConfig>(text) {
        return Err(validate::with_hint(ConfigError::parse(path, text, &err)));
    }
    validate::check_values(path, text)?;
    let mut table: Table =
        toml::from_str(text).map_err(|err| ConfigError::parse(path, text, &err))?;
    absolutize_paths(&mut table, path.parent().unwrap_or(Path::new(".")));
    Ok(table)
}

/// Relative component paths are relative to the file that names them.
fn absolutize_paths(table: &mut Table, base: &Path) {
    let fix = |v: &mut Value| {
        if let Value::String(s) = v {
            let p = Path::new(s.as_str());
            if p.is_relative() {
                *s = base.join(p).to_string_lossy().into_owned();
            }
        }
    };
    if let Some(Value::Array(plugins)) = table.get_mut("plugins") {
        for plugin in plugins {
            // `builtin:NAME` names a component carried by the binary, not a file.
            if let Some(path) = plugin.get_mut("path")
                && !path.as_str().is_some_and(|p| p.starts_with("builtin:"))
            {
                fix(path);
            }
        }
    }
    if let Some(Value::Table(fileref)) = table.get_mut("fileref")
        && let Some(path) = fileref.get_mut("resolver")
    {
        fix(path);
    }
}

/// Keys of the resolver: under `managed_plugins_only` only the managed layer may set them.
const RESOLVER_KEYS: &[&str] = &["resolver", "resolver_sha256", "resolver_config"];

fn merge_layers(
    layers: Vec<Layer>,
    locks: &[LockedKey],
    include_project_code: bool,
    lenient: bool,
    user_file: Option<PathBuf>,
    workspace: Option<PathBuf>,
) -> Result<Loaded, ConfigError> {
    let mut refused = Vec::new();
    let mut warnings = Vec::new();
    let mut project_resolver = None;
    let mut project_settings = std::collections::BTreeMap::new();
    let mut files = Vec::new();
    // Managed-plugins-only may be asked for by any layer (policy only tightens).
    let plugins_only = layers.iter().any(|layer| {
        layer
            .table
            .get("policy")
            .and_then(|p| p.get("managed_plugins_only"))
            .and_then(Value::as_bool)
            == Some(true)
    });

    let mut merged = Table::new();
    let mut deny: Vec<String> = FileRefConfig::default().deny;
    let mut plugins: Vec<(LayerKind, PathBuf, bool, Value)> = Vec::new();
    let mut mcp: Vec<(LayerKind, Value)> = Vec::new();
    let mut hooks: Vec<(LayerKind, Value)> = Vec::new();
    let mut policy = PolicyConfig::default();
    let mut modes = mode::ModeAsks::default();
    let mut shell = super::shell::ShellLayers::default();
    let mut telemetry = super::telemetry_layers::TelemetryLayers::default();
    let layer_files: Vec<(LayerKind, PathBuf)> =
        layers.iter().map(|l| (l.kind, l.path.clone())).collect();
    let file_of = |kind: LayerKind| {
        layer_files
            .iter()
            .find(|(k, _)| *k == kind)
            .map_or_else(|| PathBuf::from(kind.as_str()), |(_, p)| p.clone())
    };

    // A resolver under development (`warden plugin dev`) takes the place of the project's.
    let dev_resolver = layers.iter().find_map(|l| {
        let path = l.table.get("fileref")?.get("resolver")?.as_str()?;
        l.dev.then(|| (path.to_owned(), l.path.clone()))
    });
    if let Some((resolver, overlay)) = &dev_resolver {
        warnings.push(format!(
            "the resolver is a dev build ({resolver}), loaded for this user by `warden plugin dev` ({}); `warden plugin dev --stop` ends it",
            overlay.display()
        ));
    }
    let mut locked_hits: Vec<super::locks::LockedHit> = Vec::new();
    let mut rule_layers = super::rules::RuleLayers::default();
    let mut builtin_rules = true;
    for Layer {
        kind,
        path,
        mut table,
        rules,
        dev,
    } in layers
    {
        files.push(path.clone());
        table.remove("rules");
        rule_layers.add(kind, rules, include_project_code);
        if kind != LayerKind::Managed {
            // Locks first, so that nothing below (plugins, deny globs) escapes them.
            for lock in locks {
                if let Some(removed) = remove_dotted(&mut table, &lock.key) {
                    // Named by what the layer set: `telemetry.enabled`, not the whole table.
                    let mut set = Vec::new();
                    keys_set(&lock.key, &removed, &mut set);
                    locked_hits.extend(
                        set.into_iter()
                            .map(|key| (lock.key.clone(), key, path.clone())),
                    );
                }
            }
            if plugins_only && let Some(Value::Table(fr)) = table.get_mut("fileref") {
                for key in RESOLVER_KEYS {
                    if fr.remove(*key).is_some() {
                        warnings.push(format!(
                            "{}: `fileref.{key}` from the {} layer was not used: managed policy allows managed plugins only (the resolver is the built-in one or the one the managed layer names)",
                            path.display(),
                            kind.as_str()
                        ));
                    }
                }
            }
        }
        // Any layer may turn the built-in rules off (unless managed policy locks them); none
        // can turn them back on.
        if let Some(Value::Table(tools)) = table.get_mut("tools")
            && let Some(value) = tools.remove("builtin_rules")
        {
            builtin_rules &= value.as_bool() != Some(false);
        }
        if kind == LayerKind::Project {
            project_settings = take_held_settings(&mut table, include_project_code);
            if let Some(held) = rule_layers.held_declaration() {
                project_settings.insert("rules.allow".to_owned(), held);
            }
        }
        if modes.note(kind, &path, &table).is_some()
            && kind == LayerKind::Project
            && modes.project_raise().is_some()
            && !include_project_code
        {
            mode::remove(&mut table);
        }
        if let Some(Value::Array(list)) = table.remove("plugins")
            && (include_project_code || kind != LayerKind::Project)
        {
            plugins.extend(list.into_iter().map(|v| (kind, path.clone(), dev, v)));
        }
        // `[[mcp]]` entries run code as the plugins do: a project's only once it is trusted.
        if let Some(Value::Array(list)) = table.remove("mcp")
            && (include_project_code || kind != LayerKind::Project)
        {
            mcp.extend(list.into_iter().map(|v| (kind, v)));
        }
        // So do `[[hooks]]` entries.
        if let Some(Value::Array(list)) = table.remove("hooks")
            && (include_project_code || kind != LayerKind::Project)
        {
            hooks.extend(list.into_iter().map(|v| (kind, v)));
        }
        if let Some(Value::Table(fr)) = table.get_mut("fileref")
            && let Some(Value::Array(globs)) = fr.remove("deny")
        {
            for glob in globs
                .into_iter()
                .filter_map(|g| g.as_str().map(str::to_owned))
            {
                if !deny.contains(&glob) {
                    deny.push(glob);
                }
            }
        }
        if let Some(value) = table.remove("policy") {
            policy::merge(&mut policy, value, kind, &path, &mut warnings)?;
        }
        if kind == LayerKind::Project
            && dev_resolver.is_some()
            && let Some(Value::Table(fr)) = table.get_mut("fileref")
        {
            fr.retain(|key, _| !RESOLVER_KEYS.contains(&key));
        }
        if kind == LayerKind::Project
            && let Some(Value::Table(fr)) = table.get_mut("fileref")
        {
            let mut keys = Table::new();
            for key in RESOLVER_KEYS {
                if let Some(value) = fr.remove(*key) {
                    keys.insert((*key).to_owned(), value);
                }
            }
            if !keys.is_empty() {
                project_resolver = Some(resolver_decl(&path, keys.clone())?);
                if include_project_code {
                    fr.extend(keys);
                }
            }
        }
        shell.take(&mut table, kind, &path, &mut warnings)?;
        super::registries::take(&mut table, kind, &path, &mut warnings)?;
        super::audit::take(&mut table, kind, &path, &mut warnings)?;
        super::telemetry::check(&table, &path)?;
        telemetry.take(&mut table, kind, &path);
        deep_merge(&mut merged, table);
    }

    warnings.extend(super::locks::ignored_warning(&locked_hits));
    let resolver_timeout_set = merged
        .get("fileref")
        .and_then(Value::as_table)
        .is_some_and(|t| t.contains_key("resolver_timeout_ms"));
    let file: FileConfig = Value::Table(merged)
        .try_into()
        .map_err(|err: toml::de::Error| ConfigError::Invalid {
            path: PathBuf::from("(merged configuration)"),
            key: String::new(),
            message: err.message().to_owned(),
        })?;

    modes.check_cap(policy.max_mode, &file_of(LayerKind::Managed))?;

    warnings.extend(super::ToolGrantCeiling::looser_warnings(
        policy.max_tool_grants.as_ref(),
        &policy.max_tool_grants_from,
    ));
    let ceiling_files: Vec<PathBuf> = policy
        .max_tool_grants_from
        .iter()
        .map(|(path, _, _)| path.clone())
        .collect();
    let mut entries = Vec::new();
    // The dev overlay's names: a user or project entry of the same name gives way to it.
    let dev_overrides: Vec<String> = plugins
        .iter()
        .filter(|(_, _, dev, _)| *dev)
        .filter_map(|(_, _, _, v)| v.get("name").and_then(Value::as_str).map(str::to_owned))
        .collect();
    for (kind, file, dev, value) in plugins {
        let spec: PluginSpec =
            value
                .try_into()
                .map_err(|err: toml::de::Error| ConfigError::Invalid {
                    path: file.clone(),
                    key: "plugins".into(),
                    message: err.message().to_owned(),
                })?;
        if !dev && kind != LayerKind::Managed && dev_overrides.contains(&spec.name) {
            continue;
        }
        super::tool_policy::check_spec(&spec, &file)?;
        let cached = super::plugin_source::check_spec(&spec, &file)?;
        if policy.managed_plugins_only && kind != LayerKind::Managed {
            let from = if dev {
                format!("(a dev build of `warden plugin dev`, {})", file.display())
            } else {
                format!("from the {} layer", kind.as_str())
            };
            warnings.push(format!(
                "plugin `{}` {from} was not loaded: managed policy allows managed plugins only",
                spec.name,
            ));
            continue;
        }
        let mut judged = super::tool_policy::check_against_policy(
            &spec,
            kind.as_str(),
            &file,
            policy.max_tool_grants.as_ref(),
            &ceiling_files,
            policy.managed_tools_only,
        );
        if judged.is_ok() && kind == LayerKind::Project {
            judged = super::project_grants::check_project_tool(
                &spec,
                &file_of(kind),
                policy.project_tool_grants.as_ref(),
                user_file
                    .as_deref()
                    .unwrap_or(Path::new("~/.config/warden/config.toml")),
            );
        }
        match judged {
            Ok(()) => {}
            Err(err) if lenient => {
                refused.push(err.to_string());
                continue;
            }
            Err(err) => return Err(err),
        }
        if dev {
            warnings.push(format!(
                "plugin `{}` is a dev build ({}), loaded for this user by `warden plugin dev` ({}); `warden plugin dev --stop` ends it",
                spec.name,
                spec.path.display(),
                file.display()
            ));
        }
        let mut entry = spec.resolve(kind.as_str());
        entry.declared_in = Some(file);
        if let Some(cached) = cached {
            entry.path = cached;
        }
        entries.push(entry);
    }
    validate::check_plugins(&entries, &policy, &layer_files)?;
    let user_config = user_file
        .clone()
        .unwrap_or_else(|| PathBuf::from("~/.config/warden/config.toml"));
    let telemetry = telemetry.finish(
        policy.project_tool_grants.as_ref(),
        &user_config,
        &mut warnings,
    )?;
    let mut servers = Vec::new();
    for (kind, value) in mcp {
        let spec: super::McpSpec =
            value
                .try_into()
                .map_err(|err: toml::de::Error| ConfigError::Invalid {
                    path: file_of(kind),
                    key: "mcp".into(),
                    message: err.message().to_owned(),
                })?;
        let project = (kind == LayerKind::Project)
            .then_some((policy.project_tool_grants.as_ref(), user_config.as_path()));
        servers.push(super::mcp::resolve(
            spec,
            kind.as_str(),
            &file_of(kind),
            &policy,
            project,
        )?);
    }
    super::mcp::check_unique(&servers)?;
    let hook_entries = resolve_hooks(hooks, &file_of, &policy, &user_config, &mut warnings)?;
    let project_hooks: Vec<_> = hook_entries
        .iter()
        .filter(|e| e.origin == LayerKind::Project.as_str())
        .cloned()
        .collect();
    let project_mcp: Vec<_> = servers
        .iter()
        .filter(|e| e.origin == LayerKind::Project.as_str())
        .cloned()
        .collect();
    super::mcp::clamp(&mut servers, &policy, &mut warnings);
    // What the project declares, before ceilings clamp it: trust does not depend on policy.
    let project_entries: Vec<_> = entries
        .iter()
        .filter(|e| e.origin == LayerKind::Project.as_str())
        .cloned()
        .collect();
    let mut defaults_clamped = super::clamp_plugins(&mut entries, &policy, &mut warnings);

    let mut fileref = file.fileref;
    fileref.deny = deny;
    defaults_clamped.extend(super::clamp_resolver(
        &mut fileref,
        resolver_timeout_set,
        &policy,
        &mut warnings,
    ));
    if policy.require_sha256 && fileref.resolver.is_some() && fileref.resolver_sha256.is_none() {
        return Err(ConfigError::Invalid {
            path: PathBuf::from("fileref.resolver"),
            key: "fileref.resolver_sha256".into(),
            message: "managed policy requires a sha256 pin for a custom resolver".into(),
        });
    }
    let audit = super::audit::finish(file.audit, workspace.as_deref())?;
    let mut tools = file.tools;
    tools.shell = shell.finish(tools.shell, &policy, &mut warnings)?;
    // The signing key is hidden from every command and MCP server, like warden's own files.
    if let Some(key) = &audit.sign_key {
        let key = key.display().to_string();
        if !tools.shell.hide.contains(&key) {
            tools.shell.hide.push(key);
        }
    }
    tools.builtin_rules = builtin_rules;
    let scope = super::rules::Scope {
        workspace,
        user_file: user_file.clone(),
    };
    let rules = rule_layers.finish(
        builtin_rules,
        policy.managed_rules_only,
        scope,
        &mut warnings,
    )?;
    let project_mode = modes.project_raise();
    let project_code = (!project_entries.is_empty()
        || !project_mcp.is_empty()
        || !project_hooks.is_empty()
        || project_resolver.is_some()
        || project_mode.is_some()
        || !project_settings.is_empty())
    .then(|| ProjectCode {
        file: file_of(LayerKind::Project),
        entries: project_entries,
        mcp: project_mcp,
        hooks: project_hooks,
        resolver: project_resolver,
        mode: project_mode,
        settings: project_settings,
    });
    Ok(Loaded {
        refused,
        dev_overrides,
        config: Config {
            model: file.model,
            fileref,
            worker: file.worker,
            plan: file.plan,
            tools,
            plugins: entries,
            hooks: hook_entries,
            policy,
            mcp: servers,
            registries: file.registries,
            rules,
            telemetry,
            audit,
        },
        warnings,
        defaults_clamped,
        files,
        managed: None,
        locks: Vec::new(),
        project_code,
        project_code_loaded: include_project_code,
    })
}

/// The [`HELD_SETTINGS`](super::HELD_SETTINGS) the project layer's `table` sets, by dotted
/// key; unless `keep`, they are removed from it (held back until the workspace is trusted).
fn take_held_settings(
    table: &mut Table,
    keep: bool,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    let mut out = std::collections::BTreeMap::new();
    for key in super::HELD_SETTINGS {
        let Some((parent, last)) = key.rsplit_once('.') else {
            continue;
        };
        let mut current = Some(&mut *table);
        for part in parent.split('.') {
            current = current
                .and_then(|t| t.get_mut(part))
                .and_then(Value::as_table_mut);
        }
        let Some(holder) = current else {
            continue;
        };
        // An empty list passes nothing: it applies at once.
        if holder
            .get(last)
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
        {
            continue;
        }
        let value = if keep {
            holder.get(last).cloned()
        } else {
            holder.remove(last)
        };
        if let Some(value) = value {
            out.insert(
                (*key).to_owned(),
                serde_json::to_value(&value).unwrap_or(serde_json::Value::Null),
            );
        }
    }
    out
}

/// The project layer's resolver keys (`keys`, already checked with the whole file).
fn resolver_decl(path: &Path, keys: Table) -> Result<ProjectResolver, ConfigError> {
    Value::Table(keys)
        .try_into()
        .map_err(|err: toml::de::Error| ConfigError::Invalid {
            path: path.to_owned(),
            key: "fileref".into(),
            message: err.message().to_owned(),
        })
}

/// Remove `a.b.c` from `table`; true if it was there.
/// Removes dotted `key` from `table`, returning what it held.
fn remove_dotted(table: &mut Table, key: &str) -> Option<Value> {
    let mut parts: Vec<&str> = key.split('.').collect();
    let last = parts.pop()?;
    let mut current = table;
    for part in parts {
        match current.get_mut(part) {
            Some(Value::Table(t)) => current = t,
            _ => return None,
        }
    }
    current.remove(last)
}

/// The dotted keys `value`, found at `key`, sets: itself unless it is a table, else each key
/// under it (an empty table is `key` itself).
fn keys_set(key: &str, value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Table(table) if !table.is_empty() => {
            for (inner, value) in table {
                keys_set(&format!("{key}.{inner}"), value, out);
            }
        }
        _ => out.push(key.to_owned()),
    }
}

fn deep_merge(into: &mut Table, from: Table) {
    for (key, value) in from {
        match (into.get_mut(&key), value) {
            (Some(Value::Table(existing)), Value::Table(new)) => deep_merge(existing, new),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests;

/// The `[[hooks]]` entries gathered from the layers, resolved in chain order: the managed
/// layer's first, then the user's, then the project's, each in file order; names made unique.
fn resolve_hooks(
    mut hooks: Vec<(LayerKind, Value)>,
    file_of: &dyn Fn(LayerKind) -> PathBuf,
    policy: &PolicyConfig,
    user_config: &std::path::Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<super::CommandHookEntry>, ConfigError> {
    let rank = |kind: &LayerKind| match kind {
        LayerKind::Managed => 0,
        LayerKind::User => 1,
        LayerKind::Project => 2,
    };
    hooks.sort_by_key(|(kind, _)| rank(kind));
    let mut entries = Vec::with_capacity(hooks.len());
    let mut named = Vec::with_capacity(hooks.len());
    for (kind, value) in hooks {
        let path = file_of(kind);
        let spec: super::HookSpec =
            value
                .try_into()
                .map_err(|err: toml::de::Error| ConfigError::Invalid {
                    path: path.clone(),
                    key: "hooks".into(),
                    message: err.message().to_owned(),
                })?;
        named.push(spec.name.is_some());
        let project = (kind == LayerKind::Project)
            .then_some((policy.project_tool_grants.as_ref(), user_config));
        entries.push(super::command_hooks::resolve(
            spec,
            kind.as_str(),
            &path,
            policy,
            project,
            warnings,
        )?);
    }
    super::command_hooks::make_unique(&mut entries, &named)?;
    Ok(entries)
}
