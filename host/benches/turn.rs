//! Host-side cost of one turn with the echo provider: 3 file refs through the sandboxed
//! resolver, 5 interceptors, 3 hooks, history and audit writes without fsync.
//!
//! `cargo bench -p warden --bench turn`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use warden::config::{Config, FailurePolicy};
use warden::domain::{CollectingSink, Hook};
use warden::fileref;
use warden::llm::echo::EchoProvider;
use warden::plugin::{HookPlugin, InterceptorPlugin, Limits};
use warden::setup;
use warden::store::{AuditLog, Home, SessionWriter};
use warden::worker::{ChainEntry, Hooks, ToolRegistry, Worker, WorkerParts};

const KEYWORD: &str = env!("WARDEN_KEYWORD_CONTEXT_WASM");
const GUARD: &str = env!("WARDEN_PATTERN_GUARD_WASM");
const COUNTER: &str = env!("WARDEN_EVENT_COUNTER_WASM");

/// Turns per session before a fresh one starts, so the history stays small and comparable.
const TURNS_PER_SESSION: u64 = 20;

fn session(home: &Home, workspace: &Path) -> (SessionWriter, AuditLog) {
    let mut writer = SessionWriter::create(home, None, workspace).unwrap();
    writer.set_fsync_for_benchmarks(false);
    let mut audit = AuditLog::open(home, writer.id()).unwrap();
    audit.set_fsync_for_benchmarks(false);
    (writer, audit)
}

fn turn(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    std::fs::write(
        workspace.join("src/main.rs"),
        "fn main() {\n    println!(\"hi\");\n}\n".repeat(40),
    )
    .unwrap();
    std::fs::write(
        workspace.join("README.md"),
        "# Project\n\nSome words.\n".repeat(100),
    )
    .unwrap();
    std::fs::write(workspace.join("notes.txt"), "a note\n".repeat(200)).unwrap();
    let workspace = std::fs::canonicalize(&workspace).unwrap();
    let home = Home::new(dir.path().join("state"));

    let mut config = Config::default();
    config.fileref.dedup = false;
    let engine = setup::engine(None).unwrap();
    let resolver = setup::resolver(&engine, &config, &workspace).unwrap();
    let mut chain = Vec::new();
    for i in 0..5 {
        let (path, cfg) = if i % 2 == 0 {
            (
                KEYWORD,
                vec![
                    ("word".to_owned(), "explain".to_owned()),
                    ("context".to_owned(), format!("context {i}")),
                ],
            )
        } else {
            (GUARD, vec![("pattern".to_owned(), "drop table".to_owned())])
        };
        let plugin = InterceptorPlugin::load(
            &engine,
            &format!("i{i}"),
            Path::new(path),
            None,
            Limits::default(),
            cfg,
        )
        .unwrap();
        chain.push(ChainEntry {
            plugin: Box::new(plugin),
            failure: FailurePolicy::Closed,
            shadow: None,
            matcher: None,
        });
    }
    let hooks: Vec<Box<dyn Hook>> = (0..3)
        .map(|i| {
            Box::new(
                HookPlugin::load(
                    &engine,
                    &format!("h{i}"),
                    Path::new(COUNTER),
                    None,
                    Limits::default(),
                    vec![],
                )
                .unwrap(),
            ) as Box<dyn Hook>
        })
        .collect();
    let (writer, audit) = session(&home, &workspace);
    let mut worker = Worker::new(WorkerParts {
        writer,
        audit,
        provider: Box::new(EchoProvider::new()),
        resolver: Box::new(resolver),
        chain,
        hooks: Hooks::new(hooks),
        tools: ToolRegistry::with(fileref::tools::file_tools(&config.fileref)).unwrap(),
        config,
    });
    let prompt = "explain @src/main.rs, @README.md and @notes.txt please";

    c.bench_function(
        "turn: echo, 3 refs, 5 interceptors, 3 hooks, no fsync",
        |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for i in 0..iters {
                    if i % TURNS_PER_SESSION == 0 {
                        let (writer, audit) = session(&home, &workspace);
                        worker.switch_session(writer, audit);
                    }
                    let mut sink = CollectingSink::default();
                    let start = Instant::now();
                    black_box(worker.submit(prompt, &mut sink).unwrap());
                    total += start.elapsed();
                }
                total
            })
        },
    );
}

criterion_group!(benches, turn);
criterion_main!(benches);
