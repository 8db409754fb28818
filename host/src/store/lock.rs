//! The one-writer-per-session lock: an exclusive advisory lock (`File::try_lock`) on
//! `sessions/<id>/lock`, held for as long as the writer lives.
//!
//! The operating system drops the lock when the file is closed, so it is released when the
//! writer is dropped and also when the process dies, however it dies; a stale lock file left on
//! disk locks nothing.

use std::fs::{File, OpenOptions, TryLockError};
use std::path::{Path, PathBuf};

use super::StoreError;

/// A held session lock; released on drop.
#[derive(Debug)]
pub(crate) struct SessionLock {
    // Held for its lock only.
    _file: File,
    path: PathBuf,
}

impl SessionLock {
    /// Takes the lock at `path` for session `id` without waiting.
    pub(crate) fn acquire(path: PathBuf, id: &str) -> Result<Self, StoreError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(StoreError::io("open lock file", &path))?;
        match file.try_lock() {
            Ok(()) => Ok(Self { _file: file, path }),
            Err(TryLockError::WouldBlock) => Err(StoreError::Locked {
                id: id.to_owned(),
                path,
            }),
            Err(TryLockError::Error(e)) => Err(StoreError::io("lock", &path)(e)),
        }
    }

    /// Records that the locked file now lives at `path` (after its directory was renamed).
    pub(crate) fn moved_to(&mut self, path: PathBuf) {
        self.path = path;
    }

    /// The lock file.
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn second_lock_is_refused_until_the_first_is_dropped() -> Result<(), Box<dyn std::error::Error>>
    {
        let dir = tempfile::tempdir()?;
        let path = dir.path().join("lock");
        let first = SessionLock::acquire(path.clone(), "s1")?;
        let err = SessionLock::acquire(path.clone(), "s1").err();
        let msg = err.as_ref().map(ToString::to_string).unwrap_or_default();
        assert!(matches!(err, Some(StoreError::Locked { .. })), "{msg}");
        assert!(
            msg.contains("\"s1\"") && msg.contains("another warden process"),
            "{msg}"
        );
        drop(first);
        assert!(SessionLock::acquire(path, "s1").is_ok());
        Ok(())
    }
}
