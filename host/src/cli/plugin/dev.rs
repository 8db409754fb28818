//! `warden plugin dev PATH [--name NAME] [--kind KIND] [--config k=v]... [--fs G] [--once] [-C DIR]` and
//! `warden plugin dev --stop [--name NAME]`: load a plugin under development for this user and
//! this workspace only. The entry goes into the workspace's dev overlay in the user's state
//! (`config/dev_overlay.rs`), never into a config file: a project entry of the same name (or
//! pointing at the same file) gives way to it, with its config, limits and grants copied, so a
//! rebuild needs no `warden trust` and the project's trust stays as it was. The grants of a
//! project entry (`fs`, `allowed_hosts`, `env`, `approve`) are copied only while the project is
//! trusted; otherwise they are left out and named, so none reaches a dev build unseen.
//!
//! The entry records the sha256 of the build accepted now; a run or a chat loads the file only
//! while it has that digest (`config/dev_overlay.rs`), so a build that a command or a tool put in
//! its place is refused until the person accepts it by running `plugin dev` again. Without
//! `--once` it then watches the file and accepts each rebuild it sees that loads, saying which
//! digest the next run loads. Under a policy that requires signatures, limits sources or allows
//! managed plugins only, nothing is written.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use toml::{Table, Value};

use crate::cli::common::env;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{FsGrant, Loaded, PluginKind};
use crate::front::workspace::Workspace;
use crate::plugin::{ComponentInfo, World, inspect};

/// How often the watched file is looked at.
const POLL: Duration = Duration::from_millis(250);

/// What `plugin dev` was asked.
pub(crate) struct DevArgs<'a> {
    /// The component file, or a project directory (cargo: its wasm32-wasip2 release output;
    /// otherwise `plugin.wasm` in it).
    pub path: Option<&'a Path>,
    /// The plugin's name.
    pub name: Option<&'a str>,
    /// `interceptor`, `hook` or `tool` (default: the configured entry's, else the world's).
    pub kind: Option<&'a str>,
    /// `--config KEY=VALUE` over the entry's config.
    pub config: &'a [String],
    /// `--fs`: a tool plugin's file-system grant, over the entry's.
    pub fs: Option<FsGrant>,
    /// Write the entry and exit instead of watching.
    pub once: bool,
    /// Remove the entry (or every entry) instead.
    pub stop: bool,
    /// Workspace directory.
    pub dir: Option<&'a Path>,
}

/// Run `plugin dev`.
pub(crate) fn dev(args: &DevArgs<'_>) -> Result<u8, CliError> {
    let workspace = Workspace::find(args.dir)?.root;
    let overlay = crate::config::dev_overlay_path(&workspace, &env).ok_or_else(|| {
        CliError::usage("neither WARDEN_HOME nor HOME is set: no place for the dev overlay")
    })?;
    if args.stop {
        return stop(&overlay, &workspace, args.name);
    }
    let Some(path) = args.path else {
        return Err(CliError::usage(
            "name the component file or project directory to load (or --stop)",
        ));
    };
    let file = component_file(path)?;
    let loaded = crate::config::load(&crate::cli::common::sources(&workspace))
        .map_err(|err| CliError::usage(err.to_string()))?;
    refuse_under_policy(&loaded)?;

    let info = check(&file)?;
    if info.world == World::Resolver {
        return super::dev_resolver::dev_resolver(args, &overlay, &workspace, &file, &info);
    }
    let configured = loaded.config.plugins.iter().find(|e| match args.name {
        Some(name) => e.name == name,
        None => same_file(&e.path, &file),
    });
    if let Some(entry) = configured
        && entry.origin == "managed"
    {
        return Err(CliError::usage(format!(
            "plugin {:?} is managed ({}): a dev build cannot take its place",
            entry.name,
            entry
                .declared_in
                .as_ref()
                .map_or("managed policy".into(), |p| p.display().to_string())
        )));
    }
    let mut table = match configured.and_then(|e| entry_table(e.declared_in.as_deref(), &e.name)) {
        Some(table) => table,
        None => Table::new(),
    };
    // An untrusted project's grants are not the person's: left out, and named below.
    let left_out = match configured {
        Some(entry) if entry.origin == "project" && !project_trusted(&loaded, &workspace) => {
            take_grants(&mut table)
        }
        _ => Vec::new(),
    };
    let name = args
        .name
        .map(str::to_owned)
        .or_else(|| configured.map(|e| e.name.clone()))
        .unwrap_or_else(|| super::project_name::default_name(&file));
    let kind = kind_for(args.kind, configured.map(|e| e.kind), info.world, &file)?;
    if let Some(fs) = args.fs {
        if kind != PluginKind::Tool {
            return Err(CliError::usage(format!(
                "--fs is a tool plugin's grant; {} is {}",
                path.display(),
                super::args::with_article(kind.name())
            )));
        }
        table.insert("fs".into(), Value::String(fs.as_str().to_owned()));
    }
    table.insert("name".into(), Value::String(name.clone()));
    table.insert("kind".into(), Value::String(kind.name().to_owned()));
    table.insert(
        "path".into(),
        Value::String(file.to_string_lossy().into_owned()),
    );
    // The dev build is the file as it is now, pinned to its digest; never a registry source.
    table.insert("sha256".into(), Value::String(info.sha256.clone()));
    table.remove("source");
    let overrides = super::replay::parse_config(args.config)?;
    if !overrides.is_empty() {
        let config = table
            .entry("config")
            .or_insert_with(|| Value::Table(Table::new()));
        if let Value::Table(config) = config {
            for (key, value) in overrides {
                config.insert(key, Value::String(value));
            }
        }
    }
    let before = read_overlay(&overlay)?;
    write_entry(&overlay, &workspace, &name, table.clone())?;
    // The person accepts the file as it is now, whoever wrote it.
    crate::config::clear_written(&overlay, &name)
        .map_err(|err| CliError::failure(format!("{}: {err}", overlay.display())))?;
    // Loaded as the next run will load it: what the configuration refuses (a grant above
    // managed policy's ceiling) is refused here, and the overlay is put back as it was.
    if let Err(err) = crate::config::load(&crate::cli::common::sources(&workspace)) {
        write_overlay(&overlay, &workspace, before)?;
        return Err(CliError::usage(format!(
            "{err}; the dev build is not loaded, and nothing was written"
        )));
    }

    outln!(
        "dev: {name} ({}) loaded for this user in {}",
        kind.name(),
        workspace.display()
    );
    outln!("  file:   {}", file.display());
    outln!("  sha256: {}", info.sha256);
    if let Some(entry) = configured {
        let from = entry.declared_where();
        outln!("  entry:  config, limits and grants of {name:?} as {from} declares them");
    }
    let grants: Vec<String> = ["fs", "allowed_hosts", "env", "approve"]
        .iter()
        .filter_map(|key| table.get(*key).map(|v| format!("{key} = {v}")))
        .collect();
    if !grants.is_empty() {
        outln!("  grants: {}", grants.join(", "));
    } else if kind == PluginKind::Tool {
        outln!("  grants: none; a tool that reads the workspace needs `--fs read`");
    }
    if !left_out.is_empty() {
        outln!(
            "  not copied: {} of the project's entry, which is not trusted; give `--fs` here, or trust the project (`warden trust`) and run `warden plugin dev` again",
            left_out.join(", ")
        );
    }
    outln!(
        "  kept in {} (not in any config file; the project's trust is unchanged)",
        overlay.display()
    );
    outln!(
        "  each `warden run` or `warden chat` loads the file only while it has this digest; run `warden plugin dev` again (or keep it watching) to accept a rebuild"
    );
    outln!("  stop with: warden plugin dev --stop --name {name}");
    if args.once {
        return Ok(EXIT_OK);
    }
    watch(
        &file,
        &info.sha256,
        &Accept {
            overlay: &overlay,
            workspace: &workspace,
            name: &name,
            resolver: false,
        },
    )
}

/// Whether the project's code in `workspace` may load as the configuration declares it now.
/// A trust file that cannot be read counts as not trusted.
fn project_trusted(loaded: &Loaded, workspace: &Path) -> bool {
    crate::cli::common::home()
        .ok()
        .and_then(|home| crate::setup::trust::check(loaded, workspace, &home).ok())
        .is_some_and(|state| state.allows())
}

/// Remove the grant keys from `table`; each as `key = value`.
fn take_grants(table: &mut Table) -> Vec<String> {
    ["fs", "allowed_hosts", "env", "approve"]
        .iter()
        .filter_map(|key| table.remove(*key).map(|v| format!("{key} = {v}")))
        .collect()
}

/// The component file `path` names: a file as is; for a directory, cargo's wasm32-wasip2
/// release output of its package, or its `plugin.wasm` (what the Python and JavaScript
/// templates build).
fn component_file(path: &Path) -> Result<PathBuf, CliError> {
    let absolute = std::path::absolute(path)
        .map_err(|err| CliError::usage(format!("{}: {err}", path.display())))?;
    if !absolute.is_dir() {
        return Ok(absolute);
    }
    let manifest = absolute.join("Cargo.toml");
    if manifest.is_file() {
        let text = std::fs::read_to_string(&manifest)
            .map_err(|err| CliError::usage(format!("{}: {err}", manifest.display())))?;
        let table: Table = toml::from_str(&text)
            .map_err(|err| CliError::usage(format!("{}: {err}", manifest.display())))?;
        let crate_name = table
            .get("lib")
            .and_then(|lib| lib.get("name"))
            .or_else(|| table.get("package").and_then(|p| p.get("name")))
            .and_then(Value::as_str)
            .ok_or_else(|| CliError::usage(format!("{}: no [package] name", manifest.display())))?;
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map_or_else(|| absolute.join("target"), PathBuf::from);
        return Ok(target
            .join("wasm32-wasip2/release")
            .join(format!("{}.wasm", crate_name.replace('-', "_"))));
    }
    Ok(absolute.join("plugin.wasm"))
}

/// Refuse when policy would not load a local, unsigned, unlisted build anyway, naming the
/// policy key and the file that sets it.
fn refuse_under_policy(loaded: &Loaded) -> Result<(), CliError> {
    let policy = &loaded.config.policy;
    let from = loaded.managed.as_ref().map_or_else(
        || "the configuration".to_owned(),
        |m| format!("managed policy ({})", m.path.display()),
    );
    let why = if policy.managed_plugins_only {
        Some("`policy.managed_plugins_only`: it allows managed plugins only".to_owned())
    } else if policy.require_signed {
        Some(
            "`policy.require_signed`: it requires every plugin to be signed by a trusted key"
                .to_owned(),
        )
    } else {
        policy.allowed_sources.as_ref().map(|sources| {
            format!(
                "`policy.allowed_sources`: it allows plugins only from {}",
                sources.join(", ")
            )
        })
    };
    match why {
        Some(why) => Err(CliError::usage(format!(
            "{from} sets {why}; a local dev build is not loaded, and nothing was written. Test it where that policy does not apply, or publish and sign it and add it as usual"
        ))),
        None => Ok(()),
    }
}

/// Read and check the component at `file`, compiling it into the compiled-code cache of the
/// state root: the run that loads it next finds it there instead of compiling it again (a
/// Python or JavaScript component takes seconds).
pub(super) fn check(file: &Path) -> Result<ComponentInfo, CliError> {
    let bytes = crate::plugin::read_component(file, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(format!("{err} (build it first)")))?;
    let engine = super::oci_common::engine(crate::plugin::MAX_COMPONENT_BYTES)?;
    inspect(&engine, &file.display().to_string(), &bytes)
        .map(|(info, _)| info)
        .map_err(|err| CliError::usage(err.to_string()))
}

fn same_file(a: &Path, b: &Path) -> bool {
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    real(a) == real(b)
}

/// The kind the entry is loaded as: asked, configured or the component's world; they must agree.
fn kind_for(
    asked: Option<&str>,
    configured: Option<PluginKind>,
    world: World,
    file: &Path,
) -> Result<PluginKind, CliError> {
    let of_world = match world {
        World::Interceptor => PluginKind::Interceptor,
        World::Hook => PluginKind::Hook,
        World::Tool => PluginKind::Tool,
        World::Resolver => {
            return Err(CliError::usage(format!(
                "{}: a resolver is loaded as `fileref.resolver`, not as a plugin",
                file.display()
            )));
        }
    };
    let kind = match asked {
        Some(asked) => [PluginKind::Interceptor, PluginKind::Hook, PluginKind::Tool]
            .into_iter()
            .find(|k| k.name() == asked)
            .ok_or_else(|| {
                CliError::usage(format!(
                    "--kind {asked:?}: expected interceptor, hook or tool"
                ))
            })?,
        None => configured.unwrap_or(of_world),
    };
    if kind != of_world {
        return Err(CliError::usage(format!(
            "{} is a {world} component, not a {}",
            file.display(),
            kind.name()
        )));
    }
    Ok(kind)
}

/// The `[[plugins]]` table named `name` in `file`, as written there.
fn entry_table(file: Option<&Path>, name: &str) -> Option<Table> {
    let text = std::fs::read_to_string(file?).ok()?;
    let table: Table = toml::from_str(&text).ok()?;
    table
        .get("plugins")?
        .as_array()?
        .iter()
        .filter_map(Value::as_table)
        .find(|t| t.get("name").and_then(Value::as_str) == Some(name))
        .cloned()
}

/// The overlay's `[[plugins]]` tables (none when it does not exist).
pub(super) fn read_overlay(overlay: &Path) -> Result<Vec<Table>, CliError> {
    let text = match std::fs::read_to_string(overlay) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(CliError::usage(format!("{}: {err}", overlay.display()))),
    };
    let table: Table = toml::from_str(&text)
        .map_err(|err| CliError::usage(format!("{}: {err}", overlay.display())))?;
    Ok(table
        .get("plugins")
        .and_then(Value::as_array)
        .map(|list| list.iter().filter_map(Value::as_table).cloned().collect())
        .unwrap_or_default())
}

/// The overlay's `[fileref]` resolver keys (none when it does not exist or has none).
pub(super) fn read_resolver(overlay: &Path) -> Result<Option<Table>, CliError> {
    let text = match std::fs::read_to_string(overlay) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(CliError::usage(format!("{}: {err}", overlay.display()))),
    };
    let table: Table = toml::from_str(&text)
        .map_err(|err| CliError::usage(format!("{}: {err}", overlay.display())))?;
    Ok(table.get("fileref").and_then(Value::as_table).cloned())
}

/// Write `entries` as the overlay of `workspace`, keeping its resolver keys.
fn write_overlay(overlay: &Path, workspace: &Path, entries: Vec<Table>) -> Result<(), CliError> {
    let resolver = read_resolver(overlay)?;
    write_overlay_doc(overlay, workspace, entries, resolver)
}

/// Write `entries` and `resolver` as the overlay of `workspace` (removing the file when there
/// is neither).
pub(super) fn write_overlay_doc(
    overlay: &Path,
    workspace: &Path,
    entries: Vec<Table>,
    resolver: Option<Table>,
) -> Result<(), CliError> {
    let failed = |err: std::io::Error| CliError::failure(format!("{}: {err}", overlay.display()));
    if entries.is_empty() && resolver.is_none() {
        return match std::fs::remove_file(overlay) {
            Err(err) if err.kind() != std::io::ErrorKind::NotFound => Err(failed(err)),
            _ => Ok(()),
        };
    }
    let mut doc = Table::new();
    if let Some(resolver) = resolver {
        doc.insert("fileref".into(), Value::Table(resolver));
    }
    if !entries.is_empty() {
        doc.insert(
            "plugins".into(),
            Value::Array(entries.into_iter().map(Value::Table).collect()),
        );
    }
    let body = toml::to_string(&doc).map_err(|err| CliError::failure(err.to_string()))?;
    let text = format!(
        "# Dev plugins of {} for this user, written by `warden plugin dev`;\n# `warden plugin dev --stop -C {}` removes them.\n{body}",
        workspace.display(),
        workspace.display()
    );
    if let Some(dir) = overlay.parent() {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let tmp = overlay.with_extension("toml.tmp");
    std::fs::write(&tmp, text).map_err(failed)?;
    std::fs::rename(&tmp, overlay).map_err(failed)
}

fn write_entry(overlay: &Path, workspace: &Path, name: &str, entry: Table) -> Result<(), CliError> {
    let mut entries = read_overlay(overlay)?;
    entries.retain(|t| t.get("name").and_then(Value::as_str) != Some(name));
    entries.push(entry);
    write_overlay(overlay, workspace, entries)
}

/// `--stop`: remove the entry `name`, or every entry of the workspace.
fn stop(overlay: &Path, workspace: &Path, name: Option<&str>) -> Result<u8, CliError> {
    let entries = read_overlay(overlay)?;
    let (gone, kept): (Vec<Table>, Vec<Table>) = entries
        .into_iter()
        .partition(|t| name.is_none_or(|n| t.get("name").and_then(Value::as_str) == Some(n)));
    let resolver = read_resolver(overlay)?;
    // The resolver under development: stopped with the rest, or by `--name resolver`.
    let resolver_stops = resolver.is_some()
        && name.is_none_or(|n| n == "resolver" || n == crate::config::DEV_RESOLVER);
    if resolver_stops {
        write_overlay_doc(overlay, workspace, read_overlay(overlay)?, None)?;
        crate::config::clear_written(overlay, crate::config::DEV_RESOLVER)
            .map_err(|err| CliError::failure(format!("{}: {err}", overlay.display())))?;
        outln!(
            "dev: the resolver is no longer loaded in {}",
            workspace.display()
        );
        if gone.is_empty() {
            return Ok(EXIT_OK);
        }
    }
    if gone.is_empty() {
        outln!(
            "dev: nothing to stop in {}{}",
            workspace.display(),
            name.map_or(String::new(), |n| format!(" named {n:?}"))
        );
        return Ok(EXIT_OK);
    }
    write_overlay(overlay, workspace, kept)?;
    for entry in &gone {
        if let Some(name) = entry.get("name").and_then(Value::as_str) {
            crate::config::clear_written(overlay, name)
                .map_err(|err| CliError::failure(format!("{}: {err}", overlay.display())))?;
        }
    }
    for entry in gone {
        outln!(
            "dev: {} is no longer loaded in {}",
            entry.get("name").and_then(Value::as_str).unwrap_or("?"),
            workspace.display()
        );
    }
    Ok(EXIT_OK)
}

/// What identifies a version of the file: its modification time and length.
fn stamp(file: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(file).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// The overlay entry a watcher records accepted rebuilds in.
pub(super) struct Accept<'a> {
    pub overlay: &'a Path,
    pub workspace: &'a Path,
    /// The entry's name ([`crate::config::DEV_RESOLVER`] for the resolver).
    pub name: &'a str,
    /// The build is the overlay's resolver, not a `[[plugins]]` entry.
    pub resolver: bool,
}

impl Accept<'_> {
    /// Record `sha256` as the accepted build of the entry; false when the entry is gone
    /// (`--stop`) or names another file now.
    fn record(&self, file: &Path, sha256: &str) -> Result<bool, CliError> {
        if self.resolver {
            let Some(mut table) = read_resolver(self.overlay)?
                .filter(|t| t.get("resolver").and_then(Value::as_str).map(Path::new) == Some(file))
            else {
                return Ok(false);
            };
            table.insert("resolver_sha256".into(), Value::String(sha256.to_owned()));
            write_overlay_doc(
                self.overlay,
                self.workspace,
                read_overlay(self.overlay)?,
                Some(table),
            )?;
            return Ok(true);
        }
        let mut entries = read_overlay(self.overlay)?;
        let Some(entry) = entries.iter_mut().find(|t| {
            t.get("name").and_then(Value::as_str) == Some(self.name)
                && t.get("path").and_then(Value::as_str).map(Path::new) == Some(file)
        }) else {
            return Ok(false);
        };
        entry.insert("sha256".into(), Value::String(sha256.to_owned()));
        write_overlay(self.overlay, self.workspace, entries)?;
        Ok(true)
    }
}

/// Watch `file`; accept each new digest that loads (recording it in the overlay entry) and
/// print it, or print why the new file would not load. Runs until killed, or until the entry
/// is stopped.
pub(super) fn watch(file: &Path, digest: &str, accept: &Accept<'_>) -> Result<u8, CliError> {
    outln!(
        "watching {} (Ctrl-C to quit; the entry stays until --stop)",
        file.display()
    );
    let mut last_digest = digest.to_owned();
    // No stamp yet: the first look reads the file, so a build that landed since `digest` was
    // taken is reported too.
    let mut last = None;
    loop {
        std::thread::sleep(POLL);
        let now = stamp(file);
        if now == last || now.is_none() {
            continue;
        }
        // A build still writing the file: wait until it holds still.
        std::thread::sleep(POLL);
        if stamp(file) != now {
            continue;
        }
        last = now;
        match check(file) {
            Ok(info) if info.sha256 == last_digest => {}
            Ok(info) if crate::config::written_in_session(accept.overlay, accept.name) => {
                outln!(
                    "changed: {} sha256 {} was written by a tool call, a command or an MCP server in a session: not accepted; `warden plugin dev {}` accepts it",
                    file.display(),
                    info.sha256,
                    file.display()
                );
                last_digest = info.sha256;
            }
            Ok(info) => {
                if !accept.record(file, &info.sha256)? {
                    outln!(
                        "dev: {} is no longer loaded for {}: stopped watching",
                        accept.name,
                        file.display()
                    );
                    return Ok(EXIT_OK);
                }
                outln!(
                    "rebuilt: {} sha256 {} (accepted; the next run loads it)",
                    file.display(),
                    info.sha256
                );
                last_digest = info.sha256;
            }
            Err(err) => outln!(
                "rebuilt: {}: would not load: {}",
                file.display(),
                err.message
            ),
        }
    }
}
