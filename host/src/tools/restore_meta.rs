//! Undo's other halves, beside file contents ([`super::restore`]): a file's permission bits,
//! and the directories a command removed — through the same real-path rules as
//! `write_file` (never `.warden/`, `.git/`, a deny glob, a symlink in the final name, or
//! anything outside the workspace).

use std::ffi::OsStr;
use std::io::ErrorKind;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use cap_std::fs::Permissions;

use super::error::ToolError;
use super::path::{Parent, locate_path_in, open_parent};
use super::workspace::Workspace;
use super::write::writable;
use crate::domain::builtin::WRITE_FILE;
use crate::domain::file_name;

fn permissions(mode: u32) -> Permissions {
    Permissions::from_std(std::fs::Permissions::from_mode(mode))
}

fn parent_of(ws: &Workspace, name: &OsStr, create: bool) -> Result<(Parent, String), ToolError> {
    let shown = file_name::shown(name);
    let at = locate_path_in(ws, Path::new(name), &shown)?;
    let parent = open_parent(ws, &at, &shown, create)?;
    ws.policy
        .check_write(&parent.target())
        .map_err(|why| ToolError::refused(&shown, why, &parent.target()))?;
    Ok((parent, shown))
}

/// The permission bits of the root-relative file `name`; `None` when there is no file.
pub fn file_mode(ws: &Workspace, name: &OsStr) -> Result<Option<u32>, ToolError> {
    let (parent, shown) = match parent_of(ws, name, false) {
        Ok(found) => found,
        Err(ToolError::Other(msg)) if msg.contains("does not exist") => return Ok(None),
        Err(e) => return Err(e),
    };
    Ok(writable(ws, &parent, &shown, WRITE_FILE)?.map(|m| m & 0o7777))
}

/// Set the permission bits of the root-relative file `name` to `mode`.
pub fn set_file_mode(ws: &Workspace, name: &OsStr, mode: u32) -> Result<(), ToolError> {
    let (parent, shown) = parent_of(ws, name, false)?;
    if writable(ws, &parent, &shown, WRITE_FILE)?.is_none() {
        return Err(ToolError::Other(format!("`{shown}` does not exist")));
    }
    parent
        .dir
        .set_permissions(&parent.name, permissions(mode))
        .map_err(|e| ToolError::io(&shown, e))
}

/// Make the root-relative directory `name` (and its parents) with permission bits `mode`;
/// false when it was there already (made for a file put back in it): its bits are set.
pub fn make_dir(ws: &Workspace, name: &OsStr, mode: u32) -> Result<bool, ToolError> {
    let (parent, shown) = parent_of(ws, name, true)?;
    match parent.dir.symlink_metadata(&parent.name) {
        Ok(meta) if meta.is_dir() => {
            parent
                .dir
                .set_permissions(&parent.name, permissions(mode))
                .map_err(|e| ToolError::io(&shown, e))?;
            return Ok(false);
        }
        Ok(_) => {
            return Err(ToolError::Other(format!(
                "`{shown}` exists and is not a directory"
            )));
        }
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(ToolError::io(&shown, e)),
    }
    parent
        .dir
        .create_dir(&parent.name)
        .map_err(|e| ToolError::io(&shown, e))?;
    parent
        .dir
        .set_permissions(&parent.name, permissions(mode))
        .map_err(|e| ToolError::io(&shown, e))?;
    Ok(true)
}
