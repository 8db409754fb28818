//! Tables only the user and managed layers may set (`[registries]`, `[audit]`): a project's is
//! taken out with a warning naming its file, never applied.

use std::path::Path;

use toml::Table;

use super::load::LayerKind;

/// Takes table `key` out of a project layer's `table`, warning with `why` (what the setting
/// would let a project do). True for a project layer (checked or not), false otherwise.
pub(crate) fn drop_from_project(
    table: &mut Table,
    kind: LayerKind,
    path: &Path,
    key: &str,
    why: &str,
    warnings: &mut Vec<String>,
) -> bool {
    if kind != LayerKind::Project {
        return false;
    }
    if table.remove(key).is_some() {
        warnings.push(format!(
            "{}: `[{key}]` cannot be set by a project ({why}); the setting was ignored: set it in your user config",
            path.display()
        ));
    }
    true
}
