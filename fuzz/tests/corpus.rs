//! Every corpus input and every crash ever found, through its target: the regression tests of
//! the fuzz targets (and what CI runs of them besides a short campaign).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::PathBuf;

use warden_fuzz::TARGETS;

#[test]
fn corpus_and_past_crashes_pass_every_target() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut ran = 0;
    for (name, target) in TARGETS {
        for dir in ["corpus", "crashes"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                let input = std::fs::read(&path).unwrap();
                let result = std::panic::catch_unwind(|| target(&input));
                assert!(result.is_ok(), "{name}: {} fails", path.display());
                ran += 1;
            }
        }
    }
    assert!(ran >= 20, "only {ran} inputs");
}

#[test]
fn every_target_has_a_corpus() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for (name, _) in TARGETS {
        let n = std::fs::read_dir(root.join("corpus").join(name)).map_or(0, Iterator::count);
        assert!(n > 0, "{name} has no corpus");
    }
}
