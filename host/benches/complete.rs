//! `@` completion on a large tree: building the index (beside `find . -type f` on the same
//! tree), ranking per keystroke, `warden complete` end to end; and chat start-up to the first
//! prompt with 5 plugins and a warm compiled-code cache.
//!
//! `cargo bench -p warden --bench complete -- --warm-up-time 1 --measurement-time 3`
//!
//! With the filter `1m` only the million-file case runs (see [`million`]): its tree is built
//! once under `target/bench-trees/1m/` and reused.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use warden::complete::{BackgroundIndex, Index, rank};
use warden::config::{Config, PluginKind, PluginSpec};
use warden::setup;
use warden::store::Home;

const KEYWORD: &str = env!("WARDEN_KEYWORD_CONTEXT_WASM");
const GUARD: &str = env!("WARDEN_PATTERN_GUARD_WASM");
const COUNTER: &str = env!("WARDEN_EVENT_COUNTER_WASM");
const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

/// 100 top directories × 10 subdirectories × 100 files = 100 000 files; every fourth file is a
/// `.log`, hidden by the root `.gitignore`.
fn generate(root: &Path) {
    std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
    for top in 0..100 {
        for sub in 0..10 {
            let dir = root.join(format!("pkg{top:03}/mod{sub}"));
            std::fs::create_dir_all(&dir).unwrap();
            for file in 0..100 {
                let ext = if file % 4 == 0 { "log" } else { "rs" };
                std::fs::write(dir.join(format!("file_{file:03}.{ext}")), "").unwrap();
            }
        }
    }
}

fn tree() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    std::fs::create_dir_all(&root).unwrap();
    generate(&root);
    let root = std::fs::canonicalize(&root).unwrap();
    (dir, root)
}

fn deny() -> Vec<String> {
    Config::default().fileref.deny
}

fn index_build(c: &mut Criterion, root: &Path) {
    let index = Index::build(root, &deny()).unwrap();
    // 100 000 files less a quarter, plus 1 100 directories and the .gitignore.
    assert_eq!(index.len(), 75_000 + 1_100 + 1);
    let mut group = c.benchmark_group("index 100k files");
    group.sample_size(10);
    group.bench_function("find . -type f", |b| {
        b.iter(|| {
            let out = Command::new("find")
                .args([".", "-type", "f"])
                .current_dir(root)
                .output()
                .unwrap();
            black_box(out.stdout.len())
        })
    });
    group.bench_function("warden index", |b| {
        b.iter(|| black_box(Index::build(root, &deny()).unwrap().len()))
    });
    group.finish();
}

/// Every prefix of a few typed mentions, as a person types them.
fn keystrokes() -> Vec<String> {
    let mut out = Vec::new();
    for typed in [
        "pkg042/mod3/file_077.rs",
        "file77",
        "mod3file",
        "zzz",
        "p4m3f7",
    ] {
        for end in 0..=typed.len() {
            out.push(typed[..end].to_owned());
        }
    }
    out
}

fn ranking(c: &mut Criterion, root: &Path) {
    let index = Index::build(root, &deny()).unwrap();
    let queries = keystrokes();
    // Percentiles over every keystroke, measured directly (criterion reports a mean per batch).
    let mut times: Vec<Duration> = Vec::new();
    for _ in 0..5 {
        for q in &queries {
            let start = Instant::now();
            black_box(rank(&index, q, 12).len());
            times.push(start.elapsed());
        }
    }
    times.sort();
    let pick = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!(
        "per-keystroke ranking over {} keystrokes: median {:?}, p99 {:?}, max {:?}",
        times.len(),
        pick(0.5),
        pick(0.99),
        times[times.len() - 1]
    );
    let mut group = c.benchmark_group("rank 76k paths");
    group.bench_function("one keystroke (file_07)", |b| {
        b.iter(|| black_box(rank(&index, "file_07", 12).len()))
    });
    group.bench_function("one keystroke (fuzzy p4m3f7)", |b| {
        b.iter(|| black_box(rank(&index, "p4m3f7", 12).len()))
    });
    group.finish();
}

fn end_to_end(c: &mut Criterion, root: &Path, home: &Path) {
    let mut group = c.benchmark_group("warden complete");
    group.sample_size(10);
    group.bench_function("process start, index, rank (100k files)", |b| {
        b.iter(|| {
            let out = Command::new(WARDEN)
                .args(["complete", "-C"])
                .arg(root)
                .arg("file_077")
                .env("WARDEN_HOME", home)
                .env("HOME", home)
                .env("WARDEN_MANAGED_CONFIG", home.join("none.toml"))
                .output()
                .unwrap();
            assert!(out.status.success());
            black_box(out.stdout.len())
        })
    });
    group.finish();
}

fn chat_start(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("README.md"), "# readme\n").unwrap();
    let workspace = std::fs::canonicalize(&workspace).unwrap();
    let home = Home::new(dir.path().join("state"));
    let mut config = Config::default();
    for (i, (path, kind)) in [
        (KEYWORD, PluginKind::Interceptor),
        (GUARD, PluginKind::Interceptor),
        (KEYWORD, PluginKind::Interceptor),
        (COUNTER, PluginKind::Hook),
        (COUNTER, PluginKind::Hook),
    ]
    .into_iter()
    .enumerate()
    {
        let config_map = match i {
            1 => [("pattern".to_owned(), "drop table".to_owned())].into(),
            3 | 4 => Default::default(),
            _ => [("word".to_owned(), "explain".to_owned())].into(),
        };
        let spec = PluginSpec {
            name: format!("p{i}"),
            kind,
            path: PathBuf::from(path),
            source: None,
            sha256: None,
            failure: None,
            timeout_ms: None,
            memory_mb: None,
            max_items: None,
            max_output_bytes: None,
            config: config_map,
            fs: None,
            allowed_hosts: None,
            env: None,
            approve: None,
            mode: None,
            matcher: None,
        };
        config.plugins.push(spec.resolve("project"));
    }
    let env = |_: &str| None;
    // Warm the compiled-code cache.
    drop(setup::open(&config, &workspace, None, &home, &env).unwrap());
    let mut group = c.benchmark_group("chat start");
    group.bench_function("5 plugins, warm cache, to first prompt", |b| {
        b.iter(|| {
            let index = BackgroundIndex::spawn(workspace.clone(), config.fileref.deny.clone());
            let worker = setup::open(&config, &workspace, None, &home, &env).unwrap();
            black_box((index, worker.session_id().len()))
        })
    });
    group.finish();
}

fn all(c: &mut Criterion) {
    if std::env::args().skip(1).any(|a| a == "1m") {
        million::run();
        return;
    }
    let (_dir, root) = tree();
    let home = tempfile::tempdir().unwrap();
    index_build(c, &root);
    ranking(c, &root);
    end_to_end(c, &root, home.path());
    chat_start(c);
}

#[path = "complete/million.rs"]
mod million;

criterion_group!(benches, all);
criterion_main!(benches);
