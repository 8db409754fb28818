//! The resolver's settings, read from the `init` config map.
//!
//! Keys set by the host: `roots` (newline-separated absolute paths, the first is the primary
//! root), `deny` (newline-separated globs), `max_entries`. Keys an operator may add through
//! `fileref.resolver_config`: `max_scan_bytes`.

use std::path::{Component, Path, PathBuf};

use warden_plugin::Config;

/// Deny globs used when the host passes none, and entries listed for a directory when the host
/// passes no `max_entries` (the shared defaults of `warden-defaults`).
pub use warden_defaults::{DEFAULT_DENY, DEFAULT_MAX_ENTRIES};

/// Bytes a line range or a `read_file` offset may scan through before the request is refused
/// as `too-large`.
pub const DEFAULT_MAX_SCAN_BYTES: u64 = 64 * 1024 * 1024;

/// Parsed settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Workspace roots, absolute and lexically normalised; the first is the primary one.
    pub roots: Vec<PathBuf>,
    /// Deny globs.
    pub deny: Vec<String>,
    /// Entries listed for a directory reference.
    pub max_entries: u32,
    /// Scan limit for line ranges and `read_file` offsets.
    pub max_scan_bytes: u64,
}

impl Settings {
    /// Read the settings from the `init` config, or say what is wrong with it.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let roots_raw = config.require("roots")?;
        let mut roots = Vec::new();
        for line in roots_raw.lines().map(str::trim).filter(|l| !l.is_empty()) {
            roots.push(normalise_root(line)?);
        }
        if roots.is_empty() {
            return Err("config key `roots` names no root".to_owned());
        }
        let deny = match config.get("deny") {
            Some(raw) => raw
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .map(str::to_owned)
                .collect(),
            None => DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect(),
        };
        let max_entries = config.parse_or("max_entries", DEFAULT_MAX_ENTRIES)?;
        let max_scan_bytes = config.parse_or("max_scan_bytes", DEFAULT_MAX_SCAN_BYTES)?;
        Ok(Self {
            roots,
            deny,
            max_entries,
            max_scan_bytes,
        })
    }
}

/// An absolute root path without `.`/`..` components or a trailing slash.
fn normalise_root(raw: &str) -> Result<PathBuf, String> {
    let path = Path::new(raw);
    if !path.is_absolute() {
        return Err(format!("root {raw:?} is not an absolute path"));
    }
    let mut out = PathBuf::from("/");
    for component in path.components() {
        match component {
            Component::Normal(name) => out.push(name),
            Component::RootDir | Component::CurDir => {}
            Component::ParentDir | Component::Prefix(_) => {
                return Err(format!("root {raw:?} must not contain `..`"));
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        Config::from(
            pairs
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn reads_roots_deny_and_limits() {
        let s = Settings::from_config(&config(&[
            ("roots", "/a/b/\n/c/./d\n"),
            ("deny", "x\n\n y \n"),
            ("max_entries", "7"),
        ]));
        assert_eq!(
            s,
            Ok(Settings {
                roots: vec![PathBuf::from("/a/b"), PathBuf::from("/c/d")],
                deny: vec!["x".into(), "y".into()],
                max_entries: 7,
                max_scan_bytes: DEFAULT_MAX_SCAN_BYTES,
            })
        );
    }

    #[test]
    fn refuses_bad_roots() {
        assert!(Settings::from_config(&config(&[])).is_err());
        assert!(Settings::from_config(&config(&[("roots", "rel")])).is_err());
        assert!(Settings::from_config(&config(&[("roots", "/a/../b")])).is_err());
        assert!(Settings::from_config(&config(&[("roots", "\n")])).is_err());
        assert!(Settings::from_config(&config(&[("roots", "/a"), ("max_entries", "x")])).is_err());
    }

    #[test]
    fn default_deny_when_absent() {
        let s = Settings::from_config(&config(&[("roots", "/a")])).map(|s| s.deny.len());
        assert_eq!(s, Ok(DEFAULT_DENY.len()));
    }

    // The default globs, checked here because the rules crate (`warden-rules`) does not know
    // the defaults.
    fn defaults() -> warden_rules::deny::Deny {
        let globs: Vec<String> = DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect();
        match warden_rules::deny::Deny::new(&globs) {
            Ok(d) => d,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn default_globs() {
        let d = defaults();
        for denied in [
            ".env",
            "sub/.env",
            ".env.local",
            ".ENV",
            ".git/config",
            "vendor/.git/config",
            "a/b/server.pem",
            "x.key",
            "home/.ssh/id_rsa",
            "id_rsa.pub",
        ] {
            assert!(d.file(denied), "{denied} should be denied");
        }
        for allowed in [
            "src/main.rs",
            ".envrc",
            "env",
            ".github/workflows/ci.yml",
            "keys.rs",
        ] {
            assert!(!d.file(allowed), "{allowed} should be allowed");
        }
        assert!(d.dir(".git"));
        assert!(d.dir("sub/.git"));
        assert!(!d.dir("src"));
        assert!(!d.dir(""));
    }
}
