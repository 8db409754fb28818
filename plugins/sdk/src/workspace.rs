//! The workspace as a tool plugin sees it: its roots (from the `roots` config key, preopened
//! at their absolute paths when the entry grants `fs`) and the deny globs it must honour.
//!
//! [`Workspace::resolve`] is the one place a tool turns a path argument into a file path: it
//! refuses absolute paths, `..` and paths matching a deny glob; [`Workspace::resolve_for_write`]
//! also refuses the protected directories (`.warden`, `.git`). These are early, friendly
//! refusals on the path as written. The host enforces the same rules itself, on the **real
//! path** of whatever the plugin opens (symlinks resolved), whether it goes through these
//! helpers or plain `std::fs`: a denied file cannot be opened, read or stat'ed (`EACCES`) and
//! is left out of directory listings; nothing under `.warden/` or `.git/`, nothing denied and
//! nothing outside the roots can be written, removed, renamed or linked (`EPERM`); a write
//! never follows a symlink in its final name; and a symlink cannot be made to point outside
//! the roots or at a protected or denied path.

use std::path::{Component, Path, PathBuf};

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

use crate::Config;

/// Directories a plugin never writes into, at any depth and in any case (the host's list is
/// `warden_defaults::PROTECTED_DIRS`): `.warden` holds warden's configuration, `.git` the
/// repository.
pub const PROTECTED_DIRS: &[&str] = &[".warden", ".git"];

/// Workspace roots and deny globs.
#[derive(Debug, Clone)]
pub struct Workspace {
    roots: Vec<PathBuf>,
    deny: GlobSet,
}

/// A path argument resolved inside the workspace.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    /// The path to open (under the first root).
    pub full: PathBuf,
    /// The path relative to the root, components joined by `/` (empty for the root).
    pub relative: String,
}

impl Workspace {
    /// The roots of `config` (`roots`, newline-separated) and the deny globs `deny` plus the
    /// config's own `deny` key (newline- or comma-separated). A glob without `/` matches a name
    /// at any depth; `*` never crosses `/`; matching ignores case.
    pub fn from_config(config: &Config, deny: &[&str]) -> Result<Self, String> {
        let roots: Vec<PathBuf> = config
            .get("roots")
            .unwrap_or("")
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(PathBuf::from)
            .collect();
        if roots.is_empty() {
            return Err("no workspace roots in the config".to_owned());
        }
        let extra = config.get("deny").unwrap_or("");
        let globs = deny.iter().copied().chain(
            extra
                .split([',', '\n'])
                .map(str::trim)
                .filter(|g| !g.is_empty()),
        );
        Ok(Self {
            roots,
            deny: compile(globs)?,
        })
    }

    /// The first (primary) root.
    pub fn root(&self) -> &Path {
        &self.roots[0]
    }

    /// Whether root-relative `path` is denied (any `.git` component always is).
    pub fn denied(&self, relative: &str) -> bool {
        relative.split('/').any(|c| c.eq_ignore_ascii_case(".git")) || self.deny.is_match(relative)
    }

    /// `path` (relative to the root) resolved for writing, or why it is refused: as
    /// [`Workspace::resolve`], and never inside a protected directory. A change to warden's
    /// configuration is the person's to make: the refusal says to propose it instead.
    pub fn resolve_for_write(&self, path: &str) -> Result<Resolved, String> {
        let resolved = self.resolve(path)?;
        if resolved
            .relative
            .split('/')
            .any(|c| c.eq_ignore_ascii_case(".warden"))
        {
            return Err(format!(
                "{path}: `.warden/` holds warden's configuration, which no tool may write; \
                 propose the change to the person instead"
            ));
        }
        if resolved
            .relative
            .split('/')
            .any(|c| PROTECTED_DIRS.iter().any(|p| c.eq_ignore_ascii_case(p)))
        {
            return Err(format!("{path}: a protected directory, never written"));
        }
        Ok(resolved)
    }

    /// `path` (relative to the root) resolved, or why it is refused.
    pub fn resolve(&self, path: &str) -> Result<Resolved, String> {
        let given = Path::new(path);
        if given.is_absolute() {
            return Err(format!(
                "{path}: absolute paths are refused; give a path relative to the workspace root"
            ));
        }
        let mut parts = Vec::new();
        for component in given.components() {
            match component {
                Component::Normal(name) => match name.to_str() {
                    Some(name) => parts.push(name),
                    None => return Err(format!("{path}: not valid UTF-8")),
                },
                Component::CurDir => {}
                Component::ParentDir => {
                    return Err(format!(
                        "{path}: `..` is refused: the path must stay in the workspace"
                    ));
                }
                Component::RootDir | Component::Prefix(_) => {
                    return Err(format!("{path}: absolute paths are refused"));
                }
            }
        }
        let relative = parts.join("/");
        if self.denied(&relative) {
            return Err(format!("{path}: denied by the workspace's deny globs"));
        }
        Ok(Resolved {
            full: self.root().join(&relative),
            relative,
        })
    }
}

fn compile<'a>(globs: impl Iterator<Item = &'a str>) -> Result<GlobSet, String> {
    let mut builder = GlobSetBuilder::new();
    for glob in globs {
        let pattern = if glob.contains('/') {
            glob.trim_start_matches('/').to_owned()
        } else {
            format!("**/{glob}")
        };
        let compiled = GlobBuilder::new(&pattern)
            .literal_separator(true)
            .case_insensitive(true)
            .build()
            .map_err(|e| format!("deny glob {glob:?}: {e}"))?;
        builder.add(compiled);
    }
    builder.build().map_err(|e| format!("deny globs: {e}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> Workspace {
        let config = Config::from(vec![
            ("roots".to_owned(), "/w".to_owned()),
            ("deny".to_owned(), "*.lock".to_owned()),
        ]);
        Workspace::from_config(&config, &[".env", "**/*.pem"]).unwrap()
    }

    #[test]
    fn paths_outside_the_root_or_denied_are_refused() {
        let ws = workspace();
        assert_eq!(
            ws.resolve("src/a.rs").unwrap().full,
            PathBuf::from("/w/src/a.rs")
        );
        assert_eq!(ws.resolve("./src//a.rs").unwrap().relative, "src/a.rs");
        for bad in [
            "/etc/passwd",
            "../x",
            "src/../../x",
            ".env",
            "sub/.ENV",
            "k/x.pem",
            "Cargo.lock",
            ".git/config",
        ] {
            assert!(ws.resolve(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_configuration_is_never_written_but_may_be_read() {
        let ws = workspace();
        assert!(ws.resolve(".warden/config.toml").is_ok());
        for bad in [".warden/config.toml", "sub/.WARDEN/x", ".warden"] {
            let err = ws.resolve_for_write(bad).unwrap_err();
            assert!(err.contains("propose the change"), "{bad}: {err}");
        }
        assert!(ws.resolve_for_write(".git/hooks/pre-commit").is_err());
        assert_eq!(
            ws.resolve_for_write("src/a.rs").unwrap().relative,
            "src/a.rs"
        );
    }
}
