//! What `plugin push`, `add`, `update` and `remove` share: the registry client and its
//! errors, a pull into the cache, what a component offers, and the `[[plugins]]` entries of
//! the user and project config files (edited with their comments kept).

use std::path::{Path, PathBuf};

use toml_edit::{DocumentMut, Item};

use crate::cli::common::env;
pub(super) use crate::cli::config_file::{editable_layers, read_doc, write_doc};
use crate::cli::exit::CliError;
use crate::config::{LayerKind, Loaded, OciReference, PluginKind, RegistriesConfig, Sources};
use crate::front::workspace::Workspace;
use crate::oci::{Cache, Limits, OciError, Registry, Resolved, Transport, lookup_credentials};
use crate::plugin::{EngineOptions, PluginEngine, World, inspect};

/// A download at least this large announces itself on stderr.
const ANNOUNCE_BYTES: u64 = 1 << 20;

/// `text` parsed as an `oci://` reference, or a usage error.
pub(super) fn parse_reference(text: &str) -> Result<OciReference, CliError> {
    OciReference::parse(text).map_err(CliError::usage)
}

/// A registry error as the command's failure (exit 2 where the person must change something).
pub(super) fn oci_error(err: OciError) -> CliError {
    if err.is_usage() {
        CliError::usage(err.to_string())
    } else {
        CliError::failure(err.to_string())
    }
}

/// What the registry commands take from the configuration of a workspace.
pub(super) struct Settings {
    /// The component size cap (`policy.max_component_mb`), in bytes.
    pub max: u64,
    /// `[registries]`: where credentials go, and the limits on a request.
    pub registries: RegistriesConfig,
    /// The whole configuration, for what else a command needs (trust).
    pub loaded: Loaded,
}

/// The configuration of `root` as the registry commands use it; its warnings (a project's
/// `[registries]` ignored, …) are printed.
pub(super) fn settings(root: &Path) -> Result<Settings, CliError> {
    let loaded = crate::config::load(&crate::cli::common::sources(root))
        .map_err(|err| CliError::usage(err.to_string()))?;
    crate::cli::common::print_config_warnings(&loaded.warnings);
    Ok(Settings {
        max: loaded.config.policy.max_component_bytes(),
        registries: loaded.config.registries.clone(),
        loaded,
    })
}

/// A client for the registry of `reference`, with the credentials configured for it; the
/// transport is checked before anything connects.
pub(super) fn registry(
    reference: &OciReference,
    plain_http: bool,
    settings: &Settings,
) -> Result<Registry, CliError> {
    let transport = Transport::for_reference(reference, plain_http).map_err(oci_error)?;
    let found =
        lookup_credentials(&reference.registry, &settings.registries, &env).map_err(oci_error)?;
    if let Some(note) = &found.note {
        eprintln!("warden: {note}");
    }
    let limits = Limits::from_config(&settings.registries, settings.max);
    Registry::new(reference, transport, found.credentials, limits).map_err(oci_error)
}

/// Run `future` to completion on a runtime of its own.
pub(super) fn block_on<T>(future: impl std::future::Future<Output = T>) -> Result<T, CliError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|err| CliError::failure(format!("cannot start the network runtime: {err}")))?;
    Ok(runtime.block_on(future))
}

/// A pulled component, kept in the cache.
pub(super) struct Pulled {
    /// The manifest it came from.
    pub resolved: Resolved,
    /// The component's bytes.
    pub bytes: Vec<u8>,
    /// Its file in the cache.
    pub file: PathBuf,
    /// Its sha256 (hex): the layer digest.
    pub sha256: String,
}

/// Managed policy's verdict on the bytes of a pinned reference, before they are cached.
pub(super) type Admit<'a> = &'a dyn Fn(&OciReference, &[u8]) -> Result<(), CliError>;

/// What a pull does with the bytes it got.
pub(super) enum Keep<'a> {
    /// Keep them in the cache once `check` (managed policy) accepts them and the pinned
    /// reference they came from.
    IfAdmitted(Admit<'a>),
    /// Only read them (to compare with), without writing the cache.
    ReadOnly,
}

/// Resolve `reference`, fetch its component (at most `max` bytes) unless the cache holds it,
/// and keep it in the cache as `keep` says.
pub(super) fn pull(
    registry: &Registry,
    reference: &OciReference,
    max: u64,
    keep: Keep<'_>,
) -> Result<Pulled, CliError> {
    let cache = Cache::from_env(&env).map_err(oci_error)?;
    block_on(async {
        let resolved = registry.resolve(reference).await.map_err(oci_error)?;
        let sha256 = resolved
            .layer
            .digest
            .trim_start_matches("sha256:")
            .to_owned();
        if resolved.layer.size > max {
            return Err(oci_error(OciError::TooLarge {
                reference: reference.to_string(),
                size: resolved.layer.size,
                max,
            }));
        }
        let bytes = match cache.read(&sha256) {
            Some(bytes) => bytes,
            None => {
                let pinned = reference.with_digest(&resolved.manifest_digest);
                registry
                    .fetch_layer(&pinned, &resolved.layer, max, &mut |size| {
                        if size >= ANNOUNCE_BYTES {
                            eprintln!(
                                "warden: downloading {pinned} ({:.1} MiB)",
                                size as f64 / f64::from(1 << 20)
                            );
                        }
                    })
                    .await
                    .map_err(oci_error)?
            }
        };
        let file = match keep {
            Keep::IfAdmitted(check) => {
                check(&reference.with_digest(&resolved.manifest_digest), &bytes)?;
                cache.store(&sha256, &bytes).map_err(oci_error)?
            }
            Keep::ReadOnly => cache.component(&sha256),
        };
        Ok(Pulled {
            resolved,
            bytes,
            file,
            sha256,
        })
    })?
}

/// What a component is and offers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Offer {
    /// Its world.
    pub world: World,
    /// `warden:plugin/<iface>@<version>`.
    pub target: String,
    /// Its imports: the capabilities it asks the host for.
    pub imports: Vec<String>,
    /// Its exports.
    pub exports: Vec<String>,
    /// The tools a tool plugin describes (empty for other worlds).
    pub tools: Vec<String>,
}

impl Offer {
    /// The `[[plugins]]` kind for its world; a resolver is not a `[[plugins]]` entry.
    pub fn kind(&self) -> Result<PluginKind, String> {
        match self.world {
            World::Interceptor => Ok(PluginKind::Interceptor),
            World::Hook => Ok(PluginKind::Hook),
            World::Tool => Ok(PluginKind::Tool),
            World::Resolver => Err(
                "it is a resolver: set it with `fileref.resolver`, not as a `[[plugins]]` entry"
                    .into(),
            ),
        }
    }
}

/// The plugin engine for inspection, sharing the compiled-code cache of the state root.
pub(super) fn engine(max: u64) -> Result<PluginEngine, CliError> {
    let cache_dir = crate::cli::common::home()
        .ok()
        .map(|h| h.root().join("cache").join("compiled"));
    PluginEngine::new(EngineOptions {
        cache_dir,
        max_component_bytes: Some(max),
        ..EngineOptions::default()
    })
    .map_err(|err| CliError::failure(err.to_string()))
}

/// What the component in `bytes` (kept at `file`) is and offers; a usage error naming `what`
/// when it is not a component warden can run.
pub(super) fn offer(
    engine: &PluginEngine,
    what: &str,
    bytes: &[u8],
    file: &Path,
) -> Result<Offer, CliError> {
    let (info, _) = inspect(engine, what, bytes).map_err(|err| CliError::usage(err.to_string()))?;
    let tools = if info.world == World::Tool {
        tool_names(engine, file)?
    } else {
        Vec::new()
    };
    let iface = match info.world {
        World::Interceptor => "intercept",
        World::Hook => "observe",
        World::Resolver => "resolve",
        World::Tool => "act",
    };
    Ok(Offer {
        world: info.world,
        target: format!("warden:plugin/{iface}@{}", info.version),
        imports: info.imports,
        exports: info.exports,
        tools,
    })
}

/// The tools a tool plugin describes (`plugin check`'s question), as a usage error when it
/// cannot say.
fn tool_names(engine: &PluginEngine, file: &Path) -> Result<Vec<String>, CliError> {
    super::check::tool_names(engine, file).map_err(|err| {
        CliError::usage(format!(
            "{}: its tools cannot be listed: {err}",
            file.display()
        ))
    })
}

/// The workspace root for `-C DIR` (or the current directory).
pub(super) fn workspace(dir: Option<&Path>) -> Result<PathBuf, CliError> {
    Ok(Workspace::find(dir)?.root)
}

/// Every config file `workspace` loads, lowest layer first: the user file, the dev overlay
/// when there is one, the project file and the managed file in force.
pub(super) fn loaded_layers(workspace: &Path) -> Vec<(LayerKind, PathBuf)> {
    Sources::standard(workspace, &env).layers
}

/// The index of the `[[plugins]]` entry named `name` in `doc`.
pub(super) fn entry_index(doc: &DocumentMut, name: &str) -> Option<usize> {
    doc.get("plugins")?
        .as_array_of_tables()?
        .iter()
        .position(|t| t.get("name").and_then(Item::as_str) == Some(name))
}

/// A component read from a registry to be looked at (`plugin check`, `plugin verify`), not
/// kept: its bytes, and a file holding them (the cache's when it has them, else a temporary
/// file removed when this is dropped).
pub(super) struct Inspected {
    /// The component's bytes.
    pub bytes: Vec<u8>,
    /// A file with those bytes.
    pub file: PathBuf,
    temporary: bool,
}

impl Drop for Inspected {
    fn drop(&mut self) {
        if self.temporary {
            let _ = std::fs::remove_file(&self.file);
        }
    }
}

/// The component `text` (`oci://…`) names, read under the managed policy of the current
/// workspace: a source outside `policy.allowed_sources` is not contacted; nothing is cached.
pub(super) fn inspect_reference(text: &str) -> Result<Inspected, CliError> {
    let reference = parse_reference(text)?;
    let settings = settings(&workspace(None)?)?;
    super::admit::Admission::new(&settings.loaded.config.policy)?.source(
        text,
        text,
        "its registry was not contacted",
    )?;
    let registry = registry(&reference, false, &settings)?;
    let pulled = pull(&registry, &reference, settings.max, Keep::ReadOnly)?;
    if pulled.file.is_file() {
        return Ok(Inspected {
            bytes: pulled.bytes,
            file: pulled.file,
            temporary: false,
        });
    }
    let file = std::env::temp_dir().join(format!(
        "warden-inspect-{}-{}.wasm",
        std::process::id(),
        pulled.sha256
    ));
    std::fs::write(&file, &pulled.bytes)
        .map_err(|err| CliError::failure(format!("{}: {err}", file.display())))?;
    Ok(Inspected {
        bytes: pulled.bytes,
        file,
        temporary: true,
    })
}
