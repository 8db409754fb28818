//! `[tools] mode` across the layers: the cap managed policy sets (`policy.max_mode`), checked
//! against what every layer asks for, and a project's raise of the mode above what the user
//! layer (or the default `ask`) says, which is a grant that waits for project trust.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::LayerKind;
use crate::config::error::ConfigError;
use crate::domain::Mode;

/// The mode each layer asks for, in precedence order.
#[derive(Debug, Default)]
pub(super) struct ModeAsks {
    asks: Vec<(LayerKind, PathBuf, Mode)>,
}

impl ModeAsks {
    /// Note the mode `table` (of the `kind` layer read from `path`) asks for; return it.
    pub(super) fn note(&mut self, kind: LayerKind, path: &Path, table: &Table) -> Option<Mode> {
        let mode = table
            .get("tools")
            .and_then(|t| t.get("mode"))
            .and_then(Value::as_str)
            .and_then(|name| name.parse::<Mode>().ok())?;
        self.asks.push((kind, path.to_owned(), mode));
        Some(mode)
    }

    /// The mode the project layer raises to: above the user layer's (or the default), if it
    /// asks for one.
    pub(super) fn project_raise(&self) -> Option<Mode> {
        let base = self
            .asks
            .iter()
            .find(|(kind, _, _)| *kind == LayerKind::User)
            .map_or(Mode::default(), |(_, _, mode)| *mode);
        self.asks
            .iter()
            .find(|(kind, _, _)| *kind == LayerKind::Project)
            .map(|(_, _, mode)| *mode)
            .filter(|mode| *mode > base)
    }

    /// Every layer's mode against `max` (set by `managed_file`): the first above it is an
    /// error naming its file and key, and the cap.
    pub(super) fn check_cap(
        &self,
        max: Option<Mode>,
        managed_file: &Path,
    ) -> Result<(), ConfigError> {
        let Some(max) = max else {
            return Ok(());
        };
        match self.asks.iter().find(|(_, _, mode)| *mode > max) {
            None => Ok(()),
            Some((kind, path, mode)) => Err(ConfigError::Invalid {
                path: path.clone(),
                key: "tools.mode".into(),
                message: format!(
                    "the {} layer asks for mode `{mode}`, above what managed policy allows (`policy.max_mode = \"{max}\"` in {}); choose `{max}` or lower",
                    kind.as_str(),
                    managed_file.display()
                ),
            }),
        }
    }
}

/// Remove `tools.mode` from `table`.
pub(super) fn remove(table: &mut Table) {
    if let Some(Value::Table(tools)) = table.get_mut("tools") {
        tools.remove("mode");
    }
}
