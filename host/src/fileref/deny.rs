//! Deny globs as the host matches them: the same rules as the built-in resolver's
//! (docs/fileref.md). A glob without `/` matches a name at any depth; a glob with `/` is
//! anchored at the workspace root; `*` never crosses `/`, `**` does; matching ignores case; any
//! path with a `.git` component is denied.

use std::path::{Component, Path, PathBuf};

// The built-in resolver's own matching rules (crate `warden-rules`, which the component
// depends on too), so that the host and the component can never disagree.
use warden_rules::deny::Deny;

/// A compiled set of deny globs and the workspace roots paths are relative to.
#[derive(Debug, Clone)]
pub struct DenyGlobs {
    rules: Deny,
    roots: Vec<PathBuf>,
}

impl DenyGlobs {
    /// Compile `globs` for paths under `roots`, or say which glob is invalid.
    pub fn new(globs: &[String], roots: &[PathBuf]) -> Result<Self, String> {
        Ok(Self {
            rules: Deny::new(globs)?,
            roots: roots.to_vec(),
        })
    }

    /// Whether `path` as a resolver reports it (relative to the primary root, or absolute
    /// inside a root; `.` for the root) is denied, as a file or as a directory. A path that
    /// climbs out lexically is left to the resolver's scope check.
    pub fn denies(&self, path: &str) -> bool {
        match self.relative(path) {
            Some(rel) => self.rules.dir(&rel),
            None => false,
        }
    }

    /// `path` lexically normalised relative to the root it lies in.
    fn relative(&self, path: &str) -> Option<String> {
        let path = Path::new(path);
        let rest: &Path = if path.is_absolute() {
            let root = self
                .roots
                .iter()
                .filter(|root| path.starts_with(root))
                .max_by_key(|root| root.components().count())?;
            path.strip_prefix(root).ok()?
        } else {
            path
        };
        let mut out: Vec<String> = Vec::new();
        for component in rest.components() {
            match component {
                Component::Normal(name) => out.push(name.to_string_lossy().into_owned()),
                Component::ParentDir => {
                    out.pop()?;
                }
                _ => {}
            }
        }
        Some(out.join("/"))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::config::DEFAULT_DENY;

    #[test]
    fn matches_like_the_resolver() {
        let mut globs: Vec<String> = DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect();
        globs.push("corp/**".into());
        let deny = DenyGlobs::new(&globs, &[PathBuf::from("/ws")]).unwrap();
        for denied in [
            ".env",
            "sub/.ENV",
            ".env.local",
            ".git",
            "vendor/.git/config",
            "a/server.pem",
            "corp",
            "corp/plan.txt",
            "/ws/corp/plan.txt",
            "x/../.env",
            "./.env",
        ] {
            assert!(deny.denies(denied), "{denied}");
        }
        for allowed in [
            ".",
            "src/main.rs",
            ".envrc",
            "x/corp/a",
            "/other/.envrc",
            "../.env",
        ] {
            assert!(!deny.denies(allowed), "{allowed}");
        }
    }
}
