//! MCP client costs, side by side, against the FastMCP fixture (`tests/fixtures/mcp/server.py`,
//! the official Python SDK; skipped with a line when `python3 -c "import mcp"` fails):
//!
//! - **call through the chain**: `mcp__fx__echo` as a turn makes it: `pre-tool-call` through
//!   an (empty) interceptor chain ([`run_pre_tool`]), then [`ToolRegistry::output`] (the
//!   registry, the MCP tool, the deadline wait on the client's runtime, the result as text);
//! - **call direct**: the same `tools/call` with the `rmcp` client, awaited on a runtime;
//! - **start confined / unconfined**: one stdio server started (`initialize`, `tools/list`,
//!   `resources/list`) and stopped, through the sandbox launcher (granted the workspace to
//!   read, whose file calls the supervisor answers, or not) or unconfined;
//! - **1000 opens guarded / unguarded**: a Python process run by the sandbox launcher that
//!   opens and closes one workspace file 1000 times, with the file calls answered by the
//!   supervisor (as for a server granted the workspace) or not; the difference over 1000 is
//!   the cost of one answered open.
//!
//! `cargo bench --profile dev -p warden --bench mcp -- --warm-up-time 1 --measurement-time 3`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Duration;

use criterion::{Criterion, criterion_group, criterion_main};
use rmcp::ServiceExt;
use serde_json::json;
use warden::config::{
    Approve, DEFAULT_DENY, DEFAULT_HIDE, FailurePolicy, FsGrant, McpEntry, McpTransport,
    ShellSandbox, ToolGrants,
};
use warden::domain::{
    FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved, ToolCall,
};
use warden::mcp::{McpSet, StartOptions};
use warden::sandbox::spec::FileGuard;
use warden::sandbox::{LAUNCHER_SUBCOMMAND, SandboxSpec};
use warden::worker::{ToolOwner, ToolRegistry, run_pre_tool};

const WARDEN: &str = env!("CARGO_BIN_EXE_warden");

fn python() -> Option<String> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, mcp.server.fastmcp; print(sys.executable)",
        ])
        .output()
        .ok()?;
    out.status
        .success()
        .then(|| String::from_utf8_lossy(&out.stdout).trim().to_owned())
}

fn fixture() -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/mcp/server.py")
        .display()
        .to_string()
}

fn entry(python: &str, sandbox: ShellSandbox, fs: FsGrant) -> McpEntry {
    McpEntry {
        name: "fx".into(),
        transport: McpTransport::Stdio {
            command: vec![python.to_owned(), fixture(), "stdio".into()],
        },
        headers: Vec::new(),
        env: Vec::new(),
        approve: Approve::Never,
        timeout_s: 30,
        start_timeout_s: 30,
        max_output_bytes: 256 * 1024,
        failure: FailurePolicy::Open,
        fs,
        network: false,
        allowed_hosts: Vec::new(),
        unix_sockets: Vec::new(),
        sandbox,
        trust_files: Vec::new(),
        origin: "user".into(),
        declared_in: None,
    }
}

struct NoFiles;

impl Resolve for NoFiles {
    fn resolve(&mut self, r: &ResolveRequest) -> Result<Resolved, ResolveError> {
        Err(ResolveError::NotFound(r.path.clone()))
    }
    fn read_file(&mut self, p: &str, _: u32, _: u32, _: u64) -> Result<FileChunk, ResolveError> {
        Err(ResolveError::NotFound(p.to_owned()))
    }
    fn list_files(&mut self, p: &str, _: u32) -> Result<Listing, ResolveError> {
        Err(ResolveError::NotFound(p.to_owned()))
    }
}

fn bench(c: &mut Criterion) {
    let Some(python) = python() else {
        eprintln!("SKIP mcp bench: python3 with the `mcp` package not installed");
        return;
    };
    let ws = tempfile::tempdir().unwrap();
    let options = StartOptions {
        roots: vec![std::fs::canonicalize(ws.path()).unwrap()],
        launcher: PathBuf::from(WARDEN),
        vars: std::env::vars().collect(),
        hide: DEFAULT_HIDE.iter().map(|s| (*s).to_owned()).collect(),
        deny: DEFAULT_DENY.iter().map(|s| (*s).to_owned()).collect(),
    };
    let mut group = c.benchmark_group("mcp");

    // Through the chain: the confined server, as a turn calls it.
    let set = McpSet::start(
        &[entry(&python, ShellSandbox::Required, FsGrant::Read)],
        &options,
        &|_| None,
    )
    .unwrap();
    assert!(set.alerts().is_empty(), "{:?}", set.alerts());
    let mut registry = ToolRegistry::new();
    for (server, tool) in set.tools() {
        let owner = ToolOwner {
            plugin: "mcp:fx".into(),
            approve: Approve::Never,
            grants: ToolGrants::default(),
            failure: FailurePolicy::Open,
            mcp: Some(server.name().to_owned()),
        };
        registry
            .register_plugin_tool(Box::new(tool), owner)
            .unwrap();
    }
    let call = ToolCall {
        id: "c1".into(),
        name: "mcp__fx__echo".into(),
        arguments: json!({"text": "hello"}),
    };
    let mut resolver = NoFiles;
    group.bench_function("call through the chain (confined server)", |b| {
        b.iter(|| {
            let pre = run_pre_tool(&mut [], &call);
            let to_run = pre.into_outcome().call_to_run();
            let output = registry.output(&to_run, &mut resolver);
            assert_eq!(output.content, "echo: hello");
        })
    });

    // Direct: the rmcp client on its own runtime, the same server unconfined.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (client, _child) = runtime.block_on(async {
        let mut child = tokio::process::Command::new(&python)
            .args([fixture(), "stdio".into()])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .unwrap();
        let (stdout, stdin) = (child.stdout.take().unwrap(), child.stdin.take().unwrap());
        (().serve((stdout, stdin)).await.unwrap(), child)
    });
    group.bench_function("call direct (rmcp client)", |b| {
        b.iter(|| {
            runtime.block_on(async {
                let params: rmcp::model::CallToolRequestParams =
                    serde_json::from_value(json!({"name": "echo", "arguments": {"text": "hello"}}))
                        .unwrap();
                client.call_tool(params).await.unwrap()
            })
        })
    });
    drop(client);
    drop(set);

    group.sample_size(10);
    group.measurement_time(Duration::from_secs(10));
    for (label, sandbox, fs) in [
        ("start confined", ShellSandbox::Required, FsGrant::Read),
        (
            "start confined, no files",
            ShellSandbox::Required,
            FsGrant::None,
        ),
        ("start unconfined", ShellSandbox::None, FsGrant::Read),
    ] {
        let entries = [entry(&python, sandbox, fs)];
        group.bench_function(label, |b| {
            b.iter(|| {
                let set = McpSet::start(&entries, &options, &|_| None).unwrap();
                assert!(set.alerts().is_empty(), "{:?}", set.alerts());
            })
        });
    }

    let file = options.roots[0].join("file.txt");
    std::fs::write(&file, "hello\n").unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let opens = format!(
        "for _ in range(1000): open({:?}).close()",
        file.display().to_string()
    );
    for (label, guarded) in [
        ("1000 opens guarded", true),
        ("1000 opens unguarded", false),
    ] {
        let spec = SandboxSpec {
            cwd: options.roots[0].clone(),
            tmp: std::fs::canonicalize(tmp.path()).unwrap(),
            caches: Vec::new(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            argv: Some(vec![python.clone(), "-c".into(), opens.clone()]),
            guard: guarded.then(|| FileGuard {
                roots: options.roots.clone(),
                deny: options.deny.clone(),
            }),
            ..SandboxSpec::default()
        };
        let line = serde_json::to_vec(&spec).unwrap();
        group.bench_function(label, |b| {
            b.iter(|| {
                let mut child = Command::new(WARDEN)
                    .arg(LAUNCHER_SUBCOMMAND)
                    .stdin(Stdio::piped())
                    .stdout(Stdio::null())
                    .spawn()
                    .unwrap();
                child.stdin.take().unwrap().write_all(&line).unwrap();
                assert!(child.wait().unwrap().success());
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
