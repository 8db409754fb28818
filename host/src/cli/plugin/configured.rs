//! The `[[plugins]]` entry a command about one plugin (`bench`, `replay`, `dev`) works on: named
//! with `--name`, or the entry whose component is the file given. Its `[plugins.config]` is read
//! as `warden run` reads it: every layer merged, the managed one on top.

use std::path::{Path, PathBuf};

use crate::cli::exit::CliError;
use crate::config::PluginEntry;

/// What to run: the component (a file or `builtin:NAME`), the name it goes by and its `init`
/// config.
pub(super) struct Target {
    /// The component: a path, or `builtin:NAME`.
    pub path: PathBuf,
    /// The entry it was found as, if any.
    pub entry: Option<PluginEntry>,
    /// Its `init` config: the entry's, then each `--config` over it.
    pub init: Vec<(String, String)>,
}

impl Target {
    /// The name the plugin goes by: `--name`, the entry's, else `fallback`.
    pub fn name(&self, name: Option<&str>, fallback: &str) -> String {
        name.map(str::to_owned)
            .or_else(|| self.entry.as_ref().map(|e| e.name.clone()))
            .unwrap_or_else(|| fallback.to_owned())
    }
}

/// Find the plugin in `workspace`'s configuration: by `name` if given (an error when no entry
/// has that name and no `file` is given), else the entry whose path is `file`. `config` are the
/// `--config KEY=VALUE` arguments, applied over the entry's config.
pub(super) fn target(
    workspace: &Path,
    file: Option<&Path>,
    name: Option<&str>,
    config: &[String],
) -> Result<Target, CliError> {
    let overrides = super::replay::parse_config(config)?;
    let loaded = crate::config::load(&crate::cli::common::sources(workspace));
    let entries = match loaded {
        Ok(loaded) => loaded.config.plugins,
        // A configuration that does not load only matters when it was asked for by name.
        Err(err) if name.is_some() && file.is_none() => {
            return Err(CliError::usage(err.to_string()));
        }
        Err(_) => Vec::new(),
    };
    let real = |p: &Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned());
    let entry = match (name, file) {
        (Some(name), _) => entries.into_iter().find(|e| e.name == name),
        (None, Some(file)) => {
            let wanted = real(file);
            entries.into_iter().find(|e| real(&e.path) == wanted)
        }
        (None, None) => None,
    };
    let path = match (file, &entry) {
        (Some(file), _) => file.to_owned(),
        (None, Some(entry)) => entry.path.clone(),
        (None, None) => {
            return Err(CliError::usage(match name {
                Some(name) => format!(
                    "no [[plugins]] entry named {name:?} in the configuration of {}; name the component file (or builtin:NAME) too",
                    workspace.display()
                ),
                None => {
                    "name a component file (or builtin:NAME), or a configured plugin with --name"
                        .to_owned()
                }
            }));
        }
    };
    let mut init: Vec<(String, String)> = entry
        .as_ref()
        .map(|e| e.config.clone().into_iter().collect())
        .unwrap_or_default();
    for (key, value) in overrides {
        init.retain(|(k, _)| *k != key);
        init.push((key, value));
    }
    Ok(Target { path, entry, init })
}
