//! A session writer for the crash tests: commits groups of varying sizes and prints a line after
//! each commit returns, so a test that kills it knows what was reported committed.
//!
//! ```text
//! commit_writer run SESSION TAG GROUPS [nosync]
//!                                         open or create SESSION, commit GROUPS groups, printing
//!                                         "committed <group> <first-seq> <items> <TAG>/<k>";
//!                                         `nosync` skips the fsync (a process crash loses
//!                                         nothing without it, and kills land mid-write more often)
//! commit_writer hold SESSION             open SESSION, print "locked", wait for stdin to close
//! ```
//!
//! The state root comes from `$WARDEN_HOME`. Item `j` of group `k` of a run has text
//! `<TAG>/<k>:<j>/<items>` followed by padding, so a reader can check every group is whole.

#![allow(clippy::print_stdout, clippy::print_stderr)]

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use warden::domain::{Item, Source};
use warden::store::{Home, SessionWriter};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("commit_writer: {e:#}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let home = Home::from_env()?;
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["run", session, tag, groups, rest @ ..] => {
            let groups: u64 = groups.parse()?;
            let mut writer = SessionWriter::open_or_create(&home, session, Path::new("/ws"))?;
            if rest == ["nosync"] {
                writer.set_fsync_for_benchmarks(false);
            }
            for w in writer.warnings() {
                eprintln!("commit_writer: {w}");
            }
            for k in 0..groups {
                let group = make_group(tag, k);
                let receipt = writer.commit(&group)?;
                println!(
                    "committed {} {} {} {tag}/{k}",
                    receipt.group,
                    receipt.seqs.start,
                    group.len()
                );
            }
            Ok(())
        }
        ["hold", session] => {
            let _writer = SessionWriter::open(&home, session)?;
            println!("locked");
            let mut sink = Vec::new();
            std::io::stdin().read_to_end(&mut sink)?;
            Ok(())
        }
        _ => anyhow::bail!("usage: commit_writer run SESSION TAG GROUPS [nosync] | hold SESSION"),
    }
}

/// Group `k` of run `tag`: 1 to 24 items, sometimes 200, of 0 to 4 KiB of padding each.
fn make_group(tag: &str, k: u64) -> Vec<(Source, Item)> {
    let mut rng = mix(tag.bytes().fold(k, |h, b| mix(h ^ u64::from(b))));
    let mut next = || {
        rng = mix(rng);
        rng
    };
    let n = if next() % 8 == 0 {
        200
    } else {
        1 + next() % 24
    };
    (0..n)
        .map(|j| {
            let pad = "x".repeat((next() % 4096) as usize);
            let text = format!("{tag}/{k}:{j}/{n} {pad}");
            match j % 3 {
                0 => (Source::User, Item::user(text)),
                1 => (Source::FileRef, Item::system(text)),
                _ => (Source::Provider, Item::assistant(text)),
            }
        })
        .collect()
}

/// splitmix64 step.
fn mix(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
