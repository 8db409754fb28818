//! The diff each change of a turn is shown with ([`warden::domain::diff`]), beside the synced
//! write that made the change: one line edited in a 2.2 KB file and in a 10,000-line file
//! (488 KB), and a write + `sync_all` of the 2.2 KB file, side by side in one run.
//!
//! `cargo bench --profile dev -p warden --bench diff -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use criterion::{Criterion, criterion_group, criterion_main};
use warden::domain::diff::{render, unified};

fn text(lines: usize) -> String {
    (0..lines)
        .map(|n| format!("    let value_{n} = compute({n}, \"some text\");\n"))
        .collect()
}

fn diffs(c: &mut Criterion) {
    let small = text(50);
    let small_edited = small.replace("value_25 ", "renamed_25 ");
    let large = text(10_000);
    let large_edited = large.replace("value_5000 ", "renamed_5000 ");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("f.rs");
    let mut group = c.benchmark_group("diff beside the write");
    group.bench_function("diff: one line of a 2.2 KB file", |b| {
        b.iter(|| render(&unified(&small, &small_edited)));
    });
    group.bench_function("diff: one line of a 10,000-line file", |b| {
        b.iter(|| render(&unified(&large, &large_edited)));
    });
    group.bench_function("write + sync_all of the 2.2 KB file", |b| {
        b.iter(|| {
            let mut f = std::fs::File::create(&path).unwrap();
            std::io::Write::write_all(&mut f, small_edited.as_bytes()).unwrap();
            f.sync_all().unwrap();
        });
    });
    group.finish();
}

criterion_group!(benches, diffs);
criterion_main!(benches);
