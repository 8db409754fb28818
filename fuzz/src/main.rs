//! Runs the fuzz targets for a bounded time on the stable toolchain.
//!
//! ```text
//! warden-fuzz all|TARGET [--seconds N] [--seed S]
//! ```
//!
//! Each target starts from its corpus (`fuzz/corpus/<target>/`) and mutates it: bit flips,
//! byte and block insertions, deletions, duplications and splices between corpus inputs, with
//! a seeded generator so that a run can be repeated. This driver is not coverage-guided (it needs
//! no instrumented build, so CI can run it in a minute); it explores around the corpus. The
//! coverage-guided campaign runs the same targets under AFL++ (`src/afl.rs`, `fuzz/afl.sh`). A panic is a crash: the input is written to `fuzz/crashes/<target>/` and the
//! run goes on. The last line per target is `<target>: <execs> execs, <crashes> crashes`;
//! the exit status is 1 if any target crashed.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use warden_fuzz::{TARGETS, Target};

/// A small, seeded generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next() % n as u64) as usize
        }
    }
}

/// Bytes that matter to the targets' formats, inserted more often than random ones.
const TOKENS: &[&[u8]] = &[
    b"@",
    b"#L",
    b"-",
    b"\"",
    b"\\",
    b" ",
    b"\n",
    b"\r\n",
    b"\r",
    b":",
    b"data:",
    b"event:",
    b"{",
    b"}",
    b"[",
    b"]",
    b",",
    b"\"sum\":\"",
    b"\"seq\":",
    b"\"group\":",
    b"\"end\":true",
    b"\"minor\":1",
    b"=",
    b"[[plugins]]",
    b"timeout_ms = ",
    b"\xEF\xBB\xBF",
    b"\0",
    b"\xff",
    b"\xe2\x80\xa8",
    b"\xe2\x80\xae",
    b"\x1b[",
    b"9223372036854775807",
    b"-1",
];

fn mutate(rng: &mut Rng, input: &mut Vec<u8>, corpus: &[Vec<u8>]) {
    for _ in 0..=rng.below(4) {
        let len = input.len();
        match rng.below(8) {
            0 if len > 0 => {
                let i = rng.below(len);
                input[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                input[i] = rng.next() as u8;
            }
            2 => {
                let token = TOKENS[rng.below(TOKENS.len())];
                let at = rng.below(len + 1);
                input.splice(at..at, token.iter().copied());
            }
            3 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(64));
                input.drain(at..at + n);
            }
            4 if len > 0 => {
                let at = rng.below(len);
                let n = 1 + rng.below((len - at).min(256));
                let block: Vec<u8> = input[at..at + n].to_vec();
                let to = rng.below(len + 1);
                input.splice(to..to, block);
            }
            5 if !corpus.is_empty() => {
                let other = &corpus[rng.below(corpus.len())];
                if !other.is_empty() {
                    let from = rng.below(other.len());
                    let n = 1 + rng.below(other.len() - from);
                    let at = rng.below(len + 1);
                    input.splice(at..at, other[from..from + n].iter().copied());
                }
            }
            6 if len > 0 => input.truncate(rng.below(len)),
            _ => {
                let at = rng.below(len + 1);
                input.insert(at, rng.next() as u8);
            }
        }
    }
    input.truncate(64 << 10);
}

fn read_dir(dir: &Path) -> Vec<Vec<u8>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}

fn fuzz_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs `target` for `time`; returns (execs, crashes).
fn run(name: &str, target: Target, time: Duration, seed: u64) -> (u64, u64) {
    let corpus = read_dir(&fuzz_dir().join("corpus").join(name));
    let crashes_dir = fuzz_dir().join("crashes").join(name);
    let mut rng = Rng(seed | 1);
    let mut execs = 0u64;
    let mut crashes = 0u64;
    let started = Instant::now();
    // The corpus itself first, then mutations of it.
    for input in &corpus {
        execs += 1;
        if std::panic::catch_unwind(|| target(input)).is_err() {
            crashes += 1;
            save(&crashes_dir, input);
        }
    }
    while started.elapsed() < time {
        let mut input = if corpus.is_empty() {
            Vec::new()
        } else {
            corpus[rng.below(corpus.len())].clone()
        };
        mutate(&mut rng, &mut input, &corpus);
        execs += 1;
        if std::panic::catch_unwind(|| target(&input)).is_err() {
            crashes += 1;
            save(&crashes_dir, &input);
        }
    }
    (execs, crashes)
}

fn save(dir: &Path, input: &[u8]) {
    let name = format!("crash-{:016x}", fnv(input));
    if std::fs::create_dir_all(dir)
        .and_then(|()| std::fs::write(dir.join(&name), input))
        .is_err()
    {
        eprintln!("cannot save {name} under {}", dir.display());
    }
}

fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut which = None;
    let mut seconds = 10u64;
    let mut seed = 0x5eed_u64;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--seconds" => seconds = it.next().and_then(|s| s.parse().ok()).unwrap_or(seconds),
            "--seed" => seed = it.next().and_then(|s| s.parse().ok()).unwrap_or(seed),
            name => which = Some(name.to_owned()),
        }
    }
    let Some(which) = which else {
        eprintln!("usage: warden-fuzz all|TARGET [--seconds N] [--seed S]");
        return ExitCode::from(2);
    };
    let chosen: Vec<_> = TARGETS
        .iter()
        .filter(|(name, _)| which == "all" || *name == which)
        .collect();
    if chosen.is_empty() {
        eprintln!("unknown target {which}");
        return ExitCode::from(2);
    }
    // Panics are expected findings: report them in one line each, not with a backtrace.
    std::panic::set_hook(Box::new(|info| eprintln!("crash: {info}")));
    let mut any = false;
    for (name, target) in chosen {
        let (execs, crashes) = run(name, *target, Duration::from_secs(seconds), seed);
        println!("{name}: {execs} execs, {crashes} crashes");
        any |= crashes > 0;
    }
    if any {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
