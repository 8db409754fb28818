//! The cost of the audit chain on one append: `AuditLog::append` (exclusive lock on the file,
//! its length read, the record serialized with `seq` and `prev`, SHA-256 over anchor and line,
//! one write) beside the same record serialized without the chain fields and written to an
//! append-mode file (what an append did before the chain). No fsync in either: the fsync a
//! real append pays is the same with or without the chain and dwarfs both.
//!
//! `cargo bench --profile dev -p warden --bench audit_chain -- --warm-up-time 1 --measurement-time 3`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::fs::OpenOptions;
use std::hint::black_box;
use std::io::Write;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Serialize;
use warden::store::{AuditEvent, AuditLog, Home, SessionWriter};

/// A `tool_call` record of the usual size (about 400 bytes as a line).
fn event() -> AuditEvent {
    serde_json::from_value(serde_json::json!({
        "type": "tool_call",
        "tool": "write_file",
        "call_id": "call_0123456789abcdef",
        "grants": {"fs": "none", "allowed_hosts": [], "env": []},
        "decision": "allowed",
        "by": "mode",
        "mode": "auto-edit",
        "bytes_in": 812,
        "bytes_out": 64,
        "is_error": false
    }))
    .unwrap()
}

#[derive(Serialize)]
struct Plain<'a> {
    ts: &'a str,
    event: &'a AuditEvent,
}

fn bench(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path().join("state"));
    let writer = SessionWriter::create(&home, None, Path::new("/ws")).unwrap();
    let id = writer.id().to_owned();
    let event = event();
    let mut group = c.benchmark_group("audit_append");

    let mut log = AuditLog::open(&home, &id).unwrap();
    log.set_fsync_for_benchmarks(false);
    group.bench_function("chained (lock, length, hash, write)", |b| {
        b.iter(|| log.append(black_box(&event)).unwrap());
    });

    let plain_path = dir.path().join("plain.jsonl");
    let mut plain = OpenOptions::new()
        .append(true)
        .create(true)
        .open(&plain_path)
        .unwrap();
    group.bench_function("plain line (serialize, write)", |b| {
        b.iter(|| {
            let ts = humantime::format_rfc3339_millis(std::time::SystemTime::now()).to_string();
            let mut buf = serde_json::to_vec(&Plain {
                ts: &ts,
                event: black_box(&event),
            })
            .unwrap();
            buf.push(b'\n');
            plain.write_all(&buf).unwrap();
        });
    });
    group.finish();
    drop(writer);
}

criterion_group!(benches, bench);
criterion_main!(benches);
