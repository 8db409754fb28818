//! Start-up cost of one `shell` call, side by side:
//!
//! - **plain**: `sh -c true`, spawned and waited for (the floor);
//! - **launcher**: `warden __sandbox-exec` with a ready spec: a new process of the warden
//!   binary, user + mount + network namespaces, the hidden paths covered, `.git`/`.warden`
//!   bound read-only, Landlock, then `sh -c true`;
//! - **tool**: the whole `shell` tool call on a small workspace: the private temporary
//!   directory made and removed, the deny-glob scan, the launcher, the process-group kill and
//!   the output read;
//! - **escalated tool**: the same call with `escalate` `git` (`.git` writable and pinned, its
//!   `hooks/` and `config` bound read-only, snapshotted before and checked after; the command
//!   is `git --version`, since a `git` escalation runs git alone) and `network` (every host),
//!   beside the plain one: what an escalation adds to a call's start-up.
//!
//! `cargo bench --profile dev -p warden --bench shell -- --warm-up-time 1 --measurement-time 3`
//!
//! `WARDEN_BENCH_LAUNCHER=/path/to/warden` runs the launcher and tool cases with another build
//! of the binary (to compare two builds in one sitting).

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use warden::config::Config;
use warden::domain::{Escalation, EscalationKind};
use warden::sandbox::{LAUNCHER_SUBCOMMAND, SandboxSpec, ShellTool};

/// The binary the launcher runs: the one built with the bench, or `$WARDEN_BENCH_LAUNCHER`.
fn warden() -> PathBuf {
    std::env::var_os("WARDEN_BENCH_LAUNCHER").map_or_else(
        || PathBuf::from(env!("CARGO_BIN_EXE_warden")),
        PathBuf::from,
    )
}

fn workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for i in 0..50 {
        std::fs::create_dir_all(dir.path().join(format!("src/m{i}"))).unwrap();
        std::fs::write(
            dir.path().join(format!("src/m{i}/lib.rs")),
            "fn main() {}\n",
        )
        .unwrap();
    }
    std::fs::create_dir_all(dir.path().join(".git/hooks")).unwrap();
    std::fs::write(dir.path().join(".git/config"), "[core]\n").unwrap();
    std::fs::write(dir.path().join(".env"), "T=1\n").unwrap();
    dir
}

fn bench(c: &mut Criterion) {
    let ws = workspace();
    let root = std::fs::canonicalize(ws.path()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let spec = SandboxSpec {
        command: "true".into(),
        cwd: root.clone(),
        roots: vec![root.clone()],
        tmp: tmp.path().to_owned(),
        caches: Vec::new(),
        hide: vec![root.join(".env")],
        read_only: vec![root.join(".git"), root.join(".warden")],
        network: false,
        allowed_hosts: Vec::new(),
        unix_sockets: Vec::new(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        probe: false,
        argv: None,
        stdio: false,
        guard: None,
        report: false,
        pinned: Vec::new(),
    };
    let input = serde_json::to_vec(&spec).unwrap();
    let tool = ShellTool::new(
        &Config::default(),
        std::slice::from_ref(&root),
        warden(),
        std::env::vars().collect(),
    );

    let launcher = warden();
    let mut group = c.benchmark_group("shell_start");
    group.bench_function("plain sh -c true", |b| {
        b.iter(|| {
            let status = Command::new("/bin/sh")
                .args(["-c", "true"])
                .status()
                .unwrap();
            assert!(status.success());
        });
    });
    group.bench_function("launcher (namespaces + Landlock) sh -c true", |b| {
        b.iter(|| {
            let mut child = Command::new(&launcher)
                .arg(LAUNCHER_SUBCOMMAND)
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(&input).unwrap();
            assert!(child.wait().unwrap().success());
        });
    });
    group.bench_function("shell tool call (true)", |b| {
        b.iter(|| {
            let out = tool.execute("true", Duration::from_secs(60), &|| false);
            assert!(!out.is_error, "{}", out.content);
        });
    });
    let writes = "for i in $(seq 200); do : > \"$TMPDIR/f$i\"; done";
    for report in [false, true] {
        let spec = SandboxSpec {
            command: writes.into(),
            env: vec![
                ("PATH".into(), "/usr/bin:/bin".into()),
                ("TMPDIR".into(), tmp.path().display().to_string()),
            ],
            report,
            ..spec.clone()
        };
        let mut input = serde_json::to_vec(&spec).unwrap();
        input.push(b'\n');
        let name = if report { "observed" } else { "not observed" };
        group.bench_function(format!("launcher, 200 writes, {name}"), |b| {
            b.iter(|| {
                let mut child = Command::new(&launcher)
                    .arg(LAUNCHER_SUBCOMMAND)
                    .stdin(Stdio::piped())
                    .spawn()
                    .unwrap();
                child.stdin.take().unwrap().write_all(&input).unwrap();
                assert!(child.wait().unwrap().success());
            });
        });
    }
    for kind in ["git", "network"] {
        let escalation = Escalation {
            kind: EscalationKind::from_name(kind).unwrap(),
            hosts: Vec::new(),
            reason: "bench".into(),
        };
        let command = command_for(escalation.kind);
        group.bench_function(
            format!("shell tool call ({command}), escalate {kind}"),
            |b| {
                b.iter(|| {
                    let out = tool.execute_escalated(
                        command,
                        Some(&escalation),
                        Duration::from_secs(60),
                        &|| false,
                    );
                    assert!(!out.is_error, "{}", out.content);
                });
            },
        );
    }
    group.finish();
    paired(&tool);
}

/// The command benched under an escalation of `kind`: `true`, or `git --version` under `git`
/// (which runs git alone).
fn command_for(kind: EscalationKind) -> &'static str {
    match kind {
        EscalationKind::Git => "git --version",
        _ => "true",
    }
}

/// The plain and escalated tool calls interleaved (each round runs the four in a rotating
/// order), so that a machine's changing load falls on all alike: the median of each and
/// the ratios to the plain call, printed.
fn paired(tool: &ShellTool) {
    let rounds: usize = std::env::var("WARDEN_BENCH_ROUNDS")
        .ok()
        .and_then(|r| r.parse().ok())
        .unwrap_or(60);
    let escalation = |kind: &str| Escalation {
        kind: EscalationKind::from_name(kind).unwrap(),
        hosts: Vec::new(),
        reason: "bench".into(),
    };
    // (command, escalation): the plain call, the same git command without and with `git`.
    let cases = [
        ("true", None),
        ("git --version", None),
        ("git --version", Some(escalation("git"))),
        ("true", Some(escalation("network"))),
    ];
    let mut times: Vec<Vec<Duration>> = vec![Vec::new(); cases.len()];
    for round in 0..rounds {
        for i in 0..cases.len() {
            let at = (round + i) % cases.len();
            let start = std::time::Instant::now();
            let out = tool.execute_escalated(
                cases[at].0,
                cases[at].1.as_ref(),
                Duration::from_secs(60),
                &|| false,
            );
            times[at].push(start.elapsed());
            assert!(!out.is_error, "{}", out.content);
        }
    }
    let median = |t: &mut Vec<Duration>| {
        t.sort();
        t[t.len() / 2]
    };
    let medians: Vec<Duration> = times.iter_mut().map(median).collect();
    for (name, m) in [
        "plain",
        "plain git --version",
        "escalate git (git --version)",
        "escalate network",
    ]
    .iter()
    .zip(&medians)
    {
        println!(
            "shell_paired/{name}: median {:.2} ms over {rounds} rounds, {:.3}x the plain call",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() / medians[0].as_secs_f64()
        );
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
