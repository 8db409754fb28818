//! The cost of OpenTelemetry export on a turn: one turn with ten tool calls (`read_file`, the
//! `tool-guard` sample in the chain at every call point, history and audit without fsync),
//! side by side in one run:
//!
//! - **off**: no `[telemetry]`;
//! - **off, spans noted and dropped**: no export, but the turn's spans noted and dropped on the
//!   turn's thread when the turn ends (what noting alone costs);
//! - **on**: export to a collector on 127.0.0.1 that answers every request at once;
//! - **hung collector**: export to a collector that accepts connections and never answers.
//!
//! Then off and on again with a model that takes 2 ms to answer (group "…, model answering in
//! 2 ms"), so that export works while the turn waits for the model, as with a real one.
//!
//! Each variant writes its sessions under a state directory of its own, so that none starts
//! with the sessions of those before it. Each is measured twice: wall-clock, and the time the
//! turn's thread spent on a CPU (`CLOCK_THREAD_CPUTIME_ID`), the cost on the turn's thread
//! that neither the machine's load nor export's own threads can blur.
//!
//! `cargo bench --profile dev -p warden --bench telemetry -- --warm-up-time 1 --measurement-time 5`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stderr,
    missing_docs
)]

use std::hint::black_box;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use criterion::{Criterion, SamplingMode, criterion_group};
use serde_json::json;
use tracing_subscriber::Layer as _;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use warden::config::{Config, FailurePolicy, TelemetryConfig};
use warden::domain::{CollectingSink, Item, StreamEvent, ToolCall, Usage};
use warden::fileref;
use warden::llm::{CancelToken, LlmError, Provider, Request, Response, StopReason};
use warden::plugin::{InterceptorPlugin, Limits};
use warden::setup;
use warden::store::{AuditLog, Home, SessionWriter};
use warden::telemetry::Telemetry;
use warden::worker::{ChainEntry, Hooks, ToolRegistry, Worker, WorkerParts};

const GUARD: &str = env!("WARDEN_TOOL_GUARD_WASM");
const TURNS_PER_SESSION: u64 = 20;
const CALLS: usize = 10;

/// Ten `read_file` calls, then an answer; each answer given after `delay_us` microseconds (0:
/// at once).
struct TenCalls {
    delay_us: Arc<AtomicU64>,
}

impl Provider for TenCalls {
    fn name(&self) -> &str {
        "bench"
    }

    fn model(&self) -> &str {
        "bench"
    }

    fn complete(
        &mut self,
        req: &Request,
        _on_event: &mut dyn FnMut(&StreamEvent),
        _cancel: &CancelToken,
    ) -> Result<Response, LlmError> {
        let delay = self.delay_us.load(Ordering::Relaxed);
        if delay > 0 {
            std::thread::sleep(Duration::from_micros(delay));
        }
        let usage = Some(Usage {
            input_tokens: 100,
            output_tokens: 20,
            ..Usage::default()
        });
        if matches!(req.items.last(), Some(Item::User { .. })) {
            let tool_calls = (0..CALLS)
                .map(|i| ToolCall {
                    id: format!("call_{i}"),
                    name: "read_file".into(),
                    arguments: json!({"path": "notes.txt"}),
                })
                .collect();
            return Ok(Response {
                text: String::new(),
                tool_calls,
                stop_reason: StopReason::ToolUse,
                usage,
            });
        }
        Ok(Response {
            text: "done".into(),
            tool_calls: Vec::new(),
            stop_reason: StopReason::EndTurn,
            usage,
        })
    }
}

/// A collector that answers 200 to every request, keeping connections alive.
fn answering_collector() -> u16 {
    collector(
        b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\nContent-Length: 0\r\n\r\n",
    )
}

/// A collector that refuses every request with 503, keeping connections alive.
fn refusing_collector() -> u16 {
    collector(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n")
}

/// A port on 127.0.0.1 where nothing listens: every connection is refused.
fn absent_collector() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// A collector giving `answer` to every request.
fn collector(answer: &'static [u8]) -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || serve(stream, answer));
        }
    });
    port
}

fn serve(stream: TcpStream, answer: &[u8]) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut writer = stream;
    loop {
        let mut length = 0usize;
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            let lower = line.to_ascii_lowercase();
            if let Some(value) = lower.strip_prefix("content-length:") {
                length = value.trim().parse().unwrap_or(0);
            }
            if line == "\r\n" {
                break;
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        if writer.write_all(answer).is_err() {
            return;
        }
    }
}

/// A collector that accepts connections and never answers.
fn hung_collector() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming().flatten() {
            held.push(stream);
        }
    });
    port
}

/// What a turn's time is: wall-clock, or the time the turn's thread spent on a CPU (from
/// `CLOCK_THREAD_CPUTIME_ID`), which leaves out the time other processes and export's own
/// threads held the CPU.
#[derive(Clone, Copy)]
enum Clock {
    Wall,
    TurnThreadCpu,
}

impl Clock {
    fn suffix(self) -> &'static str {
        match self {
            Self::Wall => "",
            Self::TurnThreadCpu => " (turn thread on-CPU time)",
        }
    }

    fn now(self) -> Duration {
        match self {
            Self::Wall => {
                static EPOCH: std::sync::OnceLock<Instant> = std::sync::OnceLock::new();
                EPOCH.get_or_init(Instant::now).elapsed()
            }
            Self::TurnThreadCpu => thread_cpu_time(),
        }
    }
}

/// The calling thread's CPU time. `clock_gettime` brings the running thread's figure up to
/// date; `/proc/thread-self/schedstat` does not (it moves at ticks and switches only, so a
/// turn that never blocks can read as zero).
#[allow(unsafe_code)]
fn thread_cpu_time() -> Duration {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable `timespec` for the duration of the call.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    assert_eq!(rc, 0, "clock_gettime(CLOCK_THREAD_CPUTIME_ID) failed");
    Duration::new(
        u64::try_from(ts.tv_sec).unwrap(),
        u32::try_from(ts.tv_nsec).unwrap(),
    )
}

fn session(home: &Home, workspace: &Path) -> (SessionWriter, AuditLog) {
    let mut writer = SessionWriter::create(home, None, workspace).unwrap();
    writer.set_fsync_for_benchmarks(false);
    let mut audit = AuditLog::open(home, writer.id()).unwrap();
    audit.set_fsync_for_benchmarks(false);
    (writer, audit)
}

/// Export to the collector at `endpoint`, its state kept under `home`.
fn start_export(endpoint: String, home: &Home) -> Telemetry {
    let config = TelemetryConfig {
        endpoint: Some(endpoint),
        ..TelemetryConfig::default()
    };
    warden::telemetry::start(&config, home).unwrap().unwrap()
}

/// Flushes `export` and prints, after `label`, what it was handed and what the collector took.
fn finish_export(label: &str, export: Telemetry) {
    let report = export.finish();
    eprintln!(
        "{label}: audit events {} handed over, {} sent; spans {} ended, {} sent",
        report.logs.0, report.logs.1, report.spans.0, report.spans.1
    );
}

/// Turn number `i` of a run: a new session every [`TURNS_PER_SESSION`] turns, then the turn.
fn turn(worker: &mut Worker, home: &Home, workspace: &Path, i: u64) {
    if i.is_multiple_of(TURNS_PER_SESSION) {
        let (writer, audit) = session(home, workspace);
        worker.switch_session(writer, audit);
    }
    let mut sink = CollectingSink::default();
    black_box(worker.submit("read the notes", &mut sink).unwrap());
}

/// What every variant shares: the workspace, the worker with its chain, and the model's delay.
struct Bench {
    dir: tempfile::TempDir,
    workspace: std::path::PathBuf,
    worker: Worker,
    delay_us: Arc<AtomicU64>,
}

impl Bench {
    /// `cache`: where compiled plugin code is kept (none: compiled each time).
    fn new(cache: Option<&Home>) -> Self {
        // As in the binary: logs at `warn` (none in these turns).
        tracing_subscriber::registry()
            .with(
                tracing_subscriber::fmt::layer()
                    .with_writer(std::io::sink)
                    .with_filter(tracing_subscriber::filter::LevelFilter::WARN),
            )
            .init();
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::write(workspace.join("notes.txt"), "a note\n".repeat(50)).unwrap();
        let workspace = std::fs::canonicalize(&workspace).unwrap();
        let home = Home::new(dir.path().join("state"));
        let config = Config::default();
        let engine = setup::engine(cache).unwrap();
        let resolver = setup::resolver(&engine, &config, &workspace).unwrap();
        let guard = InterceptorPlugin::load(
            &engine,
            "guard",
            Path::new(GUARD),
            None,
            Limits::default(),
            vec![("deny".to_owned(), "write_file:*.lock".to_owned())],
        )
        .unwrap();
        let (writer, audit) = session(&home, &workspace);
        let delay_us = Arc::new(AtomicU64::new(0));
        let worker = Worker::new(WorkerParts {
            writer,
            audit,
            provider: Box::new(TenCalls {
                delay_us: Arc::clone(&delay_us),
            }),
            resolver: Box::new(resolver),
            chain: vec![ChainEntry {
                plugin: Box::new(guard),
                failure: FailurePolicy::Closed,
                shadow: None,
                matcher: None,
            }],
            hooks: Hooks::new(Vec::new()),
            tools: ToolRegistry::with(fileref::tools::file_tools(&config.fileref)).unwrap(),
            config,
        });
        Self {
            dir,
            workspace,
            worker,
            delay_us,
        }
    }
}

fn telemetry(c: &mut Criterion) {
    let Bench {
        dir,
        workspace,
        mut worker,
        delay_us,
    } = Bench::new(None);
    let answering = format!("http://127.0.0.1:{}", answering_collector());
    let hung = format!("http://127.0.0.1:{}", hung_collector());
    // Then the same turn with a model that takes 2 ms to answer, far quicker than any real
    // one: export's threads do their work while the turn waits for the model, as they would
    // with a real model, instead of beside the next turn.
    let groups = [
        (
            "turn with 10 tool calls",
            0,
            vec![
                ("telemetry off", None),
                ("telemetry off, spans noted and dropped", None),
                ("telemetry on", Some(answering.clone())),
                ("telemetry on, hung collector", Some(hung)),
            ],
        ),
        (
            "turn with 10 tool calls, model answering in 2 ms",
            2,
            vec![("telemetry off", None), ("telemetry on", Some(answering))],
        ),
    ];
    for (group_name, model_ms, variants) in groups {
        delay_us.store(model_ms * 1_000, Ordering::Relaxed);
        let mut group = c.benchmark_group(group_name);
        if model_ms > 0 {
            group.sampling_mode(SamplingMode::Flat).sample_size(30);
        }
        for (name, endpoint) in variants {
            let variant = Variant {
                name,
                model_ms,
                endpoint,
            };
            variant.run(&mut group, &dir, &workspace, &mut worker);
        }
        group.finish();
    }
}

/// One way of running the turn: its name, its collector (none: export off), and the model's
/// delay in ms (which names its state directory).
struct Variant {
    name: &'static str,
    model_ms: u64,
    endpoint: Option<String>,
}

impl Variant {
    fn run(
        self,
        group: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
        dir: &tempfile::TempDir,
        workspace: &Path,
        worker: &mut Worker,
    ) {
        let name = self.name;
        // What noting the spans costs the turn's thread alone: no export thread, each turn's
        // spans dropped on the turn's thread.
        let noted_only = name.ends_with("dropped");
        if noted_only {
            warden::trace::set_consumer(Some(Box::new(drop)));
        }
        // Each variant its own state directory: sessions piling up in one would make every
        // variant slower than the one before it.
        let home = Home::new(dir.path().join(format!(
            "state-{}-{}",
            self.model_ms,
            name.replace([' ', ','], "-")
        )));
        let export = self.endpoint.map(|endpoint| start_export(endpoint, &home));
        for clock in [Clock::Wall, Clock::TurnThreadCpu] {
            group.bench_function(format!("{name}{}", clock.suffix()), |b| {
                b.iter_custom(|iters| {
                    let mut total = Duration::ZERO;
                    for i in 0..iters {
                        let start = clock.now();
                        turn(worker, &home, workspace, i);
                        total += clock.now() - start;
                    }
                    total
                })
            });
        }
        if noted_only {
            warden::trace::set_consumer(None);
        }
        if let Some(export) = export {
            finish_export(name, export);
        }
    }
}

/// Count mode, for an instruction counter (`bench/telemetry-instructions/run.sh`): with
/// `WARDEN_BENCH_COUNT_TURNS=N` set, run N turns with export off, or on when
/// `WARDEN_BENCH_COUNT_EXPORT` is `on` (the answering collector), `hung` (a collector that
/// never answers), `refusing` (one that answers 503) or `absent` (nothing listening), then
/// flush export and exit; compiled plugin code is kept under `WARDEN_BENCH_COUNT_CACHE` when it
/// is set. No timing: the counter, told to count inside `Worker::submit` only, gives the
/// instructions the turn's thread ran, which neither the machine's load nor its clock can blur.
fn count(turns: u64) {
    let export = std::env::var("WARDEN_BENCH_COUNT_EXPORT").unwrap_or_default();
    let Bench {
        dir,
        workspace,
        mut worker,
        delay_us: _,
    } = Bench::new(
        std::env::var_os("WARDEN_BENCH_COUNT_CACHE")
            .map(Home::new)
            .as_ref(),
    );
    let home = Home::new(dir.path().join("state-count"));
    let port = match export.as_str() {
        "on" => Some(answering_collector()),
        "hung" => Some(hung_collector()),
        "refusing" => Some(refusing_collector()),
        "absent" => Some(absent_collector()),
        _ => None,
    };
    let export = port.map(|port| start_export(format!("http://127.0.0.1:{port}"), &home));
    for i in 0..turns {
        turn(&mut worker, &home, &workspace, i);
    }
    match export {
        Some(export) => finish_export(&format!("export, {turns} turns"), export),
        None => eprintln!("export off: {turns} turns"),
    }
}

criterion_group!(benches, telemetry);

fn main() {
    if let Some(turns) = std::env::var("WARDEN_BENCH_COUNT_TURNS")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        count(turns);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
