//! The fuzz targets under AFL++, coverage-guided, in persistent mode.
//!
//! ```text
//! cargo afl build --release -p warden-fuzz --features afl --bin warden-fuzz-afl
//! cargo afl fuzz -i fuzz/corpus/TARGET -o OUT -- target/release/warden-fuzz-afl TARGET
//! ```
//!
//! The targets are those of the library (`warden_fuzz::TARGETS`), the same functions the
//! stable driver and the corpus tests run; a panic aborts the process, which AFL++ records as
//! a crash. `fuzz/afl.sh` runs every target for a bounded number of executions.

#![allow(clippy::print_stderr)]

use std::process::ExitCode;

use warden_fuzz::TARGETS;

fn main() -> ExitCode {
    let which = std::env::args().nth(1).unwrap_or_default();
    let Some(&(_, target)) = TARGETS.iter().find(|(name, _)| *name == which) else {
        let names: Vec<&str> = TARGETS.iter().map(|(name, _)| *name).collect();
        eprintln!("usage: warden-fuzz-afl TARGET ({})", names.join("|"));
        return ExitCode::from(2);
    };
    afl::fuzz!(|data: &[u8]| target(data));
    ExitCode::SUCCESS
}
