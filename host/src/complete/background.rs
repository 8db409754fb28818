//! An [`Index`] built on its own thread, so a front end can show its prompt at once and offer
//! completions as soon as the listing is done.

use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use super::index::Index;

type Slot = Option<Result<Arc<Index>, String>>;

/// A handle on an index being built (or built) in the background.
#[derive(Debug, Clone)]
pub struct BackgroundIndex {
    shared: Arc<(Mutex<Slot>, Condvar)>,
}

impl BackgroundIndex {
    /// Start listing `root` with the deny globs `deny`.
    pub fn spawn(root: PathBuf, deny: Vec<String>) -> Self {
        let shared: Arc<(Mutex<Slot>, Condvar)> = Arc::default();
        let theirs = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("warden-complete-index".into())
            .spawn(move || {
                let built = Index::build(&root, &deny)
                    .map(Arc::new)
                    .map_err(|e| e.to_string());
                let (slot, ready) = &*theirs;
                *slot.lock().unwrap_or_else(PoisonError::into_inner) = Some(built);
                ready.notify_all();
            });
        if let Err(err) = spawned {
            let (slot, _) = &*shared;
            *slot.lock().unwrap_or_else(PoisonError::into_inner) =
                Some(Err(format!("cannot start the index thread: {err}")));
        }
        Self { shared }
    }

    /// The index if it is ready (`None` while it is being built, or if it failed).
    pub fn get(&self) -> Option<Arc<Index>> {
        let (slot, _) = &*self.shared;
        match &*slot.lock().unwrap_or_else(PoisonError::into_inner) {
            Some(Ok(index)) => Some(Arc::clone(index)),
            _ => None,
        }
    }

    /// The index if it is ready or becomes ready within `limit` (`None` otherwise, or if it
    /// failed): a Tab pressed just after start waits this long rather than offering no file.
    pub fn get_within(&self, limit: Duration) -> Option<Arc<Index>> {
        let (slot, ready) = &*self.shared;
        let guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) = ready
            .wait_timeout_while(guard, limit, |slot| slot.is_none())
            .unwrap_or_else(PoisonError::into_inner);
        match &*guard {
            Some(Ok(index)) => Some(Arc::clone(index)),
            _ => None,
        }
    }

    /// Wait for the index; the error says why it could not be built.
    pub fn wait(&self) -> Result<Arc<Index>, String> {
        let (slot, ready) = &*self.shared;
        let mut guard = slot.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(result) = &*guard {
                return result.clone();
            }
            guard = ready.wait(guard).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_in_the_background() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let bg = BackgroundIndex::spawn(dir.path().to_owned(), Vec::new());
        let index = bg.wait().unwrap();
        assert_eq!(index.len(), 1);
        assert!(bg.get().is_some());
    }

    #[test]
    fn a_bounded_wait_returns_the_index_once_built_and_nothing_on_failure() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "").unwrap();
        let bg = BackgroundIndex::spawn(dir.path().to_owned(), Vec::new());
        // Generous: the bound only matters while the index is being built.
        let index = bg.get_within(Duration::from_secs(60)).unwrap();
        assert_eq!(index.len(), 1);
        let failed = BackgroundIndex::spawn(dir.path().join("nope"), Vec::new());
        assert!(failed.get_within(Duration::from_secs(60)).is_none());
    }

    #[test]
    fn a_missing_root_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let bg = BackgroundIndex::spawn(dir.path().join("nope"), Vec::new());
        assert!(bg.wait().unwrap_err().contains("nope"));
        assert!(bg.get().is_none());
    }
}
