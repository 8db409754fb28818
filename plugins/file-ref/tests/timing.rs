//! Rough native timings of the resolver's logic (run with `--ignored --nocapture`).

#![allow(clippy::unwrap_used, clippy::print_stderr)]

use std::time::Instant;

use file_ref::{Settings, Workspace};
use warden_plugin::Config;

#[test]
#[ignore = "timing only"]
fn listing_10k() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir(root.join("d")).unwrap();
    for i in 0..10_000 {
        std::fs::write(root.join("d").join(format!("file{i:05}.txt")), b"x").unwrap();
    }
    let config = Config::from(vec![("roots".to_owned(), root.display().to_string())]);
    let ws = Workspace::new(Settings::from_config(&config).unwrap()).unwrap();
    for _ in 0..3 {
        let t = Instant::now();
        let r = ws.resolve("d", None, 16384).unwrap();
        eprintln!("listing 10k: {:?} ({} entries)", t.elapsed(), r.total_bytes);
    }
}
