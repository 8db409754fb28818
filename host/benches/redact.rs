//! Masking known secret values in a tool's output (`domain::redact`), against the goals of
//! `docs/secrets.md`: what building the masker costs a worker's start (5 and 50 values), a 1 MB
//! output against 50 known values (none present, and 20 present in
//! their forms), and a 4 KB output (the size of a typical command's result) beside the same
//! output's tool-call path without masking (`ToolRegistry::output` of a tool that returns it),
//! so that what masking adds to a result with no secret is read as a ratio in one run.
//!
//! `cargo bench --profile dev -p warden --bench redact -- --warm-up-time 1 --measurement-time 3`

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::sync::Arc;

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use warden::domain::redact::Redactor;
use warden::domain::{
    FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved, Tool, ToolCall,
    ToolContext, ToolOutput, ToolSpec,
};
use warden::worker::ToolRegistry;

/// 50 values of the lengths real keys have.
fn secrets() -> Vec<(String, String)> {
    (0..50)
        .map(|i| {
            (
                format!("SECRET_{i}_TOKEN"),
                format!("sk-{i:02}-{}", "Zq8xW3vLp0".repeat(3 + i % 4)),
            )
        })
        .collect()
}

/// `bytes` of log-like text (lines of words, numbers, paths).
fn output(bytes: usize) -> String {
    let mut text = String::with_capacity(bytes + 100);
    let mut n = 0u64;
    while text.len() < bytes {
        text.push_str(&format!(
            "2026-12-06T12:00:{:02}Z INFO build step {n}: compiled src/module_{n}.rs in {} ms (ok)\n",
            n % 60,
            n * 7 % 991
        ));
        n += 1;
    }
    text.truncate(bytes);
    text
}

struct Echo(String);

impl Tool for Echo {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "echo".into(),
            description: "returns its output".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    fn run(
        &mut self,
        _arguments: &serde_json::Value,
        _context: &mut ToolContext<'_>,
    ) -> ToolOutput {
        ToolOutput::ok(self.0.clone())
    }
}

struct NoFiles;

impl Resolve for NoFiles {
    fn resolve(&mut self, _request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        Err(ResolveError::NotFound("none".into()))
    }
    fn read_file(&mut self, _: &str, _: u32, _: u32, _: u64) -> Result<FileChunk, ResolveError> {
        Err(ResolveError::NotFound("none".into()))
    }
    fn list_files(&mut self, _: &str, _: u32) -> Result<Listing, ResolveError> {
        Err(ResolveError::NotFound("none".into()))
    }
}

fn bench(c: &mut Criterion) {
    let redactor = Redactor::new(secrets());
    let mut group = c.benchmark_group("redact");
    // What a worker pays at its start (`Worker::new`) for the values it knows.
    for n in [5usize, 50] {
        let some: Vec<(String, String)> = secrets().into_iter().take(n).collect();
        group.bench_function(format!("build, {n} values"), |b| {
            b.iter(|| black_box(Redactor::new(black_box(some.clone()))));
        });
    }
    let clean = output(1 << 20);
    group.bench_function("1 MB, 50 values, none present", |b| {
        b.iter(|| black_box(redactor.mask(black_box(&clean))));
    });
    let mut dirty = clean.clone();
    let values = secrets();
    for (k, (_, value)) in values.iter().take(20).enumerate() {
        let at = (k + 1) * (dirty.len() / 22);
        let at = (at..dirty.len())
            .find(|i| dirty.is_char_boundary(*i))
            .unwrap_or(0);
        dirty.insert_str(at, value);
    }
    group.bench_function("1 MB, 50 values, 20 present", |b| {
        b.iter(|| black_box(redactor.mask(black_box(&dirty))));
    });
    let call = ToolCall {
        id: "c1".into(),
        name: "echo".into(),
        arguments: json!({}),
    };
    let small = output(4 << 10);
    for (name, masked) in [
        ("4 KB result, tool call without masking", false),
        ("4 KB result, tool call with masking (50 values)", true),
    ] {
        let mut registry = ToolRegistry::with(vec![Box::new(Echo(small.clone()))]).unwrap();
        if masked {
            registry.set_redactor(Arc::new(Redactor::new(secrets())));
        }
        let mut resolver = NoFiles;
        group.bench_function(name, |b| {
            b.iter(|| black_box(registry.output(black_box(&call), &mut resolver)));
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
