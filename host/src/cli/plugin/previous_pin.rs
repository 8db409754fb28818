//! The pin each `plugin update` replaced, for `plugin update --rollback NAME`: kept beside the
//! component cache (`$WARDEN_HOME/plugins/oci/previous-pins.json`), one per config file and
//! plugin name. The config file holds the pin in force; the one before it is state of this
//! machine, as the cached components are.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::common::env;
use crate::cli::exit::CliError;
use crate::oci::Cache;

/// The file's name in the cache directory.
const FILE: &str = "previous-pins.json";

/// A pin an update replaced.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct PreviousPin {
    /// The plugin's name.
    pub name: String,
    /// Its `source` before the update (`oci://…@sha256:…`).
    pub source: String,
    /// Its `sha256` before the update.
    pub sha256: String,
    /// Its `kind` before the update.
    pub kind: String,
}

/// Every recorded previous pin, by config file and name.
pub(super) struct PreviousPins {
    file: PathBuf,
    pins: BTreeMap<String, PreviousPin>,
}

impl PreviousPins {
    /// The record of this state root (empty when there is none yet).
    pub fn load() -> Result<Self, CliError> {
        let cache = Cache::from_env(&env).map_err(super::oci_common::oci_error)?;
        let file = cache.dir().join(FILE);
        let pins = match std::fs::read_to_string(&file) {
            Ok(text) => serde_json::from_str(&text).map_err(|err| {
                CliError::usage(format!(
                    "{}: {err} (delete it to forget the previous pins)",
                    file.display()
                ))
            })?,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => BTreeMap::new(),
            Err(err) => return Err(CliError::usage(format!("{}: {err}", file.display()))),
        };
        Ok(Self { file, pins })
    }

    /// The pin plugin `name` of `config` had before its last update.
    pub fn get(&self, config: &Path, name: &str) -> Option<&PreviousPin> {
        self.pins.get(&key(config, name))
    }

    /// Remember `pin` as the one plugin `pin.name` of `config` had.
    pub fn record(&mut self, config: &Path, pin: PreviousPin) {
        self.pins.insert(key(config, &pin.name), pin);
    }

    /// Write the record (through a temporary file and a rename).
    pub fn save(&self) -> Result<(), CliError> {
        let fail =
            |err: std::io::Error| CliError::failure(format!("{}: {err}", self.file.display()));
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(fail)?;
        }
        let text = serde_json::to_string_pretty(&self.pins)
            .map_err(|err| CliError::failure(format!("{}: {err}", self.file.display())))?;
        let tmp = self.file.with_extension("json.tmp");
        std::fs::write(&tmp, text).map_err(fail)?;
        std::fs::rename(&tmp, &self.file).map_err(fail)
    }
}

/// The record's key: the config file's absolute path and the plugin's name.
fn key(config: &Path, name: &str) -> String {
    let config = std::path::absolute(config).unwrap_or_else(|_| config.to_owned());
    format!("{}#{name}", config.display())
}
