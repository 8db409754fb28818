//! OpenTelemetry export (`[telemetry]`): one log record per audit event, the turn's spans, and
//! counters, over OTLP/HTTP (protobuf or JSON) to the configured collector.
//!
//! - `queue`: the hand-off from the turn's thread: the typed audit events and plugin-call
//!   figures go into a bounded queue that export's own thread drains.
//! - `records`: on that thread, each audit event → a log record, and the counters the events
//!   feed (tool decisions, tokens, sandbox refusals).
//! - `spans`: warden's spans ([`crate::trace`], noted on the turn's thread and handed over
//!   a turn at a time) built into OpenTelemetry spans on export's thread, and plugin-call
//!   latency and failures from them; a session's trace id is derived from its id, and a
//!   child session's turns link to the parent's trace.
//! - `export`: the OTLP exporters, counting what they sent and the last error.
//! - `state`: what the last export reached, for `warden doctor`.
//!
//! Nothing here waits on the collector during a turn: records go to bounded queues that
//! batch exporters on their own threads drain; a full queue drops, and whatever was not sent
//! is counted and said once at exit, after a short flush.

mod export;
mod queue;
mod records;
mod spans;
mod state;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use opentelemetry::logs::LoggerProvider as _;
use opentelemetry::metrics::MeterProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig, WithHttpConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::logs::{BatchLogProcessor, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider};
use opentelemetry_sdk::trace::BatchSpanProcessor;

use crate::config::{TelemetryConfig, TelemetryProtocol};
use crate::store::Home;

pub use crate::trace::{SessionTrace, enter_session};
pub use state::{ExportState, read_state};

/// Records waiting for export, per signal; past this they are dropped (and counted lost).
const QUEUE: usize = 4096;
/// How often queued records are sent.
const BATCH_DELAY: Duration = Duration::from_millis(500);
/// One export request's deadline.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(3);
/// The flush at exit.
const FLUSH: Duration = Duration::from_millis(1500);

fn resource() -> Resource {
    Resource::builder_empty()
        .with_service_name("warden")
        .with_attributes([opentelemetry::KeyValue::new(
            "service.version",
            env!("CARGO_PKG_VERSION"),
        )])
        .build()
}

/// Export in progress: flushed by [`Telemetry::finish`] (or when dropped), which returns what
/// was sent and lost.
pub struct Telemetry {
    endpoint: String,
    /// The endpoint's userinfo as written (`user:password`), scrubbed from export errors.
    secret: Option<String>,
    queue: queue::Running,
    logs: SdkLoggerProvider,
    metrics: SdkMeterProvider,
    stats: Arc<export::Stats>,
    state_file: std::path::PathBuf,
    finished: bool,
}

/// What export did, at exit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Report {
    /// Log records (audit events) handed over, and sent.
    pub logs: (u64, u64),
    /// Spans ended, and sent.
    pub spans: (u64, u64),
    /// Metric exports that failed.
    pub metric_failures: u64,
    /// The last export error.
    pub last_error: Option<String>,
}

impl Report {
    /// Records or spans not sent.
    pub fn lost(&self) -> u64 {
        self.logs.0.saturating_sub(self.logs.1) + self.spans.0.saturating_sub(self.spans.1)
    }
}

/// Starts export as `config` says (nothing when it names no endpoint or is turned off).
/// Header values are read from the environment here.
pub fn start(config: &TelemetryConfig, home: &Home) -> Result<Option<Telemetry>, String> {
    let Some(base) = config.active_endpoint() else {
        return Ok(None);
    };
    let base = base.trim_end_matches('/');
    let mut headers = HashMap::new();
    for (name, var) in &config.headers_env {
        match std::env::var(var) {
            Ok(value) => {
                headers.insert(name.clone(), value);
            }
            Err(_) => {
                return Err(format!(
                    "telemetry.headers_env.{name}: environment variable {var} is not set"
                ));
            }
        }
    }
    let protocol = match config.protocol {
        TelemetryProtocol::HttpProtobuf => Protocol::HttpBinary,
        TelemetryProtocol::HttpJson => Protocol::HttpJson,
    };
    let failed = |signal: &str, e: &dyn std::fmt::Display| {
        format!("telemetry: cannot set up the {signal} exporter for {base}: {e}")
    };
    let stats = Arc::new(export::Stats::default());
    // reqwest's rustls needs a process-wide provider; another may be installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();

    let log_exporter = opentelemetry_otlp::LogExporter::builder()
        .with_http()
        .with_endpoint(format!("{base}/v1/logs"))
        .with_protocol(protocol)
        .with_timeout(REQUEST_TIMEOUT)
        .with_headers(headers.clone())
        .build()
        .map_err(|e| failed("log", &e))?;
    let logs = SdkLoggerProvider::builder()
        .with_resource(resource())
        .with_log_processor(
            BatchLogProcessor::builder(export::CountingLogs {
                inner: log_exporter,
                stats: stats.clone(),
            })
            .with_batch_config(
                opentelemetry_sdk::logs::BatchConfigBuilder::default()
                    .with_max_queue_size(QUEUE)
                    .with_scheduled_delay(BATCH_DELAY)
                    .build(),
            )
            .build(),
        )
        .build();

    let span_exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .with_endpoint(format!("{base}/v1/traces"))
        .with_protocol(protocol)
        .with_timeout(REQUEST_TIMEOUT)
        .with_headers(headers.clone())
        .build()
        .map_err(|e| failed("span", &e))?;
    let spans = BatchSpanProcessor::builder(export::CountingSpans {
        inner: span_exporter,
        stats: stats.clone(),
    })
    .with_batch_config(
        opentelemetry_sdk::trace::BatchConfigBuilder::default()
            .with_max_queue_size(QUEUE)
            .with_scheduled_delay(BATCH_DELAY)
            .build(),
    )
    .build();

    let metric_exporter = opentelemetry_otlp::MetricExporter::builder()
        .with_http()
        .with_endpoint(format!("{base}/v1/metrics"))
        .with_protocol(protocol)
        .with_timeout(REQUEST_TIMEOUT)
        .with_headers(headers)
        .build()
        .map_err(|e| failed("metric", &e))?;
    let metrics = SdkMeterProvider::builder()
        .with_resource(resource())
        .with_reader(
            PeriodicReader::builder(export::CountingMetrics {
                inner: metric_exporter,
                stats: stats.clone(),
            })
            .with_interval(Duration::from_secs(30))
            .build(),
        )
        .build();
    let meter = metrics.meter("warden");
    let plugin_meters = spans::PluginMeters {
        duration: meter
            .f64_histogram("warden.plugin.duration")
            .with_unit("s")
            .with_description("Plugin calls, by plugin and call point")
            .build(),
        failures: meter
            .u64_counter("warden.plugin.failures")
            .with_description("Plugin calls that failed (trap, deadline, bad answer)")
            .build(),
    };
    let queue = queue::start(
        records::Tap {
            logger: logs.logger("warden"),
            meters: records::Meters::new(&meter),
            stats: stats.clone(),
            include_prompts: config.include_prompts,
        },
        plugin_meters,
    )?;
    spans::switch_on(spans, stats.clone());
    Ok(Some(Telemetry {
        // Shown in the exit warning and stored in the state file: never its password.
        endpoint: crate::config::without_userinfo(base).into_owned(),
        secret: crate::config::userinfo(base)
            .filter(|s| !s.is_empty())
            .map(str::to_owned),
        queue,
        logs,
        metrics,
        stats,
        state_file: home.root().join(state::STATE_FILE),
        finished: false,
    }))
}

impl Telemetry {
    /// Flushes for a short while, writes the exporter's state for `warden doctor`, and
    /// returns what was sent and lost.
    pub fn finish(mut self) -> Report {
        self.flush()
    }

    fn flush(&mut self) -> Report {
        self.finished = true;
        let started = std::time::Instant::now();
        // What the turn's thread handed over reaches the exporters' queues first.
        self.queue.stop();
        // The three flushes run side by side, and the exit waits for them `FLUSH` at most in
        // all: an exporter whose request outlives its own timeout (a collector that accepts
        // and never answers) is left behind, its records counted lost.
        let (logs, metrics) = (self.logs.clone(), self.metrics.clone());
        let left = FLUSH.saturating_sub(started.elapsed());
        bounded(
            left,
            vec![
                Box::new(move || {
                    let _ = logs.shutdown_with_timeout(left);
                }),
                Box::new(move || {
                    let _ = metrics.shutdown_with_timeout(left);
                }),
                Box::new(move || spans::switch_off(left)),
            ],
        );
        let load = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
        let report = Report {
            logs: (load(&self.stats.logs_emitted), load(&self.stats.logs_sent)),
            spans: (load(&self.stats.spans_ended), load(&self.stats.spans_sent)),
            metric_failures: load(&self.stats.metric_failures),
            last_error: self.stats.last_error().map(|e| match &self.secret {
                Some(secret) => e.replace(secret.as_str(), "REDACTED"),
                None => e,
            }),
        };
        state::write(&self.state_file, &self.endpoint, &report);
        report
    }

    /// The endpoint export goes to.
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }
}

/// Run each of `jobs` on a thread of its own and wait until all have ended or `limit` has
/// passed, whichever comes first; a job still running then is left to end (or to end with the
/// process).
fn bounded(limit: Duration, jobs: Vec<Box<dyn FnOnce() + Send>>) {
    let deadline = std::time::Instant::now() + limit;
    let (done, ended) = std::sync::mpsc::channel();
    let mut count = 0;
    for job in jobs {
        let done = done.clone();
        let spawned = std::thread::Builder::new()
            .name("warden-telemetry-flush".into())
            .spawn(move || {
                job();
                let _ = done.send(());
            });
        // A job no thread could be made for is not waited for.
        count += usize::from(spawned.is_ok());
    }
    for _ in 0..count {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if ended.recv_timeout(left).is_err() {
            return;
        }
    }
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if !self.finished {
            self.flush();
        }
    }
}

/// The one line that says what could not be sent, if anything.
pub fn loss_line(endpoint: &str, report: &Report) -> Option<String> {
    let lost = report.lost();
    if lost == 0 && report.metric_failures == 0 {
        return None;
    }
    Some(format!(
        "warden: telemetry: {lost} of {} records could not be sent to {endpoint} ({} of {} audit events, {} of {} spans, {} metric exports failed){}",
        report.logs.0 + report.spans.0,
        report.logs.0.saturating_sub(report.logs.1),
        report.logs.0,
        report.spans.0.saturating_sub(report.spans.1),
        report.spans.0,
        report.metric_failures,
        report
            .last_error
            .as_deref()
            .map(|e| format!(": {e}"))
            .unwrap_or_default()
    ))
}

#[cfg(test)]
mod flush_tests {
    use super::*;

    /// A shutdown that never ends (a collector that accepts and never answers) no longer holds
    /// the exit: the wait ends at its limit. Jobs that end are waited for.
    #[test]
    fn the_exit_flush_does_not_wait_for_a_job_that_never_ends() {
        let (_never, blocked) = std::sync::mpsc::channel::<()>();
        bounded(
            Duration::from_millis(50),
            vec![Box::new(move || {
                let _ = blocked.recv();
            })],
        );
        let ran = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let jobs: Vec<Box<dyn FnOnce() + Send>> = (0..3)
            .map(|_| {
                let ran = Arc::clone(&ran);
                Box::new(move || {
                    ran.fetch_add(1, Ordering::SeqCst);
                }) as Box<dyn FnOnce() + Send>
            })
            .collect();
        bounded(Duration::from_secs(60), jobs);
        assert_eq!(ran.load(Ordering::SeqCst), 3);
    }
}
