//! Empty placeholders for the protected directories (`.warden`, `.git`) a workspace root does
//! not have: made before a sandboxed process starts, so that the launcher has a mount point to
//! bind read-only (a command cannot create the name, nor remove or rename the mount), and
//! removed after it with `rmdir` (never a recursive delete: a placeholder that is no longer
//! empty is left and logged). An empty `.git` is no repository: git skips it and looks further
//! up; an empty `.warden` holds no configuration.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::domain::defaults::PROTECTED_DIRS;

/// The placeholders one sandboxed process was given; removed when dropped.
#[derive(Debug, Default)]
pub struct Placeholders {
    made: Vec<PathBuf>,
}

impl Placeholders {
    /// Make every protected directory missing at a root of `roots`. A name something else
    /// created meanwhile is left alone (it is bound read-only as it is).
    pub fn make(roots: &[PathBuf]) -> Result<Self, String> {
        let mut out = Self::default();
        for root in roots {
            for name in PROTECTED_DIRS {
                let path = root.join(name);
                if std::fs::symlink_metadata(&path).is_ok() {
                    continue;
                }
                match std::fs::create_dir(&path) {
                    Ok(()) => out.made.push(path),
                    Err(err) if err.kind() == ErrorKind::AlreadyExists => {}
                    Err(err) => {
                        return Err(format!(
                            "creating the placeholder {} (so that a command cannot create it): {err}",
                            path.display()
                        ));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The placeholders made.
    pub fn paths(&self) -> &[PathBuf] {
        &self.made
    }
}

impl Drop for Placeholders {
    fn drop(&mut self) {
        for path in self.made.drain(..) {
            remove(&path);
        }
    }
}

fn remove(path: &Path) {
    match std::fs::remove_dir(path) {
        Ok(()) => {}
        Err(err) if err.kind() == ErrorKind::NotFound => {}
        Err(err) => tracing::warn!(
            "left the placeholder {} in place: {err} (remove it by hand once it is empty)",
            path.display()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_names_are_made_and_removed_only_while_empty() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("a");
        let b = dir.path().join("b");
        std::fs::create_dir_all(a.join(".git")).unwrap();
        std::fs::write(a.join(".git/HEAD"), "x").unwrap();
        std::fs::create_dir_all(&b).unwrap();
        let made = Placeholders::make(&[a.clone(), b.clone()]).unwrap();
        let mut paths = made.paths().to_vec();
        paths.sort();
        assert_eq!(
            paths,
            vec![a.join(".warden"), b.join(".git"), b.join(".warden")]
        );
        std::fs::write(b.join(".warden/kept"), "x").unwrap();
        drop(made);
        assert!(!a.join(".warden").exists() && !b.join(".git").exists());
        assert!(b.join(".warden/kept").is_file());
        assert!(a.join(".git/HEAD").is_file());
    }
}
