//! Session store benchmarks: the cost of one commit group with 100, 10 000 and 100 000 items of
//! history (with and without the per-group fsync), and loading a 100 000-item session.
//!
//! `cargo bench -p warden --bench store -- --warm-up-time 1 --measurement-time 3`
//!
//! Sessions live in a temp directory under `$WARDEN_BENCH_DIR` (default: the system temp
//! directory); it must be on a real disk for the fsync figures to mean anything. Before
//! criterion runs, every history size is measured in interleaved rounds (so that background
//! load weighs on all sizes alike); after criterion's report a table prints the median commit
//! cost per history size and its ratio to the smallest, from this one run.

#![allow(clippy::print_stdout, missing_docs)]

use std::fmt::Display;
use std::path::Path;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, SamplingMode};
use warden::domain::{Item, Source, ToolCall};
use warden::store::{Home, SessionWriter, load};

/// History sizes of the commit benchmark; the last is also the loaded session's size. Small
/// when run as a test (`cargo test --benches`), where each benchmark runs once.
fn history_sizes() -> [usize; 3] {
    if std::env::args().any(|a| a == "--bench") {
        [100, 10_000, 100_000]
    } else {
        [10, 100, 1_000]
    }
}

/// Commit benchmarks: with the per-group fsync, and without it (host-side cost only).
const MODES: [&str; 2] = ["commit_fsync", "commit_no_fsync"];

fn must<T, E: Display>(r: Result<T, E>) -> T {
    match r {
        Ok(v) => v,
        Err(e) => panic!("{e}"),
    }
}

/// A turn's worth of items of realistic sizes, `i` making each one distinct.
fn turn(i: usize) -> Vec<(Source, Item)> {
    let file = format!(
        "[File: src/module_{i}.rs]\n{}",
        "fn body() {}\n".repeat(150)
    );
    vec![
        (
            Source::User,
            Item::user(
                format!("Please look at @src/module_{i}.rs and fix the bug in it. ").repeat(3),
            ),
        ),
        (Source::FileRef, Item::system(file)),
        (
            Source::Plugin("policy".into()),
            Item::system(format!(
                "<system-reminder>turn {i}: follow the house style</system-reminder>"
            )),
        ),
        (
            Source::Provider,
            Item::Assistant {
                text: "I will read the test file first. ".repeat(10),
                tool_calls: vec![ToolCall {
                    id: format!("call_{i}"),
                    name: "read_file".into(),
                    arguments: serde_json::json!({ "path": format!("tests/module_{i}.rs") }),
                }],
            },
        ),
        (
            Source::Tool,
            Item::ToolResult {
                call_id: format!("call_{i}"),
                content: "#[test]\nfn it_works() { assert_eq!(2 + 2, 4); }\n".repeat(20),
                is_error: false,
            },
        ),
    ]
}

/// A session holding `items` items, written without fsync to be quick to build.
fn prefill(home: &Home, id: &str, items: usize) -> SessionWriter {
    let mut w = must(SessionWriter::create(
        home,
        Some(id),
        Path::new("/bench/ws"),
    ));
    w.set_fsync_for_benchmarks(false);
    let mut i = 0;
    while w.records().len() < items {
        let mut group = turn(i);
        group.truncate(items - w.records().len());
        must(w.commit(&group));
        i += 1;
    }
    w.set_fsync_for_benchmarks(true);
    w
}

fn bench_load(c: &mut Criterion, home: &Home) -> std::io::Result<()> {
    let items = history_sizes()[2];
    let id = "load";
    let w = prefill(home, id, items);
    let file = std::fs::File::open(w.path())?;
    file.sync_all()?; // no writeback left to disturb the commit benchmarks
    let bytes = file.metadata()?.len();
    drop(w);
    println!(
        "load: {items} items, {:.1} MB of history",
        bytes as f64 / 1e6
    );
    let mut g = c.benchmark_group("store/load");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.bench_with_input(BenchmarkId::from_parameter(items), &items, |b, &items| {
        b.iter(|| {
            let loaded = must(load(home, id));
            assert_eq!(loaded.records.len(), items);
            loaded
        })
    });
    g.finish();
    // Resuming: the same read, plus the lock, by the writer.
    let mut g = c.benchmark_group("store/open_writer");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.bench_with_input(BenchmarkId::from_parameter(items), &items, |b, &items| {
        b.iter(|| {
            let w = must(SessionWriter::open(home, id));
            assert_eq!(w.records().len(), items);
            w
        })
    });
    g.finish();
    Ok(())
}

/// Criterion's view of the commit with fsync. Every iteration grows the history by one group;
/// without fsync criterion would run so many iterations that the history it measures is no
/// longer the size in the label, so that mode is measured by [`interleaved_ratios`] only.
fn bench_commit_fsync(c: &mut Criterion, writers: &mut [(&'static str, usize, SessionWriter)]) {
    let group = turn(usize::MAX / 2);
    let mut g = c.benchmark_group("store/commit_fsync");
    g.sampling_mode(SamplingMode::Flat).sample_size(30);
    for (_, size, w) in writers.iter_mut().filter(|(m, ..)| *m == "commit_fsync") {
        let before = w.records().len();
        g.bench_function(BenchmarkId::from_parameter(*size), |b| {
            b.iter(|| must(w.commit(&group)))
        });
        println!("history grew from {before} to {} items", w.records().len());
    }
    g.finish();
}

/// One row of the ratio table: a history size and, per mode, the median per-commit time and
/// the history length before and after.
struct Row {
    size: usize,
    cells: Vec<(f64, usize, usize)>,
}

/// Measures the commit cost for all history sizes in interleaved rounds, so that background
/// load and disk state weigh on every size alike; returns the median commit time of each.
const ROUNDS: usize = 21;
const COMMITS_PER_ROUND: usize = 20;

fn interleaved_ratios(writers: &mut [(&'static str, usize, SessionWriter)]) -> Vec<Row> {
    let group = turn(usize::MAX / 3);
    let start_len: Vec<usize> = writers.iter().map(|(_, _, w)| w.records().len()).collect();
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); writers.len()];
    for round in 0..ROUNDS {
        for k in 0..writers.len() {
            let i = (k + round) % writers.len();
            let w = &mut writers[i].2;
            for _ in 0..COMMITS_PER_ROUND {
                let start = Instant::now();
                must(w.commit(&group));
                times[i].push(start.elapsed().as_secs_f64());
            }
        }
    }
    history_sizes()
        .into_iter()
        .map(|size| Row {
            size,
            cells: MODES
                .iter()
                .filter_map(|mode| {
                    let i = writers
                        .iter()
                        .position(|(m, s, _)| m == mode && *s == size)?;
                    Some((
                        median(&mut times[i]),
                        start_len[i],
                        writers[i].2.records().len(),
                    ))
                })
                .collect(),
        })
        .collect()
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(f64::NAN)
}

fn print_ratios(rows: &[Row]) {
    let group_items = turn(0).len();
    println!(
        "\ncommit of one {group_items}-item group, median of {} commits in interleaved rounds \
         (ratio to the smallest history):",
        ROUNDS * COMMITS_PER_ROUND
    );
    println!(
        "{:>24} | {:>20} | {:>20}",
        "history items", "with fsync", "without fsync"
    );
    let base: Vec<f64> = rows
        .first()
        .map_or(Vec::new(), |r| r.cells.iter().map(|c| c.0).collect());
    for row in rows {
        let (_, from, to) = row.cells.first().copied().unwrap_or_default();
        let mut line = format!("{:>24}", format!("{} ({from}→{to})", row.size));
        for (i, (t, ..)) in row.cells.iter().enumerate() {
            let ratio = t / base.get(i).copied().unwrap_or(f64::NAN);
            line += &format!(" | {:>9.1} µs {:>6.2}x", t * 1e6, ratio);
        }
        println!("{line}");
    }
}

/// Makes everything written so far durable, so that later fsyncs do not pay for it.
fn settle(writers: &[(&'static str, usize, SessionWriter)]) -> std::io::Result<()> {
    for (.., w) in writers {
        std::fs::File::open(w.path())?.sync_all()?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let parent = std::env::var_os("WARDEN_BENCH_DIR").map_or_else(std::env::temp_dir, Into::into);
    let dir = tempfile::tempdir_in(parent)?;
    let home = Home::new(dir.path());
    let mut writers = Vec::new();
    for mode in MODES {
        for size in history_sizes() {
            let mut w = prefill(&home, &format!("{mode}-{size}"), size);
            w.set_fsync_for_benchmarks(mode == "commit_fsync");
            writers.push((mode, size, w));
        }
    }
    settle(&writers)?;
    let rows = interleaved_ratios(&mut writers);

    let mut c = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3))
        .configure_from_args();
    bench_load(&mut c, &home)?;
    bench_commit_fsync(&mut c, &mut writers);
    c.final_summary();
    print_ratios(&rows);
    Ok(())
}
