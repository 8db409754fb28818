//! The checks of the guarded path-taking calls. A path is split into its directory and its
//! final name; the directory is opened (through wasmtime, so within the preopen) and its real
//! path read from the kernel; the call then runs on that descriptor with the final name only,
//! so no directory swapped in later changes where it lands. Writes never follow a symlink in
//! the final name (refused, and opened with no-follow besides).

use std::path::{Path, PathBuf};

use wasmtime::component::Resource;
use wasmtime_wasi::filesystem::Descriptor;
use wasmtime_wasi::p2::bindings::filesystem::types::ErrorCode;
use wasmtime_wasi::p2::bindings::sync::filesystem::types::{
    self as fs, DescriptorFlags, HostDescriptor, OpenFlags, PathFlags,
};
use wasmtime_wasi::p2::{FsError, FsResult};

use super::GuardedFs;
use crate::confine::Refusal;
use crate::confine::real_path::real_path;

/// Whether an access reads or writes (for the error code and the rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    Read,
    Write,
}

/// The directory of a path, opened and named by the kernel, and the path's final name.
pub(super) struct Parent {
    /// The directory's descriptor: the caller's own, or one opened here (released after).
    pub(super) dir: Resource<fs::Descriptor>,
    opened: bool,
    /// Its real path.
    pub(super) real: PathBuf,
    /// The final name (`.` when the path ends in `.` or `..`, the directory itself).
    pub(super) name: String,
}

impl Parent {
    /// The real path the call names.
    pub(super) fn target(&self) -> PathBuf {
        if self.name == "." {
            self.real.clone()
        } else {
            self.real.join(&self.name)
        }
    }
}

/// A borrow of the descriptor `fd` points at, to pass on without giving `fd` away.
pub(super) fn borrow<T: 'static>(fd: &Resource<T>) -> Resource<T> {
    Resource::new_borrow(fd.rep())
}

/// `path` split into its directory part (if any) and final name.
fn split(path: &str) -> (Option<&str>, &str) {
    let trimmed = path.trim_end_matches('/');
    let (dir, name) = match trimmed.rsplit_once('/') {
        Some((dir, name)) => (Some(if dir.is_empty() { "/" } else { dir }), name),
        None => (None, trimmed),
    };
    match name {
        // The directory itself: open all of it, name it `.`.
        "" | "." | ".." => (Some(if trimmed.is_empty() { "." } else { trimmed }), "."),
        _ => (dir, name),
    }
}

impl GuardedFs<'_> {
    /// The real path of the descriptor `fd`, or `access` when the kernel cannot name it.
    pub(super) fn real_of(&mut self, fd: &Resource<fs::Descriptor>) -> FsResult<PathBuf> {
        let file = match self.fs.table.get(fd)? {
            Descriptor::File(f) => std::sync::Arc::clone(&f.file),
            Descriptor::Dir(d) => std::sync::Arc::clone(&d.dir),
        };
        real_path(&file).map_err(|err| {
            let plugin = self.guard.as_ref().map_or("", |g| g.plugin.as_str());
            tracing::warn!(
                plugin,
                "refused: the real path of a descriptor is unknown ({err})"
            );
            FsError::from(ErrorCode::Access)
        })
    }

    /// The refusal of `path` for `access`, logged once per plugin call.
    pub(super) fn refuse(&mut self, path: &Path, why: Refusal, access: Access) -> FsError {
        if let Some(guard) = self.guard.as_deref_mut() {
            let op = match access {
                Access::Read => "read",
                Access::Write => "write",
            };
            if guard.warned {
                tracing::debug!(plugin = %guard.plugin, path = %path.display(), "{op} refused: {}", why.reason());
            } else {
                guard.warned = true;
                tracing::warn!(plugin = %guard.plugin, path = %path.display(), "{op} refused: {}", why.reason());
            }
        }
        FsError::from(match access {
            Access::Read => ErrorCode::Access,
            Access::Write => ErrorCode::NotPermitted,
        })
    }

    /// `real` checked for `access` under the guard (always allowed without one).
    pub(super) fn check(&mut self, real: &Path, access: Access) -> FsResult<()> {
        let Some(guard) = self.guard.as_deref() else {
            return Ok(());
        };
        let checked = match access {
            Access::Read => guard.policy.check_read(real),
            Access::Write => guard.policy.check_write(real),
        };
        checked.map_err(|why| self.refuse(real, why, access))
    }

    /// The directory of `path` under `fd`, opened (following symlinks, within the preopen)
    /// and named by the kernel, with the final name; the target is checked for `access`.
    pub(super) fn parent(
        &mut self,
        fd: &Resource<fs::Descriptor>,
        path: &str,
        access: Access,
    ) -> FsResult<Parent> {
        let (dir, name) = split(path);
        let parent = match dir {
            None => Parent {
                dir: borrow(fd),
                opened: false,
                real: self.real_of(fd)?,
                name: name.to_owned(),
            },
            Some(dir) => {
                let opened = HostDescriptor::open_at(
                    &mut self.fs,
                    borrow(fd),
                    PathFlags::SYMLINK_FOLLOW,
                    dir.to_owned(),
                    OpenFlags::DIRECTORY,
                    DescriptorFlags::READ,
                )?;
                match self.real_of(&opened) {
                    Ok(real) => Parent {
                        dir: opened,
                        opened: true,
                        real,
                        name: name.to_owned(),
                    },
                    Err(err) => {
                        HostDescriptor::drop(&mut self.fs, opened).map_err(FsError::trap)?;
                        return Err(err);
                    }
                }
            }
        };
        let target = parent.target();
        if let Err(err) = self.check(&target, access) {
            self.release(parent)?;
            return Err(err);
        }
        Ok(parent)
    }

    /// Closes the directory [`GuardedFs::parent`] opened, if it opened one.
    pub(super) fn release(&mut self, parent: Parent) -> FsResult<()> {
        if parent.opened {
            HostDescriptor::drop(&mut self.fs, parent.dir).map_err(FsError::trap)?;
        }
        Ok(())
    }

    /// Runs `op` on the directory and final name of `path`, checked for `access`; the
    /// directory opened for it is closed after.
    pub(super) fn at<R>(
        &mut self,
        fd: &Resource<fs::Descriptor>,
        path: &str,
        access: Access,
        op: impl FnOnce(&mut Self, &Parent) -> FsResult<R>,
    ) -> FsResult<R> {
        let parent = self.parent(fd, path, access)?;
        let result = op(self, &parent);
        self.release(parent)?;
        result
    }

    /// Refuses a write through `parent`'s final name when it is a symlink (writes never
    /// follow one).
    pub(super) fn no_symlink(&mut self, parent: &Parent) -> FsResult<()> {
        let target = parent.target();
        match std::fs::symlink_metadata(&target) {
            Ok(meta) if meta.file_type().is_symlink() => {
                if let Some(guard) = self.guard.as_deref_mut()
                    && !guard.warned
                {
                    guard.warned = true;
                    tracing::warn!(plugin = %guard.plugin, path = %target.display(), "write refused: writes do not follow symlinks");
                }
                Err(FsError::from(ErrorCode::NotPermitted))
            }
            _ => Ok(()),
        }
    }

    /// With the final name a symlink that `follow` would follow, its resolved target checked
    /// for reading.
    pub(super) fn followed(&mut self, parent: &Parent, follow: bool) -> FsResult<()> {
        if !follow || parent.name == "." {
            return Ok(());
        }
        let target = parent.target();
        let is_link = std::fs::symlink_metadata(&target).is_ok_and(|m| m.file_type().is_symlink());
        if !is_link {
            return Ok(());
        }
        match std::fs::canonicalize(&target) {
            Ok(real) => self.check(&real, Access::Read),
            // A dangling link: the call itself fails.
            Err(_) => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn paths_split_into_directory_and_final_name() {
        assert_eq!(split("a.txt"), (None, "a.txt"));
        assert_eq!(split("a/b/c.txt"), (Some("a/b"), "c.txt"));
        assert_eq!(split("a/b/"), (Some("a"), "b"));
        assert_eq!(split("."), (Some("."), "."));
        assert_eq!(split(""), (Some("."), "."));
        assert_eq!(split("a/.."), (Some("a/.."), "."));
        assert_eq!(split("/x"), (Some("/"), "x"));
    }
}
