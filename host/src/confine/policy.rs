//! What a guarded plugin may touch, decided on real paths (the kernel's own name of an opened
//! descriptor, never the string the guest passed): inside the canonical workspace roots, never
//! a path the deny globs deny (any `.git` component included) for reads, and never a protected
//! directory (`.warden`, `.git`, any case) nor a denied path for writes.

use std::path::{Component, Path, PathBuf};

use warden_rules::deny::Deny;

use crate::domain::defaults::is_protected;

/// Why a path is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// Not inside any workspace root.
    Outside,
    /// Denied by the deny globs (or a `.git` component).
    Denied,
    /// Inside a protected directory (`.warden`, `.git`): never written.
    Protected,
}

impl Refusal {
    /// How the refusal reads in the host's log.
    pub(crate) fn reason(self) -> &'static str {
        match self {
            Self::Outside => "outside the workspace roots",
            Self::Denied => "denied by the deny globs",
            Self::Protected => "in a protected directory (.warden, .git)",
        }
    }
}

/// The roots and deny globs one guarded plugin is held to.
#[derive(Debug)]
pub(crate) struct FsPolicy {
    roots: Vec<PathBuf>,
    deny: Deny,
}

impl FsPolicy {
    /// A policy over `roots` (absolute, canonical) with the deny `globs`.
    pub(crate) fn new(roots: &[PathBuf], globs: &[String]) -> Result<Self, String> {
        Ok(Self {
            roots: roots.to_vec(),
            deny: Deny::new(globs)?,
        })
    }

    /// `real` relative to each root it lies in (components joined by `/`; empty for a root).
    fn relatives<'a>(&'a self, real: &'a Path) -> impl Iterator<Item = String> + 'a {
        self.roots.iter().filter_map(move |root| {
            let rest = real.strip_prefix(root).ok()?;
            let mut parts = Vec::new();
            for component in rest.components() {
                match component {
                    Component::Normal(name) => parts.push(name.to_string_lossy()),
                    // A real path has no `.` or `..`; one that does is not trusted.
                    _ => return None,
                }
            }
            Some(parts.join("/"))
        })
    }

    /// Whether the real path `real` may be opened, read, listed or stat'ed.
    pub(crate) fn check_read(&self, real: &Path) -> Result<(), Refusal> {
        let mut inside = false;
        for rel in self.relatives(real) {
            inside = true;
            if self.deny.dir(&rel) {
                return Err(Refusal::Denied);
            }
        }
        if inside {
            Ok(())
        } else {
            Err(Refusal::Outside)
        }
    }

    /// Whether the real path `real` may be created, written, removed, renamed or linked.
    pub(crate) fn check_write(&self, real: &Path) -> Result<(), Refusal> {
        let mut inside = false;
        for rel in self.relatives(real) {
            inside = true;
            if is_protected(&rel) {
                return Err(Refusal::Protected);
            }
            if self.deny.dir(&rel) {
                return Err(Refusal::Denied);
            }
        }
        if inside {
            Ok(())
        } else {
            Err(Refusal::Outside)
        }
    }

    /// Whether a symlink in the real directory `link_dir` may point at `target`: the target,
    /// resolved as the kernel would (against `link_dir`, or absolute; symlinks met on the way
    /// followed, `..` applied after them), must stay inside the roots and be neither protected
    /// nor denied.
    pub(crate) fn check_symlink_target(
        &self,
        link_dir: &Path,
        target: &str,
    ) -> Result<(), Refusal> {
        self.check_write(&resolve_target(link_dir, Path::new(target)))
    }
}

/// `target` resolved against `dir`: each existing prefix is replaced by its canonical path (so
/// a symlink on the way is followed before a later `..` applies), the part that does not exist
/// yet is applied lexically.
pub(crate) fn resolve_target(dir: &Path, target: &Path) -> PathBuf {
    let mut out = if target.is_absolute() {
        PathBuf::from("/")
    } else {
        dir.to_path_buf()
    };
    for component in target.components() {
        match component {
            Component::Normal(name) => {
                out.push(name);
                if std::fs::symlink_metadata(&out).is_ok()
                    && let Ok(real) = std::fs::canonicalize(&out)
                {
                    out = real;
                }
            }
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir | Component::RootDir | Component::Prefix(_) => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::os::unix::fs::symlink;

    use super::*;
    use crate::domain::defaults::DEFAULT_DENY;

    fn policy(root: &Path) -> FsPolicy {
        let globs: Vec<String> = DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect();
        FsPolicy::new(&[root.canonicalize().unwrap()], &globs).unwrap()
    }

    fn real(path: &Path) -> PathBuf {
        path.canonicalize().unwrap()
    }

    #[test]
    fn reads_are_held_to_the_deny_globs_on_the_real_path() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        std::fs::create_dir_all(ws.join("sub/.GIT")).unwrap();
        std::fs::create_dir_all(ws.join(".warden")).unwrap();
        std::fs::write(ws.join(".env"), "k").unwrap();
        std::fs::write(ws.join("notes.txt"), "n").unwrap();
        std::fs::write(dir.path().join("outside.txt"), "o").unwrap();
        symlink(".env", ws.join("innocent")).unwrap();
        symlink(".git", ws.join("gitdir")).unwrap();
        symlink("../outside.txt", ws.join("out")).unwrap();
        let p = policy(&ws);
        assert_eq!(p.check_read(&real(&ws.join("notes.txt"))), Ok(()));
        assert_eq!(p.check_read(&real(&ws)), Ok(()));
        assert_eq!(p.check_read(&real(&ws.join(".warden"))), Ok(()));
        for denied in ["innocent", "gitdir", "gitdir/hooks", ".env", "sub/.GIT"] {
            assert_eq!(
                p.check_read(&real(&ws.join(denied))),
                Err(Refusal::Denied),
                "{denied}"
            );
        }
        assert_eq!(p.check_read(&real(&ws.join("out"))), Err(Refusal::Outside));
    }

    #[test]
    fn writes_never_reach_protected_or_denied_paths() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(ws.join(".warden")).unwrap();
        std::fs::create_dir_all(ws.join("src")).unwrap();
        symlink(".warden", ws.join("settings")).unwrap();
        let p = policy(&ws);
        let root = real(&ws);
        assert_eq!(p.check_write(&root.join("src/new.rs")), Ok(()));
        for (path, why) in [
            (".warden/config.toml", Refusal::Protected),
            (".WARDEN/config.toml", Refusal::Protected),
            (".Git/hooks/pre-commit", Refusal::Protected),
            ("vendor/lib/.git/config", Refusal::Protected),
            (".warden", Refusal::Protected),
            (".env", Refusal::Denied),
            ("keys/server.pem", Refusal::Denied),
        ] {
            assert_eq!(p.check_write(&root.join(path)), Err(why), "{path}");
        }
        // Through a symlink, the real path is what counts.
        let via_link = real(&ws.join("settings")).join("config.toml");
        assert_eq!(p.check_write(&via_link), Err(Refusal::Protected));
        assert_eq!(
            p.check_write(&dir.path().join("elsewhere.txt")),
            Err(Refusal::Outside)
        );
        // A root is a prefix of whole components only.
        let sibling = PathBuf::from(format!("{}x/a.txt", root.display()));
        assert_eq!(p.check_write(&sibling), Err(Refusal::Outside));
    }

    #[test]
    fn a_directory_swapped_for_a_symlink_is_judged_by_where_it_now_leads() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::create_dir_all(ws.join(".git/hooks")).unwrap();
        let p = policy(&ws);
        assert_eq!(p.check_write(&real(&ws.join("src")).join("a.rs")), Ok(()));
        std::fs::remove_dir(ws.join("src")).unwrap();
        symlink(".git/hooks", ws.join("src")).unwrap();
        assert_eq!(
            p.check_write(&real(&ws.join("src")).join("pre-commit")),
            Err(Refusal::Protected)
        );
        assert_eq!(p.check_read(&real(&ws.join("src"))), Err(Refusal::Denied));
    }

    #[test]
    fn symlink_targets_are_resolved_as_the_kernel_would() {
        let dir = tempfile::tempdir().unwrap();
        let ws = dir.path().join("ws");
        std::fs::create_dir_all(ws.join("a/b")).unwrap();
        std::fs::create_dir_all(ws.join(".git")).unwrap();
        std::fs::create_dir_all(dir.path().join("deep/er")).unwrap();
        // `up` is a symlink to a directory outside; `up/..` is its real parent, not `ws`.
        symlink(dir.path().join("deep/er"), ws.join("a/up")).unwrap();
        // A directory swapped for a symlink to `.git`.
        symlink("../.git", ws.join("a/swapped")).unwrap();
        let p = policy(&ws);
        let a = real(&ws.join("a"));
        assert_eq!(p.check_symlink_target(&a, "b/file.txt"), Ok(()));
        assert_eq!(p.check_symlink_target(&a, "../a/b"), Ok(()));
        assert_eq!(p.check_symlink_target(&a, "not-yet/there"), Ok(()));
        for (target, why) in [
            ("/etc/passwd", Refusal::Outside),
            ("../../outside", Refusal::Outside),
            ("up/../x", Refusal::Outside),
            ("swapped/config", Refusal::Protected),
            ("b/../../.git/hooks", Refusal::Protected),
            ("../.GIT/config", Refusal::Protected),
            ("../.env", Refusal::Denied),
        ] {
            assert_eq!(p.check_symlink_target(&a, target), Err(why), "{target}");
        }
        let absolute = real(&ws).join("a/b/x");
        assert_eq!(
            p.check_symlink_target(&a, absolute.to_str().unwrap()),
            Ok(())
        );
    }
}
