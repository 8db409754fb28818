//! Workspace files as MCP resources: `resources/list` is the resolver's listing of the
//! workspace (gitignore-aware, deny globs applied, at most [`MAX_RESOURCES`] entries), and
//! `resources/read` resolves the file as an `@path` reference would — the same deny globs,
//! per-file cap and scope (`.env` and anything outside the workspace are refused). A resource's
//! URI is `file://` and the file's absolute path, percent-encoded.

use std::path::Path;

use crate::config::FileRefConfig;
use crate::domain::{EntryKind, Resolve, ResolveRequest, Resolved};

/// At most this many files are listed.
pub(crate) const MAX_RESOURCES: u32 = 500;

/// One workspace file offered as a resource.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ListedFile {
    /// Relative to the workspace root, `/`-separated.
    pub(crate) path: String,
}

/// The files of the workspace listing (directories left out), at most [`MAX_RESOURCES`]
/// entries examined; a listing that fails is logged and lists nothing.
pub(crate) fn list(resolver: &mut dyn Resolve) -> Vec<ListedFile> {
    match resolver.list_files(".", MAX_RESOURCES) {
        Ok(listing) => listing
            .entries
            .into_iter()
            .filter(|entry| !entry.ends_with('/'))
            .map(|path| ListedFile { path })
            .collect(),
        Err(err) => {
            tracing::warn!("resources: the workspace listing failed: {err}");
            Vec::new()
        }
    }
}

/// The file at `path` (relative to the root), resolved under `config`'s per-file cap.
pub(crate) fn read(
    resolver: &mut dyn Resolve,
    config: &FileRefConfig,
    path: &str,
) -> Result<Resolved, String> {
    resolver.new_turn();
    let resolved = resolver
        .resolve(&ResolveRequest {
            path: path.to_owned(),
            range: None,
            max_bytes: config.max_bytes,
        })
        .map_err(|err| err.to_string())?;
    if resolved.kind == EntryKind::Directory {
        return Err(format!("{path}: a directory, not a file resource"));
    }
    Ok(resolved)
}

/// The `file://` URI of `rel` under `root`.
pub(crate) fn uri(root: &Path, rel: &str) -> String {
    crate::domain::file_uri::uri(&format!("{}/{rel}", root.display()))
}

/// The path relative to `root` that `uri` names: a `file://` URI of a path under the root
/// (`Err` says why not).
pub(crate) fn path_of(root: &Path, uri: &str) -> Result<String, String> {
    let rest = uri
        .strip_prefix("file://")
        .ok_or_else(|| format!("{uri}: not a file:// URI of this workspace"))?;
    let decoded = crate::domain::file_uri::decoded(rest)
        .ok_or_else(|| format!("{uri}: bad percent-encoding"))?;
    let root = format!("{}/", root.display());
    decoded
        .strip_prefix(&root)
        .filter(|rel| !rel.is_empty())
        .map(str::to_owned)
        .ok_or_else(|| format!("{uri}: out of scope: not under the workspace {root}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uris_round_trip_and_stay_under_the_root() {
        let root = Path::new("/w/my ws");
        let uri = uri(root, "src/a b%.rs");
        assert_eq!(uri, "file:///w/my%20ws/src/a%20b%25.rs");
        assert_eq!(path_of(root, &uri), Ok("src/a b%.rs".to_owned()));
        assert!(path_of(root, "file:///w/other/x").is_err());
        assert!(path_of(root, "file:///w/my%20wsx/x").is_err());
        assert!(path_of(root, "https://example.com/x").is_err());
        assert!(path_of(root, "file:///w/my%2").is_err());
    }
}
