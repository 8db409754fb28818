//! A session whose audit log holds many records, for timing `warden audit verify` on it
//! (`bench/audit-verify/run.sh` runs the binary under `/usr/bin/time`): `RECORDS` `tool_call`
//! records (about 400 bytes each as a line) appended in batches of 10, with a history commit
//! group after every 100 records, so that the history records a chain head per group, as a run
//! does.
//!
//! With `WARDEN_BENCH_AUDIT_HOME=DIR` it writes the session under `DIR` and prints its id;
//! without, it writes one in a temporary directory and times the in-process walk
//! (`store::walk_audit`, what `verify` runs) a few times.
//!
//! `cargo bench --profile dev -p warden --bench audit_verify`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    clippy::print_stderr,
    missing_docs
)]

use std::path::Path;
use std::time::Instant;

use warden::domain::{Item, Source};
use warden::store::{AuditEvent, AuditLog, Home, SessionWriter, walk_audit};

/// A `tool_call` record of the usual size.
fn event(i: usize) -> AuditEvent {
    serde_json::from_value(serde_json::json!({
        "type": "tool_call",
        "tool": "write_file",
        "call_id": format!("call_{i:016}"),
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

/// Writes a session of `records` audit records under `home`; its id.
fn write_session(home: &Home, records: usize) -> String {
    let mut writer = SessionWriter::create(home, None, Path::new("/ws")).unwrap();
    writer.set_fsync_for_benchmarks(false);
    let id = writer.id().to_owned();
    let mut log = AuditLog::open(home, &id).unwrap();
    log.set_fsync_for_benchmarks(false);
    let mut batch = Vec::with_capacity(10);
    for i in 0..records {
        batch.push(event(i));
        if batch.len() == 10 || i + 1 == records {
            log.append_batch(std::mem::take(&mut batch)).unwrap();
        }
        if (i + 1) % 100 == 0 || i + 1 == records {
            writer
                .commit(&[(Source::User, Item::user(format!("turn {i}")))])
                .unwrap();
        }
    }
    id
}

fn main() {
    let records: usize = std::env::var("WARDEN_BENCH_AUDIT_RECORDS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(100_000);
    if let Some(dir) = std::env::var_os("WARDEN_BENCH_AUDIT_HOME") {
        let home = Home::new(dir);
        println!("{}", write_session(&home, records));
        return;
    }
    // `cargo bench` passes `--bench`; nothing else is read.
    let dir = tempfile::tempdir().unwrap();
    let home = Home::new(dir.path().join("state"));
    let id = write_session(&home, records);
    let mut times = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        let report = walk_audit(&home, &id, &[], None, |_, _| {}).unwrap();
        times.push(start.elapsed());
        assert_eq!(report.status(), "intact", "{report:?}");
        assert_eq!(report.records, records as u64);
    }
    times.sort();
    println!(
        "audit_verify/walk {records} records: median {:?} (min {:?}, max {:?})",
        times[2], times[0], times[4]
    );
}
