//! `warden undo` of one turn that changed 100 files (50 created, 50 overwritten, 1 KiB each):
//! [`warden::worker::undo::undo`] as the command runs it — manifest read, every file's current
//! sha checked, the saved bytes read and checked, each file restored (synced write and rename)
//! or removed through the write rules. Setup (the workspace and the checkpoints) is not timed.
//!
//! `cargo bench --profile dev -p warden --bench undo -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::path::Path;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use warden::config::FileRefConfig;
use warden::store::{Change, Checkpoints, sha256_hex};
use warden::worker::undo::undo;

const FILES: usize = 100;

/// A workspace after the turn, and the session directory with its checkpoints.
fn setup() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    let ws = tmp.path().join("ws");
    let session = tmp.path().join("session");
    std::fs::create_dir_all(ws.join("src")).unwrap();
    std::fs::create_dir_all(&session).unwrap();
    let mut cp = Checkpoints::new(&session);
    for i in 0..FILES {
        let rel = format!("src/f{i:03}.txt");
        let after = format!("new {i}\n").repeat(128);
        let before = if i % 2 == 0 {
            let old = format!("old {i}\n").repeat(128);
            Some(cp.save(old.as_bytes()).unwrap().0)
        } else {
            None
        };
        std::fs::write(ws.join(&rel), &after).unwrap();
        cp.record(&Change {
            turn: 1,
            path: rel,
            path_hex: None,
            before,
            after: Some(sha256_hex(after.as_bytes())),
            saved: true,
            command: None,
            partial: false,
            mode: None,
            mode_after: None,
            dir: false,
        })
        .unwrap();
    }
    tmp
}

fn undo_turn(c: &mut Criterion) {
    let config = FileRefConfig::default();
    let mut group = c.benchmark_group("undo");
    group.sample_size(20);
    group.bench_function("100-file turn", |b| {
        b.iter_batched(
            setup,
            |tmp| {
                let root: &Path = tmp.path();
                let report =
                    undo(&root.join("session"), &root.join("ws"), &config, 1, false).unwrap();
                assert!(report.complete() && report.lines.len() == FILES);
                tmp
            },
            BatchSize::PerIteration,
        );
    });
    group.finish();
}

criterion_group!(benches, undo_turn);
criterion_main!(benches);
