//! A line range reads only what it shows: what lies after the range (here a sparse hole of NUL
//! bytes) does not make the range `binary`.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use file_ref::{Settings, Workspace};
use warden_plugin::{Config, LineRange, ResolveError};

fn workspace(root: &std::path::Path) -> Workspace {
    let config = Config::from(vec![("roots".to_owned(), root.display().to_string())]);
    Workspace::new(Settings::from_config(&config).unwrap()).unwrap()
}

#[test]
fn a_range_before_a_sparse_hole_is_text() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let path = root.join("holey.txt");
    std::fs::write(&path, "one\ntwo\nthree\nfour\nfive\n").unwrap();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&path)
        .unwrap()
        .set_len(8 << 20)
        .unwrap();
    let ws = workspace(&root);
    let range = Some(LineRange { start: 3, end: 4 });
    let resolved = ws.resolve("holey.txt", range, 16384).unwrap();
    assert_eq!(resolved.content, "three\nfour\n");
    // A range that reaches into the hole shows NUL bytes: that is binary.
    let range = Some(LineRange { start: 5, end: 6 });
    assert!(matches!(
        ws.resolve("holey.txt", range, 16384),
        Err(ResolveError::Binary(_))
    ));
}
