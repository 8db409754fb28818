//! The million-file case: 1 000 top directories × 10 subdirectories × 100 empty files, every
//! fourth file a `.log` hidden by the root `.gitignore` (761 001 completable entries). The tree
//! is built once under `target/bench-trees/1m/` (a marker `1m.done` beside it says it is
//! complete) and reused by later runs.
//!
//! Measured without criterion, each figure over several timed runs: the index build (the tree
//! is in the page cache), every keystroke of a few queries typed letter by letter (median,
//! p99, max, and the slowest keystrokes by name), `warden complete` end to end beside `find . -type f` (both as processes,
//! alternating in the same run) with the peak RSS of `warden complete`, and the bench
//! process's own peak RSS after building the index.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use warden::complete::{Index, Ranker, rank};

const TOPS: usize = 1_000;
const SUBS: usize = 10;
const FILES: usize = 100;
/// Completable entries: three quarters of the files, the directories, the `.gitignore`.
const ENTRIES: usize = TOPS * SUBS * FILES * 3 / 4 + TOPS * SUBS + TOPS + 1;

fn trees_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("bench-trees")
}

/// The tree, built if no complete one is there.
fn tree() -> PathBuf {
    let dir = trees_dir();
    let root = dir.join("1m");
    let marker = dir.join("1m.done");
    if !marker.exists() {
        let start = Instant::now();
        if root.exists() {
            std::fs::remove_dir_all(&root).unwrap();
        }
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        for top in 0..TOPS {
            for sub in 0..SUBS {
                let dir = root.join(format!("pkg{top:04}/mod{sub}"));
                std::fs::create_dir_all(&dir).unwrap();
                for file in 0..FILES {
                    let ext = if file % 4 == 0 { "log" } else { "rs" };
                    std::fs::File::create(dir.join(format!("file_{file:03}.{ext}"))).unwrap();
                }
            }
        }
        std::fs::write(&marker, "").unwrap();
        eprintln!("1m: built the tree in {:?}", start.elapsed());
    }
    std::fs::canonicalize(&root).unwrap()
}

fn deny() -> Vec<String> {
    warden::config::Config::default().fileref.deny
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() - 1) as f64 * p) as usize]
}

fn summary(label: &str, mut times: Vec<Duration>) -> Duration {
    times.sort();
    let median = percentile(&times, 0.5);
    eprintln!(
        "1m: {label}: median {median:?}, min {:?}, max {:?} over {}",
        times[0],
        times[times.len() - 1],
        times.len()
    );
    median
}

/// `VmHWM` of this process, in kB.
fn peak_rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn keystroke_summary(label: &str, mut times: Vec<Duration>) {
    times.sort();
    eprintln!(
        "1m: {label} over {} keystrokes: median {:?}, p99 {:?}, max {:?}",
        times.len(),
        percentile(&times, 0.5),
        percentile(&times, 0.99),
        times[times.len() - 1]
    );
}

fn keystrokes() -> Vec<String> {
    let mut out = Vec::new();
    for typed in [
        "pkg0420/mod3/file_077.rs",
        "file77",
        "mod3file",
        "zzz",
        "p4m3f7",
        "PKG0999/",
    ] {
        for end in 0..=typed.len() {
            out.push(typed[..end].to_owned());
        }
    }
    out
}

/// Time one run of `program args` in `dir`; with `rss`, run it under `/usr/bin/time` and
/// return its peak RSS (kB) too.
fn process(program: &str, args: &[&str], dir: &Path, home: &Path) -> (Duration, u64) {
    let mut command = Command::new("/usr/bin/time");
    command
        .arg("-f")
        .arg("rss-kb %M")
        .arg(program)
        .args(args)
        .current_dir(dir)
        .env("WARDEN_HOME", home)
        .env("HOME", home)
        .env("WARDEN_MANAGED_CONFIG", home.join("none.toml"));
    let start = Instant::now();
    let out = command.output().unwrap();
    let took = start.elapsed();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{program}: {stderr}");
    black_box(out.stdout.len());
    let rss = stderr
        .lines()
        .find_map(|l| l.strip_prefix("rss-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0);
    (took, rss)
}

pub fn run() {
    let root = tree();
    let deny = deny();

    let mut builds = Vec::new();
    let mut len = 0;
    for _ in 0..5 {
        let start = Instant::now();
        let index = Index::build(&root, &deny).unwrap();
        builds.push(start.elapsed());
        len = index.len();
    }
    assert_eq!(len, ENTRIES);
    summary("index build", builds);

    let index = Index::build(&root, &deny).unwrap();
    eprintln!(
        "1m: bench process peak RSS with the index built: {} MB",
        peak_rss_kb() / 1024
    );
    let queries = keystrokes();
    let mut times = Vec::new();
    for _ in 0..3 {
        for q in &queries {
            let start = Instant::now();
            black_box(rank(&index, q, 12).len());
            times.push(start.elapsed());
        }
    }
    keystroke_summary("per keystroke, rank (no state)", times);
    // As the chat ranks: one Ranker for the whole session, each keystroke narrowing the last.
    let mut times = Vec::new();
    let mut slowest = vec![Duration::ZERO; queries.len()];
    let mut ranker = Ranker::default();
    for _ in 0..3 {
        for (q, worst) in queries.iter().zip(&mut slowest) {
            let start = Instant::now();
            black_box(ranker.rank(&index, q, 12).len());
            let took = start.elapsed();
            times.push(took);
            *worst = (*worst).max(took);
        }
    }
    keystroke_summary("per keystroke, Ranker (as typed)", times);
    let mut by_time: Vec<(&String, Duration)> = queries.iter().zip(slowest).collect();
    by_time.sort_by_key(|b| std::cmp::Reverse(b.1));
    let shown: Vec<String> = by_time
        .iter()
        .take(6)
        .map(|(q, t)| format!("{q:?} {:.1} ms", t.as_secs_f64() * 1e3))
        .collect();
    eprintln!(
        "1m: slowest keystrokes with Ranker (worst of 3): {}",
        shown.join(", ")
    );
    drop(index);

    let home = tempfile::tempdir().unwrap();
    // `WARDEN_BENCH_BIN` runs another build (an earlier one kept aside) for comparison.
    let warden = std::env::var("WARDEN_BENCH_BIN")
        .unwrap_or_else(|_| env!("CARGO_BIN_EXE_warden").to_owned());
    let warden = warden.as_str();
    let (mut find, mut complete, mut rss) = (Vec::new(), Vec::new(), Vec::new());
    for _ in 0..7 {
        find.push(process("find", &[".", "-type", "f"], &root, home.path()).0);
        let (took, kb) = process(
            warden,
            &["complete", "-C", ".", "file_077"],
            &root,
            home.path(),
        );
        complete.push(took);
        rss.push(kb);
    }
    let find = summary("find . -type f (process)", find);
    let complete = summary("warden complete file_077 (process)", complete);
    eprintln!(
        "1m: warden complete / find = {:.2}; warden complete peak RSS {} MB (max of {})",
        complete.as_secs_f64() / find.as_secs_f64(),
        rss.iter().max().copied().unwrap_or(0) / 1024,
        rss.len()
    );
}
