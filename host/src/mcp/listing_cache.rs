//! The tools and resources each MCP server listed when it last started, kept so that a later
//! session offers them to the model without starting the server: it starts at the first call
//! of one of its tools (or read of a resource). Kept in the state root at
//! `mcp/listings/<digest>.json`, the digest that of the server's whole entry (command, URL,
//! grants, layer …): a changed entry is started, and listed, again.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::server::{ListedResource, ListedTool};
use crate::config::McpEntry;

/// A listing as kept.
#[derive(Serialize, Deserialize)]
struct Kept {
    tools: Vec<ListedTool>,
    resources: Vec<ListedResource>,
}

/// The state root under warden's environment `vars` (`$WARDEN_HOME`, default
/// `~/.local/state/warden`).
fn state_root(vars: &[(String, String)]) -> Option<PathBuf> {
    let get = |key: &str| {
        vars.iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone())
            .filter(|v| !v.is_empty())
    };
    get("WARDEN_HOME")
        .map(PathBuf::from)
        .or_else(|| get("HOME").map(|h| Path::new(&h).join(".local/state/warden")))
}

/// Where the listing of `entry` is kept; `None` without a state root.
pub(super) fn path_for(vars: &[(String, String)], entry: &McpEntry) -> Option<PathBuf> {
    let bytes = serde_json::to_vec(entry).ok()?;
    let digest: String = Sha256::digest(&bytes)[..16]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Some(
        state_root(vars)?
            .join("mcp")
            .join("listings")
            .join(format!("{digest}.json")),
    )
}

/// The listing kept at `path`, if one is (an unreadable one counts as none).
pub(super) fn load(path: &Path) -> Option<(Vec<ListedTool>, Vec<ListedResource>)> {
    let bytes = std::fs::read(path).ok()?;
    let kept: Kept = serde_json::from_slice(&bytes).ok()?;
    Some((kept.tools, kept.resources))
}

/// Keep `listing` at `path`; a failure only costs the next session a start (logged).
pub(super) fn store(path: &Path, listing: &(Vec<ListedTool>, Vec<ListedResource>)) {
    let kept = Kept {
        tools: listing.0.clone(),
        resources: listing.1.clone(),
    };
    let written = serde_json::to_vec(&kept)
        .map_err(|e| e.to_string())
        .and_then(|bytes| {
            let dir = path.parent().ok_or("no directory")?;
            std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
            // Whole or not at all: a reader never sees half a listing.
            let temp = dir.join(format!(".tmp-{}", uuid::Uuid::now_v7().simple()));
            std::fs::write(&temp, &bytes)
                .and_then(|()| std::fs::rename(&temp, path))
                .map_err(|e| {
                    let _ = std::fs::remove_file(&temp);
                    e.to_string()
                })
        });
    if let Err(err) = written {
        tracing::warn!("keeping the MCP listing at {}: {err}", path.display());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listing_comes_back_as_kept_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp/listings/x.json");
        assert!(load(&path).is_none());
        let listing = (
            vec![ListedTool {
                name: "echo".into(),
                description: "d".into(),
                input_schema: serde_json::json!({"type": "object"}),
            }],
            vec![ListedResource {
                uri: "note://x".into(),
                name: "x".into(),
            }],
        );
        store(&path, &listing);
        assert_eq!(load(&path), Some(listing));
        std::fs::write(&path, "not json").unwrap();
        assert!(load(&path).is_none());
    }
}
