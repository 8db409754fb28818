//! Long-lived sessions: request size before and after compacting a 1 000-turn synthetic
//! session, the host-side time to compact it (echo provider, built-in sandboxed resolver, no
//! fsync), and the time to load a compacted 100 000-item session.
//!
//! `cargo bench -p warden --bench sessions -- --warm-up-time 1 --measurement-time 3`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use warden::config::Config;
use warden::domain::{CollectingSink, Entry, EntryKind, FileShown, Item, Source};
use warden::fileref;
use warden::llm::echo::EchoProvider;
use warden::setup;
use warden::store::{self, AuditLog, Home, SessionWriter};
use warden::worker::{Hooks, ToolRegistry, Worker, WorkerParts};

const FILES: usize = 10;

fn file_body(i: usize) -> String {
    format!(
        "// file {i}\n{}",
        "let value = compute(input);\n".repeat(36)
    )
}

/// A session of `turns` turns: a prompt naming one of the workspace's files, the file's item
/// (with its metadata), and an answer of ~300 bytes, each turn one commit group.
fn synthetic(home: &Home, workspace: &Path, turns: usize) -> (SessionWriter, AuditLog) {
    let mut writer = SessionWriter::create(home, None, workspace).unwrap();
    writer.set_fsync_for_benchmarks(false);
    let mut audit = AuditLog::open(home, writer.id()).unwrap();
    audit.set_fsync_for_benchmarks(false);
    for t in 0..turns {
        let f = t % FILES;
        let path = format!("src/f{f}.rs");
        let body = file_body(f);
        let shown = FileShown {
            path: path.clone(),
            kind: EntryKind::File,
            range: None,
            sha256: fileref::dedup::digest_hex(&body),
            bytes: body.len() as u64,
            truncated: false,
        };
        writer
            .commit_entries(&[
                Entry::new(
                    Source::User,
                    Item::user(format!("turn {t}: look at @{path}")),
                ),
                Entry::new(
                    Source::FileRef,
                    Item::system(format!("[File: {path}]\n{body}")),
                )
                .showing(vec![shown]),
                Entry::new(
                    Source::Provider,
                    Item::assistant(format!(
                        "Answer {t}: {}",
                        "the code looks fine. ".repeat(14)
                    )),
                ),
            ])
            .unwrap();
    }
    (writer, audit)
}

fn request_size(records: &[store::Record]) -> (usize, u64) {
    let sent = store::as_sent(records);
    (
        sent.len(),
        sent.iter().map(|r| r.item.byte_len() as u64).sum(),
    )
}

fn sessions(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    for f in 0..FILES {
        std::fs::write(workspace.join(format!("src/f{f}.rs")), file_body(f)).unwrap();
    }
    let workspace = std::fs::canonicalize(&workspace).unwrap();
    let home = Home::new(dir.path().join("state"));
    let config = Config::default();
    let engine = setup::engine(None).unwrap();
    let resolver = setup::resolver(&engine, &config, &workspace).unwrap();
    let (writer, audit) = synthetic(&home, &workspace, 1);
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider: Box::new(EchoProvider::new()),
        resolver: Box::new(resolver),
        chain: Vec::new(),
        hooks: Hooks::new(Vec::new()),
        tools: ToolRegistry::with(fileref::tools::file_tools(&config.fileref)).unwrap(),
        config,
    });

    // Request size before and after compaction of a 1 000-turn session (not timed).
    let (writer, audit) = synthetic(&home, &workspace, 1000);
    let id = writer.id().to_owned();
    worker.switch_session(writer, audit);
    let before = request_size(&store::load(&home, &id).unwrap().records);
    worker.compact(&mut CollectingSink::default()).unwrap();
    let after = request_size(&store::load(&home, &id).unwrap().records);
    eprintln!(
        "request of a 1000-turn session: before compaction {} items, {} bytes; after {} items, {} bytes",
        before.0, before.1, after.0, after.1
    );

    c.bench_function(
        "compact a 1000-turn session (echo, 10 files re-read)",
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    let (writer, audit) = synthetic(&home, &workspace, 1000);
                    worker.switch_session(writer, audit);
                    let start = Instant::now();
                    black_box(worker.compact(&mut CollectingSink::default()).unwrap());
                    total += start.elapsed();
                }
                total
            })
        },
    );

    // A compacted 100 000-item session: 33 333 turns, then one compaction.
    let (writer, audit) = synthetic(&home, &workspace, 33_333);
    let big = writer.id().to_owned();
    worker.switch_session(writer, audit);
    worker.compact(&mut CollectingSink::default()).unwrap();
    let (writer, audit) = synthetic(&home, &workspace, 1);
    worker.switch_session(writer, audit);
    let items = store::load(&home, &big).unwrap().records.len();
    eprintln!("compacted session: {items} items");

    let mut group = c.benchmark_group("load a compacted 100000-item session");
    group.sample_size(10);
    group.bench_function("store::load (read-only)", |b| {
        b.iter(|| black_box(store::load(&home, &big).unwrap().records.len()))
    });
    group.bench_function("SessionWriter::open (resume)", |b| {
        b.iter(|| black_box(SessionWriter::open(&home, &big).unwrap().records().len()))
    });
    group.finish();
}

criterion_group!(benches, sessions);
criterion_main!(benches);
