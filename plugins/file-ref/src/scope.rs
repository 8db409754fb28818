//! Where a reference points: resolves a path against the workspace roots one component at a
//! time, following symlinks by hand so that an escape is classified (`out-of-scope`) rather than
//! merely failing, and a loop is cut off. Each directory on the way is opened from the one before
//! it without following symlinks ([`fsys::Dir`]), and a file is opened through its checked
//! directory ([`Located::open_file`]): swapping a directory for a symlink between the check and
//! the read cannot redirect the read.
//!
//! Relative paths start at the primary root; absolute paths must lie inside a root. `..` may
//! not climb above the root it is applied in; a symlink whose relative target climbs out of
//! its root, and any symlink with an absolute target, is out of scope, whether it points at a
//! file or a directory. (The WASI sandbox refuses to read absolute link targets; treating them
//! all alike keeps native and sandboxed behaviour identical.)

use std::collections::VecDeque;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use warden_plugin::ResolveError;
use warden_rules::fsys::{self, Meta};

/// Symlinks followed while resolving one path before it is reported as a loop.
pub const MAX_SYMLINK_HOPS: u32 = 40;

/// A path resolved inside a root, with symlinks followed.
#[derive(Debug)]
pub struct Located {
    /// Index of the root the real path lies in.
    pub root: usize,
    /// The real path relative to that root, components joined by `/` (empty for the root).
    pub real: String,
    /// The path as written, lexically normalised, relative to the root it was written in
    /// (`None` when it climbs out lexically).
    pub lexical: Option<String>,
    /// Index of the root the path was written against.
    pub written_root: usize,
    /// Absolute path of the target on the (guest) file system.
    pub full: PathBuf,
    /// Metadata of the target (never a symlink).
    pub metadata: Meta,
    /// The directory holding the target (the root itself for the root), reached without
    /// following any symlink after each was checked.
    pub parent: fsys::Dir,
    /// The target's name in `parent`; `None` for the root.
    pub name: Option<String>,
}

impl Located {
    /// Open the target for reading through the directory that was checked, not by path: a
    /// symlink swapped in since is not followed.
    pub fn open_file(&self) -> std::io::Result<(fsys::OpenFile, Meta)> {
        match &self.name {
            Some(name) => self.parent.open_file(name, self.metadata),
            None => Err(std::io::Error::new(
                ErrorKind::IsADirectory,
                "the root is a directory",
            )),
        }
    }

    /// The path to show: the written path relative to the primary root, or absolute for a
    /// secondary root; `.` for the primary root itself.
    pub fn display(&self, roots: &[PathBuf]) -> String {
        let lexical = self.lexical.clone().unwrap_or_else(|| self.real.clone());
        if self.written_root == 0 {
            if lexical.is_empty() {
                ".".to_owned()
            } else {
                lexical
            }
        } else {
            let root = roots
                .get(self.written_root)
                .map(|r| r.display().to_string());
            let root = root.unwrap_or_default();
            if lexical.is_empty() {
                root
            } else {
                format!("{root}/{lexical}")
            }
        }
    }
}

/// Resolve `input` against `roots`.
pub fn locate(roots: &[PathBuf], input: &str) -> Result<Located, ResolveError> {
    // Made printable only for a message: most calls succeed.
    let shown = Shown(input);
    if input.contains('\0') {
        return Err(ResolveError::NotFound(format!(
            "{shown}: invalid file name (NUL byte)"
        )));
    }
    let (written_root, rest) = split_root(roots, input)
        .ok_or_else(|| ResolveError::OutOfScope(format!("{shown}: outside the workspace")))?;
    let lexical = lexical_normalise(&rest);

    let root = written_root;
    let root_dir = fsys::Dir::root(&roots[root]).map_err(|e| io_error(&shown, &e))?;
    let mut stack: Vec<String> = Vec::new();
    // dirs[i] is the directory reached through stack[..=i]: each opened from the one before it
    // without following a symlink, so what is checked is what is opened. The last name of
    // `stack` may be the target, not opened (a file is opened only once checked).
    let mut dirs: Vec<fsys::Dir> = Vec::new();
    let mut queue: VecDeque<String> = rest.into();
    let mut hops = 0u32;
    let mut metadata = None;

    while let Some(component) = queue.pop_front() {
        match component.as_str() {
            "" | "." => continue,
            ".." => {
                if stack.pop().is_none() {
                    return Err(ResolveError::OutOfScope(format!(
                        "{shown}: `..` leads outside the workspace"
                    )));
                }
                dirs.truncate(stack.len());
                metadata = None;
                continue;
            }
            _ => {}
        }
        let parent = dirs.last().unwrap_or(&root_dir);
        let last = queue.iter().all(|c| c.is_empty() || c == ".");
        let looked = if last {
            parent.stat_at(&component)
        } else {
            // A directory on the way: open it without following a symlink. Only when that
            // fails is it looked at (a symlink to follow, a file, or nothing).
            match parent.open_dir(&component) {
                Ok(opened) => {
                    stack.push(component);
                    dirs.push(opened);
                    metadata = None;
                    continue;
                }
                Err(open_err) => match parent.stat_at(&component) {
                    Ok(meta) if meta.is_dir() => return Err(io_error(&shown, &open_err)),
                    Ok(meta) if meta.kind != fsys::Kind::Symlink => {
                        // More components follow a non-directory; `..` after a file too.
                        return Err(ResolveError::NotFound(format!(
                            "{shown}: not a directory on the way"
                        )));
                    }
                    other => other,
                },
            }
        };
        let meta = match looked {
            Ok(meta) => meta,
            // The sandbox refuses even to `stat` a link with an absolute target.
            Err(e) if e.kind() == ErrorKind::PermissionDenied => return Err(absolute_link(&shown)),
            Err(e) => return Err(io_error(&shown, &e)),
        };
        if meta.kind == fsys::Kind::Symlink {
            hops += 1;
            if hops > MAX_SYMLINK_HOPS {
                return Err(ResolveError::Io(format!(
                    "{shown}: too many levels of symbolic links (a symlink loop?)"
                )));
            }
            // The sandbox refuses to read a link with an absolute target (it could point
            // anywhere); natively it can be read. Either way such a link is out of scope, so
            // both behave alike.
            let target = match parent.read_link(&component) {
                Ok(target) if !Path::new(&target).is_absolute() => target,
                Ok(_) => return Err(absolute_link(&shown)),
                Err(e) if e.kind() == ErrorKind::PermissionDenied => {
                    return Err(absolute_link(&shown));
                }
                Err(e) => return Err(io_error(&shown, &e)),
            };
            let mut target_parts = components(&target);
            target_parts.extend(queue.drain(..));
            queue = target_parts.into();
            metadata = None;
            continue;
        }
        stack.push(component);
        metadata = Some(meta);
    }

    // The target is the last name of `stack`, in the directory reached through the rest.
    let name = stack.last().cloned();
    dirs.truncate(stack.len().saturating_sub(1));
    let parent = match dirs.pop() {
        Some(dir) => dir,
        None => root_dir,
    };
    let full = join(&roots[root], &stack);
    let metadata = match (metadata, &name) {
        (Some(m), _) => m,
        (None, Some(name)) => parent.stat_at(name).map_err(|e| io_error(&shown, &e))?,
        (None, None) => parent.stat().map_err(|e| io_error(&shown, &e))?,
    };
    if metadata.kind == fsys::Kind::Symlink {
        return Err(ResolveError::Io(format!(
            "{shown}: changed while being resolved"
        )));
    }
    Ok(Located {
        root,
        real: stack.join("/"),
        lexical,
        written_root,
        full,
        metadata,
        parent,
        name,
    })
}

/// The root an input path is written against and its components below that root.
fn split_root(roots: &[PathBuf], input: &str) -> Option<(usize, Vec<String>)> {
    if !input.starts_with('/') {
        return Some((0, components(input)));
    }
    let parts: Vec<String> = components(input)
        .into_iter()
        .filter(|c| !c.is_empty() && c != ".")
        .collect();
    let mut best: Option<(usize, usize)> = None;
    for (index, root) in roots.iter().enumerate() {
        let root_parts: Vec<String> = root
            .components()
            .filter_map(|c| match c {
                Component::Normal(n) => Some(n.to_string_lossy().into_owned()),
                _ => None,
            })
            .collect();
        let matches =
            parts.len() >= root_parts.len() && parts.iter().zip(&root_parts).all(|(a, b)| a == b);
        if matches && best.is_none_or(|(_, len)| root_parts.len() > len) {
            best = Some((index, root_parts.len()));
        }
    }
    best.map(|(index, len)| (index, parts[len..].to_vec()))
}

fn absolute_link(shown: &Shown<'_>) -> ResolveError {
    ResolveError::OutOfScope(format!(
        "{shown}: a symbolic link with an absolute target leads outside the workspace"
    ))
}

fn components(path: &str) -> Vec<String> {
    path.split('/').map(str::to_owned).collect()
}

fn join(root: &Path, parts: &[String]) -> PathBuf {
    let mut path = root.to_path_buf();
    for part in parts {
        path.push(part);
    }
    path
}

/// `a/./b/../c` → `a/c`; `None` when `..` climbs above the start.
fn lexical_normalise(parts: &[String]) -> Option<String> {
    let mut out: Vec<&str> = Vec::new();
    for part in parts {
        match part.as_str() {
            "" | "." => {}
            ".." => {
                out.pop()?;
            }
            name => out.push(name),
        }
    }
    Some(out.join("/"))
}

fn io_error(shown: &Shown<'_>, e: &std::io::Error) -> ResolveError {
    match e.kind() {
        ErrorKind::NotFound | ErrorKind::NotADirectory => {
            ResolveError::NotFound(format!("{shown}: no such file or directory"))
        }
        ErrorKind::InvalidFilename | ErrorKind::InvalidInput => {
            ResolveError::NotFound(format!("{shown}: invalid file name"))
        }
        ErrorKind::PermissionDenied => ResolveError::Io(format!("{shown}: permission denied")),
        _ => ResolveError::Io(format!("{shown}: {e}")),
    }
}

/// A path as written, shown in a message as [`printable`] makes it.
struct Shown<'a>(&'a str);

impl std::fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&printable(self.0))
    }
}

/// A path as shown in messages: control characters escaped, long paths shortened.
pub fn printable(path: &str) -> String {
    const MAX_SHOWN: usize = 200;
    let mut out = String::new();
    for (count, c) in path.chars().enumerate() {
        if count >= MAX_SHOWN {
            out.push('…');
            break;
        }
        if c.is_control() {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}
