//! Snapshot files: a JSON value is pretty-printed with its object keys sorted (whatever order
//! it was written in) and compared, as text, with `tests/snapshots/<name>.json`. With `UPDATE_SNAPSHOTS=1` in the environment the file is
//! (re)written instead; review the diff before committing it.

use std::path::PathBuf;

/// The snapshot file for `name`.
pub fn path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("snapshots")
        .join(format!("{name}.json"))
}

/// Asserts that `actual` pretty-prints exactly as the snapshot `name` (or writes it).
#[track_caller]
pub fn assert_json_snapshot(name: &str, actual: &serde_json::Value) {
    let file = path(name);
    let mut text = serde_json::to_string_pretty(&warden::domain::canonical_json::sorted(actual))
        .unwrap_or_default();
    text.push('\n');
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        if let Some(dir) = file.parent() {
            let _ = std::fs::create_dir_all(dir);
        }
        if let Err(e) = std::fs::write(&file, &text) {
            panic!("cannot write snapshot {}: {e}", file.display());
        }
        return;
    }
    match std::fs::read_to_string(&file) {
        Ok(expected) => pretty_assertions::assert_eq!(expected, text, "snapshot {name}"),
        Err(e) => panic!(
            "snapshot {} is missing ({e}); run with UPDATE_SNAPSHOTS=1 to create it",
            file.display()
        ),
    }
}
