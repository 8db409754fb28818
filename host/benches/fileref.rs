//! FileRef benchmarks: one 16 KB file through the sandboxed resolver component next to a
//! native read of the same file, a prompt of 100 refs, a directory ref over 10 000 files, and
//! parser throughput. Figures and machine are in docs/benchmarks.md (`## FileRef`).

#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use std::hint::black_box;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use warden::config::FileRefConfig;
use warden::domain::ResolveRequest;
use warden::fileref::{self, ShownFiles};
use warden::plugin::load_resolver;
use warden::plugin::{EngineOptions, PluginEngine, ResolverPlugin};

const KB16: usize = 16 * 1024;

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let line = "let value = compute(input, 42); // a line of ordinary source text\n";
    let body: String = line.repeat(KB16 / line.len() + 1)[..KB16].to_owned();
    std::fs::write(root.join("16k.rs"), &body).unwrap();
    std::fs::create_dir(root.join("many")).unwrap();
    for i in 0..100 {
        std::fs::write(root.join("many").join(format!("f{i:03}.rs")), &body[..512]).unwrap();
    }
    std::fs::create_dir(root.join("dir10k")).unwrap();
    for i in 0..10_000 {
        std::fs::write(root.join("dir10k").join(format!("file{i:05}.txt")), b"x").unwrap();
    }
    (dir, root)
}

fn resolver(engine: &PluginEngine, root: &Path) -> ResolverPlugin {
    load_resolver(engine, &[root.to_path_buf()], &FileRefConfig::default()).unwrap()
}

/// What the component does for a plain ref, natively: read at most the cap plus a margin,
/// check for NUL and UTF-8, cut at a character boundary.
fn native_read(path: &Path, cap: usize) -> String {
    let mut bytes = Vec::with_capacity(cap + 4);
    std::fs::File::open(path)
        .unwrap()
        .take(cap as u64 + 4)
        .read_to_end(&mut bytes)
        .unwrap();
    assert!(!bytes.contains(&0));
    let text = std::str::from_utf8(&bytes).unwrap();
    let mut end = text.len().min(cap);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

/// The same through cap-std: a sandboxed `open` relative to a directory handle, as the WASI
/// host does it.
fn cap_std_read(dir: &cap_std::fs::Dir, path: &str, cap: usize) -> String {
    let meta = dir.symlink_metadata(path).unwrap();
    assert!(meta.is_file());
    let mut bytes = Vec::with_capacity(cap + 4);
    dir.open(path)
        .unwrap()
        .take(cap as u64 + 4)
        .read_to_end(&mut bytes)
        .unwrap();
    assert!(!bytes.contains(&0));
    let text = std::str::from_utf8(&bytes).unwrap();
    let mut end = text.len().min(cap);
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text[..end].to_owned()
}

fn benches(c: &mut Criterion) {
    let (_dir, root) = workspace();
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let mut plugin = resolver(&engine, &root);
    let request = |path: &str| ResolveRequest {
        path: path.to_owned(),
        range: None,
        max_bytes: 16384,
    };

    let mut group = c.benchmark_group("fileref/16k-file");
    group.throughput(Throughput::Bytes(KB16 as u64));
    group.bench_function("component", |b| {
        b.iter(|| black_box(plugin.resolve(&request("16k.rs")).unwrap().unwrap()))
    });
    let path = root.join("16k.rs");
    group.bench_function("native-std", |b| {
        b.iter(|| black_box(native_read(&path, 16384)))
    });
    let dir = cap_std::fs::Dir::open_ambient_dir(&root, cap_std::ambient_authority()).unwrap();
    group.bench_function("native-cap-std", |b| {
        b.iter(|| black_box(cap_std_read(&dir, "16k.rs", 16384)))
    });
    group.finish();

    // The floor of one call into the component: no file-system call at all (a NUL in the path
    // is refused up front), then one `stat` of a missing file.
    c.bench_function("fileref/call-floor-no-io", |b| {
        b.iter(|| black_box(plugin.resolve(&request("a\0b")).unwrap().unwrap_err()))
    });
    c.bench_function("fileref/small-file-512b", |b| {
        b.iter(|| black_box(plugin.resolve(&request("many/f000.rs")).unwrap().unwrap()))
    });
    // The same component, as a configured resolver: its preopen is served through the
    // filesystem guard (real path of every open checked), the built-in's is raw.
    let component = _dir.path().join("file-ref.wasm");
    std::fs::write(&component, warden::plugin::BUILTIN_RESOLVER).unwrap();
    let mut guarded = load_resolver(
        &engine,
        std::slice::from_ref(&root),
        &FileRefConfig {
            resolver: Some(component),
            ..FileRefConfig::default()
        },
    )
    .unwrap();
    // Before and after WIT 0.3.0, side by side: the same sample's 0.2.0 build (content sent as
    // a `string`, checked when lifted) and its 0.3.0 build (content sent as bytes the host
    // checks once), both as configured resolvers.
    let frozen =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v0.2.0/file_ref.wasm");
    let mut before = load_resolver(
        &engine,
        std::slice::from_ref(&root),
        &FileRefConfig {
            resolver: Some(frozen),
            ..FileRefConfig::default()
        },
    )
    .unwrap();
    let mut group = c.benchmark_group("fileref/16k-file configured, by WIT version");
    group.throughput(Throughput::Bytes(KB16 as u64));
    group.bench_function("0.2.0 build (string content)", |b| {
        b.iter(|| black_box(before.resolve(&request("16k.rs")).unwrap().unwrap()))
    });
    group.bench_function("0.3.0 build (bytes content)", |b| {
        b.iter(|| black_box(guarded.resolve(&request("16k.rs")).unwrap().unwrap()))
    });
    group.finish();
    let mut group = c.benchmark_group("fileref/small-file-512b open+read");
    group.bench_function("raw preopen (built-in resolver)", |b| {
        b.iter(|| black_box(plugin.resolve(&request("many/f000.rs")).unwrap().unwrap()))
    });
    group.bench_function("guarded fs (same component, configured)", |b| {
        b.iter(|| black_box(guarded.resolve(&request("many/f000.rs")).unwrap().unwrap()))
    });
    group.finish();
    c.bench_function("fileref/call-floor-missing-file", |b| {
        b.iter(|| black_box(plugin.resolve(&request("missing.rs")).unwrap().unwrap_err()))
    });

    let prompt: String = (0..100).map(|i| format!("@many/f{i:03}.rs ")).collect();
    let segments = fileref::parse(&prompt).segments;
    let config = FileRefConfig {
        max_total_bytes: 1 << 20,
        ..FileRefConfig::default()
    };
    c.bench_function("fileref/prompt-100-refs", |b| {
        b.iter(|| {
            let out = fileref::resolve_prompt(&segments, &mut plugin, &config, &ShownFiles::new());
            assert_eq!(out.refs.len(), 100);
            black_box(out)
        })
    });

    c.bench_function("fileref/dir-10k-listing", |b| {
        b.iter(|| black_box(plugin.resolve(&request("dir10k")).unwrap().unwrap()))
    });

    let text: String = (0..200)
        .map(|i| format!("please look at @src/module{i}/file.rs#L10-20, and mail me at a{i}@b.c; "))
        .collect();
    let mut group = c.benchmark_group("fileref/parser");
    group.throughput(Throughput::Bytes(text.len() as u64));
    group.bench_function("parse", |b| {
        b.iter(|| black_box(fileref::parse(black_box(&text))))
    });
    group.finish();
}

criterion_group! {
    name = fileref_benches;
    config = Criterion::default().sample_size(30).measurement_time(Duration::from_secs(4)).warm_up_time(Duration::from_secs(1));
    targets = benches
}
criterion_main!(fileref_benches);
