//! Deny globs, matched on normalised root-relative paths.
//!
//! A glob without `/` matches a name at any depth (`.env` denies `sub/.env` too); a glob with
//! `/` is anchored at the root. `*` never crosses `/`; `**` does. Matching ignores case, so a
//! case-insensitive file system cannot be used to slip past a glob. Any path with a `.git`
//! component is denied whatever the globs say (nested repositories and submodules included).

use globset::{GlobBuilder, GlobSet, GlobSetBuilder};

/// A compiled set of deny globs.
#[derive(Debug, Clone)]
pub struct Deny {
    set: GlobSet,
}

impl Deny {
    /// Compile `globs`, or say which one is invalid.
    pub fn new(globs: &[String]) -> Result<Self, String> {
        let mut builder = GlobSetBuilder::new();
        for glob in globs {
            let pattern = if glob.contains('/') {
                glob.trim_start_matches('/').to_owned()
            } else {
                format!("**/{glob}")
            };
            let compiled = GlobBuilder::new(&pattern)
                .literal_separator(true)
                .backslash_escape(true)
                .case_insensitive(true)
                .build()
                .map_err(|e| format!("deny glob {glob:?}: {e}"))?;
            builder.add(compiled);
        }
        let set = builder.build().map_err(|e| format!("deny globs: {e}"))?;
        Ok(Self { set })
    }

    /// Whether the file at root-relative `path` (components joined by `/`) is denied.
    pub fn file(&self, path: &str) -> bool {
        has_git_component(path) || self.set.is_match(path)
    }

    /// Whether the directory at root-relative `path` is denied: it matches a glob itself, or a
    /// glob matches everything inside it (`.git/**` denies `.git`).
    pub fn dir(&self, path: &str) -> bool {
        if path.is_empty() {
            return false;
        }
        // NUL can never occur in a real name, so matching it stands for "any entry inside".
        self.file(path) || self.set.is_match(format!("{path}/\u{0}"))
    }
}

fn has_git_component(path: &str) -> bool {
    path.split('/').any(|c| c.eq_ignore_ascii_case(".git"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn anchored_and_dir_globs() {
        let d = Deny::new(&["secrets/**".to_owned(), "/top.txt".to_owned()]);
        let Ok(d) = d else { panic!("globs compile") };
        assert!(d.dir("secrets"));
        assert!(d.file("secrets/a/b"));
        assert!(!d.file("x/secrets/a"));
        assert!(d.file("top.txt"));
        assert!(!d.file("sub/top.txt"));
    }

    #[test]
    fn invalid_glob_is_named() {
        let err = Deny::new(&["a[".to_owned()]).err().unwrap_or_default();
        assert!(err.contains("a["), "{err}");
    }
}
