//! A path argument located in a root (relative to the first root, or absolute inside one;
//! `..` applied lexically and never above the root), and its parent directory opened inside
//! that root and named by the kernel, so that the rules are checked on the real path and the
//! call acts on the opened directory with the final name only.

use std::ffi::OsString;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use cap_std::fs::Dir;

use super::error::ToolError;
use super::workspace::{Root, Workspace};
use crate::confine::real_path::real_path;
use crate::domain::file_name;

/// A path argument, located: its root and its components below it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Located {
    /// Index of the root.
    pub(crate) root: usize,
    /// Components below the root (no `.`, no `..`); empty for the root itself. Bytes: a
    /// name a command created need not be UTF-8.
    pub(crate) parts: Vec<OsString>,
}

impl Located {
    /// The components joined by `/` (`.` for the root itself).
    #[cfg(test)]
    pub(crate) fn relative(&self) -> String {
        if self.parts.is_empty() {
            ".".to_owned()
        } else {
            self.parts
                .iter()
                .map(|p| p.to_string_lossy())
                .collect::<Vec<_>>()
                .join("/")
        }
    }
}

/// `path` located in one of `roots` (as configured, and as the kernel names them).
#[cfg(test)]
pub(crate) fn locate(roots: &[(PathBuf, PathBuf)], path: &str) -> Result<Located, ToolError> {
    locate_path(roots, Path::new(path), path)
}

/// [`locate`] of a path of any bytes, named `shown` in messages.
pub(crate) fn locate_path(
    roots: &[(PathBuf, PathBuf)],
    requested: &Path,
    shown: &str,
) -> Result<Located, ToolError> {
    let path = shown;
    let outside = || ToolError::Outside {
        path: path.to_owned(),
    };
    let (root, rest) = if requested.is_absolute() {
        let normal = normalise(requested).ok_or_else(outside)?;
        roots
            .iter()
            .enumerate()
            .find_map(|(i, (given, real))| {
                [given, real].into_iter().find_map(|base| {
                    let base = normalise(base)?;
                    normal
                        .strip_prefix(&base)
                        .ok()
                        .map(|rest| (i, rest.to_path_buf()))
                })
            })
            .ok_or_else(outside)?
    } else {
        (0, requested.to_path_buf())
    };
    let mut parts = Vec::new();
    for component in rest.components() {
        match component {
            Component::Normal(name) => parts.push(name.to_owned()),
            Component::CurDir => {}
            Component::ParentDir => {
                parts.pop().ok_or_else(outside)?;
            }
            Component::RootDir | Component::Prefix(_) => return Err(outside()),
        }
    }
    Ok(Located { root, parts })
}

/// `path` with `.` dropped and `..` applied lexically; `None` when `..` goes above `/`.
fn normalise(path: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                if !out.pop() || out.as_os_str().is_empty() {
                    return None;
                }
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    Some(out)
}

/// The parent directory of a located path, opened inside its root, and its real path.
pub(crate) struct Parent {
    /// The directory.
    pub(crate) dir: Dir,
    /// Its real path, as the kernel names it.
    pub(crate) real: PathBuf,
    /// The final name.
    pub(crate) name: OsString,
}

impl Parent {
    /// The real path of the final name.
    pub(crate) fn target(&self) -> PathBuf {
        self.real.join(&self.name)
    }
}

/// The real path of an opened directory.
pub(crate) fn real_of_dir(dir: &Dir, shown: &str) -> Result<PathBuf, ToolError> {
    let file = dir
        .try_clone()
        .map_err(|e| ToolError::io(shown, e))?
        .into_std_file();
    real_path(&file).map_err(|e| ToolError::io(shown, e))
}

/// Open the parent of `path` (as given, for messages) located at `at`, creating missing
/// directories when `create` (each checked for writing first). Symlinks on the way are
/// followed only inside the root (the directory capability refuses any other), and the
/// kernel's name of the opened parent is what the caller checks.
pub(crate) fn open_parent(
    ws: &Workspace,
    at: &Located,
    path: &str,
    create: bool,
) -> Result<Parent, ToolError> {
    let Some((name, dirs)) = at.parts.split_last() else {
        return Err(ToolError::Other(format!(
            "`{path}` is the workspace root, a directory"
        )));
    };
    let root: &Root = ws.roots.get(at.root).ok_or_else(|| ToolError::Outside {
        path: path.to_owned(),
    })?;
    if create {
        // The path as written is checked first, so that no directory is made for a write
        // the rules refuse anyway; the real path is checked again once opened.
        let lexical: PathBuf = at.parts.iter().fold(root.real.clone(), |p, c| p.join(c));
        ws.policy
            .check_write(&lexical)
            .map_err(|why| ToolError::refused(path, why, &lexical))?;
    }
    let mut dir = root.dir.try_clone().map_err(|e| ToolError::io(path, e))?;
    let mut real = root.real.clone();
    for (i, part) in dirs.iter().enumerate() {
        let prefix_path: PathBuf = dirs.iter().take(i + 1).collect();
        let prefix = file_name::shown(prefix_path.as_os_str());
        let next = match root.dir.open_dir(&prefix_path) {
            Ok(next) => next,
            Err(e) if e.kind() == ErrorKind::NotFound && create => {
                let wanted = real.join(part);
                ws.policy
                    .check_write(&wanted)
                    .map_err(|why| ToolError::refused(path, why, &wanted))?;
                match dir.create_dir(part) {
                    Ok(()) => {}
                    Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                    Err(e) => return Err(ToolError::io(&prefix, e)),
                }
                root.dir
                    .open_dir(&prefix_path)
                    .map_err(|e| ToolError::io(&prefix, e))?
            }
            Err(e) if e.kind() == ErrorKind::NotFound => {
                return Err(ToolError::Other(format!(
                    "`{path}`: directory `{prefix}` does not exist"
                )));
            }
            Err(e) => return Err(escape_or_io(e, path, &prefix)),
        };
        dir = next;
        real = real_of_dir(&dir, &prefix)?;
    }
    Ok(Parent {
        dir,
        real,
        name: name.clone(),
    })
}

/// A lookup the directory capability refused for leaving the root reads as "outside".
pub(crate) fn escape_or_io(e: std::io::Error, path: &str, prefix: &str) -> ToolError {
    if e.kind() == ErrorKind::PermissionDenied && e.to_string().contains("outside") {
        ToolError::Outside {
            path: path.to_owned(),
        }
    } else {
        ToolError::io(prefix, e)
    }
}

#[cfg(test)]
#[path = "path_tests.rs"]
mod tests;

/// `path` located in `ws`'s roots.
pub(crate) fn locate_in(ws: &Workspace, path: &str) -> Result<Located, ToolError> {
    locate_path_in(ws, Path::new(path), path)
}

/// [`locate_in`] of a path of any bytes, named `shown` in messages.
pub(crate) fn locate_path_in(
    ws: &Workspace,
    path: &Path,
    shown: &str,
) -> Result<Located, ToolError> {
    let roots: Vec<(PathBuf, PathBuf)> = ws
        .roots
        .iter()
        .map(|r| (r.given.clone(), r.real.clone()))
        .collect();
    locate_path(&roots, path, shown)
}
