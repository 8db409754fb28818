//! The workspace scans around one `shell` call over a 1 000-file workspace (1 KiB each, in
//! 20 directories): the scan before (listing rules, every file opened without following
//! symlinks, checked on its real path, hashed and its bytes kept in the content-addressed
//! checkpoint store; after the first call the blobs already exist) and the scan after plus the
//! diff. Setup is not timed.
//!
//! `cargo bench --profile dev -p warden --bench shell_scan -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use warden::config::FileRefConfig;
use warden::store::{Checkpoints, MAX_FILE_BYTES};
use warden::tools::{Bounds, SCAN_MAX_BYTES, SCAN_MAX_FILES, Workspace, diff, scan};

const FILES: usize = 1_000;

const BOUNDS: Bounds = Bounds {
    files: SCAN_MAX_FILES,
    bytes: SCAN_MAX_BYTES,
    file_bytes: MAX_FILE_BYTES,
};

fn shell_scan(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let ws_dir = tmp.path().join("ws");
    for i in 0..FILES {
        let dir = ws_dir.join(format!("d{:02}", i % 20));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(format!("f{i:04}.txt")),
            format!("line {i}\n").repeat(100),
        )
        .unwrap();
    }
    let ws = Workspace::open(&[ws_dir], &FileRefConfig::default()).unwrap();
    let mut store = Checkpoints::new(&tmp.path().join("session"));
    let mut group = c.benchmark_group("shell scan");
    group.sample_size(20);
    group.bench_function("before, 1000 files (blobs kept)", |b| {
        b.iter(|| {
            let s = scan(&ws, BOUNDS, &mut |bytes| store.save(bytes).unwrap().1);
            assert!(s.files.len() == FILES && !s.partial);
        });
    });
    let before = scan(&ws, BOUNDS, &mut |_| true);
    group.bench_function("after + diff, 1000 files", |b| {
        b.iter(|| {
            let after = scan(&ws, BOUNDS, &mut |_| true);
            assert!(diff(&before, &after).is_empty());
        });
    });
    group.finish();
}

criterion_group!(benches, shell_scan);
criterion_main!(benches);
