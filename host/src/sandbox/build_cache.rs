//! Private build-tool caches of one workspace: the directory where cargo, npm, pip and go keep
//! what they download and unpack while a sandboxed command runs, so that they work without
//! writing to the user's shared caches (which the sandbox leaves read-only).
//!
//! The directory is `$XDG_CACHE_HOME/warden/build/<digest of the workspace root>` (default
//! `~/.cache/warden/build/…`), writable by the workspace's commands only. Cargo gets a home of
//! its own there whose registry lists the user's downloaded crates and index by symbolic link
//! (read, never written: a crate is unpacked into the private `registry/src`, a new download
//! lands in the private `registry/cache`); npm, pip and go get private cache directories,
//! and go reads the user's module downloads as a file proxy before the network.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// Most entries linked from one directory of the user's cargo registry.
const MAX_LINKED: usize = 100_000;

/// A workspace's private cache directory and the environment that points the tools at it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildCaches {
    /// The directory (created, mode 0700).
    pub dir: PathBuf,
    /// Variables set for the command.
    pub env: Vec<(String, String)>,
}

/// The variable named `key` in `vars`, when set and not empty.
fn var<'a>(vars: &'a [(String, String)], key: &str) -> Option<&'a str> {
    vars.iter()
        .find(|(k, _)| k == key)
        .map(|(_, v)| v.as_str())
        .filter(|v| !v.is_empty())
}

/// Where the private caches of the workspace at `root` live under the environment `vars`;
/// `None` without a home directory.
pub fn cache_dir(vars: &[(String, String)], root: &Path) -> Option<PathBuf> {
    let base = var(vars, "XDG_CACHE_HOME")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
        .or_else(|| var(vars, "HOME").map(|h| Path::new(h).join(".cache")))?;
    let digest = Sha256::digest(root.as_os_str().as_encoded_bytes());
    let name: String = digest[..8].iter().map(|b| format!("{b:02x}")).collect();
    Some(base.join("warden").join("build").join(name))
}

impl BuildCaches {
    /// Make (or refresh) the private caches of the workspace at `root`, from warden's own
    /// environment `vars` (the user's cargo home is `CARGO_HOME`, or `~/.cargo`); `offline`
    /// when the command has no network. `Ok(None)` without a home directory.
    pub fn prepare(
        vars: &[(String, String)],
        root: &Path,
        offline: bool,
    ) -> Result<Option<Self>, String> {
        let Some(dir) = cache_dir(vars, root) else {
            return Ok(None);
        };
        make_dir(&dir)?;
        let cargo = dir.join("cargo");
        make_dir(&cargo)?;
        let user_cargo = var(vars, "CARGO_HOME")
            .map(PathBuf::from)
            .or_else(|| var(vars, "HOME").map(|h| Path::new(h).join(".cargo")));
        if let Some(user) = user_cargo.filter(|u| u.is_dir() && *u != cargo) {
            link_cargo_home(&user, &cargo)?;
        }
        let mut env = vec![("CARGO_HOME".to_owned(), shown(&cargo))];
        if offline {
            // Without a network cargo would try the index and fail slowly: the cache decides.
            env.push(("CARGO_NET_OFFLINE".to_owned(), "true".to_owned()));
        }
        for (key, sub) in [
            ("npm_config_cache", "npm"),
            ("PIP_CACHE_DIR", "pip"),
            ("GOMODCACHE", "go/mod"),
            ("GOCACHE", "go/build"),
        ] {
            let path = dir.join(sub);
            make_dir(&path)?;
            env.push((key.to_owned(), shown(&path)));
        }
        // Unpacked modules are read-only by default: the cache could not be cleared.
        env.push(("GOFLAGS".to_owned(), "-modcacherw".to_owned()));
        let user_mods = var(vars, "GOMODCACHE")
            .map(PathBuf::from)
            .or_else(|| var(vars, "GOPATH").map(|p| Path::new(p).join("pkg/mod")))
            .or_else(|| var(vars, "HOME").map(|h| Path::new(h).join("go/pkg/mod")))
            .map(|m| m.join("cache/download"))
            .filter(|d| d.is_dir());
        if let Some(downloads) = user_mods {
            let rest = var(vars, "GOPROXY").unwrap_or("https://proxy.golang.org,direct");
            env.push((
                "GOPROXY".to_owned(),
                format!("file://{},{rest}", downloads.display()),
            ));
        }
        Ok(Some(Self { dir, env }))
    }
}

fn shown(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

fn make_dir(path: &Path) -> Result<(), String> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .map_err(|e| format!("creating the build cache {}: {e}", path.display()))
}

/// The private cargo home `own` reads the user's registry at `user` through links: each
/// registry's index and each downloaded crate (and git database) is a symbolic link, the
/// directories around them are the private home's own, so that what cargo writes stays there.
fn link_cargo_home(user: &Path, own: &Path) -> Result<(), String> {
    for file in ["config.toml", "config"] {
        link(&user.join(file), &own.join(file))?;
    }
    for (kind, per_entry) in [
        ("registry/index", false),
        ("registry/cache", true),
        ("git/db", false),
    ] {
        let from = user.join(kind);
        let Ok(registries) = std::fs::read_dir(&from) else {
            continue;
        };
        let to = own.join(kind);
        make_dir(&to)?;
        for registry in registries.flatten().take(MAX_LINKED) {
            let name = registry.file_name();
            if !per_entry {
                link(&registry.path(), &to.join(&name))?;
                continue;
            }
            // Downloads: the directory is private, each crate a link (a new one lands here).
            let own_dir = to.join(&name);
            make_dir(&own_dir)?;
            let Ok(crates) = std::fs::read_dir(registry.path()) else {
                continue;
            };
            for krate in crates.flatten().take(MAX_LINKED) {
                link(&krate.path(), &own_dir.join(krate.file_name()))?;
            }
        }
    }
    Ok(())
}

/// A symbolic link at `at` to `target` when `target` exists and nothing is at `at` yet.
fn link(target: &Path, at: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(target).is_err() || std::fs::symlink_metadata(at).is_ok() {
        return Ok(());
    }
    std::os::unix::fs::symlink(target, at)
        .map_err(|e| format!("linking {} at {}: {e}", target.display(), at.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vars(pairs: &[(&str, &Path)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.display().to_string()))
            .collect()
    }

    #[test]
    fn each_workspace_gets_its_own_directory_and_cargo_reads_the_users_registry() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let user = home.join(".cargo");
        let crates = user.join("registry/cache/index.example-1");
        std::fs::create_dir_all(&crates).unwrap();
        std::fs::create_dir_all(user.join("registry/index/index.example-1/.cache")).unwrap();
        std::fs::write(crates.join("itoa-1.0.0.crate"), "gz").unwrap();
        let env = vars(&[("HOME", &home)]);
        let a = BuildCaches::prepare(&env, Path::new("/w/a"), true)
            .unwrap()
            .unwrap();
        let b = BuildCaches::prepare(&env, Path::new("/w/b"), false)
            .unwrap()
            .unwrap();
        assert_ne!(a.dir, b.dir);
        assert!(a.dir.starts_with(home.join(".cache/warden/build")));
        let cargo = a.dir.join("cargo");
        let get = |key: &str| a.env.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone());
        assert_eq!(get("CARGO_HOME"), Some(cargo.display().to_string()));
        assert_eq!(get("CARGO_NET_OFFLINE").as_deref(), Some("true"));
        assert!(!b.env.iter().any(|(k, _)| k == "CARGO_NET_OFFLINE"));
        let linked = cargo.join("registry/cache/index.example-1/itoa-1.0.0.crate");
        assert_eq!(
            std::fs::read_link(&linked).unwrap(),
            crates.join("itoa-1.0.0.crate")
        );
        assert!(
            !std::fs::symlink_metadata(cargo.join("registry/cache/index.example-1"))
                .unwrap()
                .is_symlink(),
            "the download directory is the private home's own"
        );
        assert!(
            std::fs::symlink_metadata(cargo.join("registry/index/index.example-1"))
                .unwrap()
                .is_symlink()
        );
        // A crate downloaded since is linked at the next call.
        std::fs::write(crates.join("ryu-1.0.0.crate"), "gz").unwrap();
        BuildCaches::prepare(&env, Path::new("/w/a"), true).unwrap();
        assert!(
            cargo
                .join("registry/cache/index.example-1/ryu-1.0.0.crate")
                .is_file()
        );
        for key in ["npm_config_cache", "PIP_CACHE_DIR", "GOMODCACHE", "GOCACHE"] {
            let path = PathBuf::from(get(key).unwrap());
            assert!(path.starts_with(&a.dir) && path.is_dir(), "{key}");
        }
    }

    #[test]
    fn no_home_means_no_private_caches() {
        assert_eq!(BuildCaches::prepare(&[], Path::new("/w"), true), Ok(None));
    }
}
