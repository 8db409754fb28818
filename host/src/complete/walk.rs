//! The walk behind [`super::Index::build`]: the resolver's listing rules (`warden_rules`: each
//! directory's `.gitignore` on top of its parents', the deny globs, `.git` skipped, symlinks
//! listed but never followed), with directories shared out among threads.
//!
//! Each thread takes a directory from a shared stack, lists it into its own
//! [`Arena`], and puts the subdirectories it found back on the stack for any thread to take;
//! the walk ends when the stack is empty and no thread is listing. Only the root must be
//! readable: a directory that cannot be read further down is left out, as the listing does.

use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, PoisonError};

use warden_rules::deny::Deny;
use warden_rules::fsys;
use warden_rules::gitignore::{IgnoreFile, IgnoreStack};

use super::index::{Arena, Kind};

/// Threads to walk with: one per core, at most 8.
pub(super) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// A directory to list.
struct Job {
    dir: PathBuf,
    /// Root-relative path (empty for the root).
    rel: String,
    /// `.gitignore` files of its ancestors.
    stack: IgnoreStack,
}

/// Directories waiting, and how many threads are listing one.
#[derive(Default)]
struct Shared {
    jobs: Vec<Job>,
    busy: usize,
}

struct Queue {
    shared: Mutex<Shared>,
    changed: Condvar,
}

impl Queue {
    /// The next directory, or `None` once the walk is over.
    fn take(&self) -> Option<Job> {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            if let Some(job) = shared.jobs.pop() {
                shared.busy += 1;
                return Some(job);
            }
            if shared.busy == 0 {
                return None;
            }
            shared = self
                .changed
                .wait(shared)
                .unwrap_or_else(PoisonError::into_inner);
        }
    }

    /// A directory is listed; `found` are its subdirectories.
    fn done(&self, found: Vec<Job>) {
        let mut shared = self.shared.lock().unwrap_or_else(PoisonError::into_inner);
        shared.busy -= 1;
        let wake = !found.is_empty() || shared.busy == 0;
        shared.jobs.extend(found);
        drop(shared);
        if wake {
            self.changed.notify_all();
        }
    }
}

/// Every listed entry below `root`, on `threads` threads, one arena per thread.
pub(super) fn walk(root: &Path, deny: &Deny, threads: usize) -> io::Result<Vec<Arena>> {
    let mut mine = Arena::default();
    let first = Job {
        dir: root.to_owned(),
        rel: String::new(),
        stack: IgnoreStack::default(),
    };
    // The root is listed here, so that its error is the build's.
    let found = list(first, deny, &mut mine)?;
    let queue = Queue {
        shared: Mutex::new(Shared {
            jobs: found,
            busy: 0,
        }),
        changed: Condvar::new(),
    };
    let work = |arena: &mut Arena| {
        while let Some(job) = queue.take() {
            // Below the root an unreadable directory is left out.
            let found = list(job, deny, arena).unwrap_or_default();
            queue.done(found);
        }
    };
    let mut arenas = std::thread::scope(|scope| {
        let helpers: Vec<_> = (1..threads.max(1))
            .filter_map(|n| {
                std::thread::Builder::new()
                    .name(format!("warden-complete-walk-{n}"))
                    .spawn_scoped(scope, || {
                        let mut arena = Arena::default();
                        work(&mut arena);
                        arena
                    })
                    .ok()
            })
            .collect();
        work(&mut mine);
        helpers
            .into_iter()
            .map(|h| {
                h.join()
                    .map_err(|_| io::Error::other("a directory walker thread panicked"))
            })
            .collect::<io::Result<Vec<Arena>>>()
    })?;
    arenas.insert(0, mine);
    Ok(arenas)
}

/// List one directory into `arena`; its subdirectories to list next.
fn list(job: Job, deny: &Deny, arena: &mut Arena) -> io::Result<Vec<Job>> {
    let Job { dir, rel, stack } = job;
    let stack = match IgnoreFile::load(&dir, &rel) {
        Some(file) => stack.with(file),
        None => stack,
    };
    let names = fsys::read_dir(&dir)?;
    let mut found = Vec::new();
    let mut path = String::with_capacity(rel.len() + 64);
    for (name, kind) in names {
        if name == ".git" {
            continue;
        }
        let is_dir = kind == fsys::Kind::Dir;
        path.clear();
        if !rel.is_empty() {
            path.push_str(&rel);
            path.push('/');
        }
        path.push_str(&name);
        if stack.is_ignored(&path, is_dir) {
            continue;
        }
        let denied = if is_dir {
            deny.dir(&path)
        } else {
            deny.file(&path)
        };
        if denied {
            continue;
        }
        if is_dir {
            arena.push(&path, Kind::Dir);
            found.push(Job {
                dir: dir.join(&name),
                rel: path.clone(),
                stack: stack.clone(),
            });
        } else {
            arena.push(&path, Kind::File);
        }
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use warden_rules::listing;

    use super::*;

    /// A tree with nested `.gitignore`s (negation, anchored and directory-only rules), deny
    /// globs, `.git`, a symlink to a directory, and enough directories to keep every thread
    /// busy.
    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let write = |path: &str, body: &str| {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, body).unwrap();
        };
        write(".gitignore", "*.log\n/build/\ncache/\n!keep.log\n");
        write("build/out.txt", "");
        write("docs/build/page.md", "");
        write(".env", "");
        write(".git/config", "");
        write("certs/server.pem", "");
        for a in 0..12 {
            for b in 0..6 {
                let base = format!("p{a}/m{b}");
                write(&format!("{base}/x.rs"), "");
                write(&format!("{base}/x.log"), "");
                write(&format!("{base}/keep.log"), "");
                write(&format!("{base}/cache/blob"), "");
                if b % 2 == 0 {
                    write(&format!("{base}/.gitignore"), "*.rs\n!keep.rs\n/only/\n");
                    write(&format!("{base}/keep.rs"), "");
                    write(&format!("{base}/only/a"), "");
                    write(&format!("{base}/deep/only/a"), "");
                }
            }
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink("p1", dir.path().join("link")).unwrap();
        dir
    }

    fn deny() -> Deny {
        Deny::new(&[".env".to_owned(), "*.pem".to_owned(), "p3/**".to_owned()]).unwrap()
    }

    fn walked(root: &Path, threads: usize) -> BTreeSet<String> {
        let arenas = walk(root, &deny(), threads).unwrap();
        let index = super::super::Index::merge(arenas).unwrap();
        index.entries().map(|e| e.display()).collect()
    }

    #[test]
    fn parallel_walk_lists_what_the_serial_listing_lists() {
        let dir = tree();
        let serial: BTreeSet<String> =
            listing::list(dir.path(), "", dir.path(), &deny(), usize::MAX)
                .unwrap()
                .entries
                .into_iter()
                .collect();
        for threads in [1, 2, 4] {
            assert_eq!(walked(dir.path(), threads), serial, "{threads} threads");
        }
        for absent in [
            "build/",
            "p0/m0/x.log",
            "p0/m0/cache/",
            "p0/m0/x.rs",
            ".env",
        ] {
            assert!(!serial.contains(absent), "{absent}");
        }
        for present in [
            "docs/build/page.md",
            "p0/m0/keep.log",
            "p0/m0/keep.rs",
            "p0/m1/x.rs",
            "p0/m0/deep/only/a",
            "link",
        ] {
            assert!(serial.contains(present), "{present}");
        }
        assert!(
            !serial
                .iter()
                .any(|p| p.starts_with("p3/") || p.starts_with(".git/"))
        );
    }

    #[test]
    fn only_an_unreadable_root_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let err = walk(&dir.path().join("nope"), &deny(), 2).err().unwrap();
        assert_eq!(err.kind(), io::ErrorKind::NotFound);
    }
}
