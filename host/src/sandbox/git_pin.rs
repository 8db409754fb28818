//! The `.git` a `git` escalation opened, bound onto itself inside the sandbox: a mount point
//! cannot be renamed or removed (`EBUSY`), so the command cannot move the repository away and
//! put a hostile one in its place. The read-only binds over its `hooks/` and `config` are made
//! on top of this one.

use std::path::Path;

/// Bind the directory `path` onto itself (writable as before, with every mount below it).
/// A path that is not a directory is left alone.
pub(crate) fn pin(path: &Path) -> Result<(), String> {
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir()) {
        return Ok(());
    }
    super::namespaces::mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC, None)
        .map_err(|e| format!("binding {} onto itself: {e}", path.display()))
}
