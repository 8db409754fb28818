//! The OTLP exporters, wrapped to count what they sent and keep the last error: what could
//! not be sent is the difference between what was handed over and what was sent.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{LogBatch, LogExporter};
use opentelemetry_sdk::metrics::Temporality;
use opentelemetry_sdk::metrics::data::ResourceMetrics;
use opentelemetry_sdk::metrics::exporter::PushMetricExporter;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};

/// What the exporters handed over and sent, and the last error, for the report at exit and
/// `warden doctor`.
#[derive(Debug, Default)]
pub(crate) struct Stats {
    /// Log records handed to the exporter's queue (one per audit event).
    pub logs_emitted: AtomicU64,
    /// Log records the collector accepted.
    pub logs_sent: AtomicU64,
    /// Spans ended while export was on.
    pub spans_ended: AtomicU64,
    /// Spans the collector accepted.
    pub spans_sent: AtomicU64,
    /// Metric exports that failed.
    pub metric_failures: AtomicU64,
    /// Metric exports the collector accepted.
    pub metric_exports: AtomicU64,
    /// The last export error.
    pub last_error: Mutex<Option<String>>,
}

impl Stats {
    fn note(&self, result: &OTelSdkResult, sent: &AtomicU64, count: u64) {
        match result {
            Ok(()) => {
                sent.fetch_add(count, Ordering::Relaxed);
            }
            Err(error) => {
                if let Ok(mut last) = self.last_error.lock() {
                    *last = Some(error.to_string());
                }
            }
        }
    }

    /// The last export error, if any.
    pub fn last_error(&self) -> Option<String> {
        self.last_error.lock().ok().and_then(|last| last.clone())
    }
}

/// A log exporter that counts what it sent.
#[derive(Debug)]
pub(crate) struct CountingLogs<E> {
    pub inner: E,
    pub stats: Arc<Stats>,
}

impl<E: LogExporter> LogExporter for CountingLogs<E> {
    async fn export(&self, batch: LogBatch<'_>) -> OTelSdkResult {
        let count = batch.iter().count() as u64;
        let result = self.inner.export(batch).await;
        self.stats.note(&result, &self.stats.logs_sent, count);
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// A span exporter that counts what it sent.
#[derive(Debug)]
pub(crate) struct CountingSpans<E> {
    pub inner: E,
    pub stats: Arc<Stats>,
}

impl<E: SpanExporter> SpanExporter for CountingSpans<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let count = batch.len() as u64;
        let result = self.inner.export(batch).await;
        self.stats.note(&result, &self.stats.spans_sent, count);
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

/// A metric exporter that counts its exports and failures.
pub(crate) struct CountingMetrics<E> {
    pub inner: E,
    pub stats: Arc<Stats>,
}

impl<E: PushMetricExporter> PushMetricExporter for CountingMetrics<E> {
    async fn export(&self, metrics: &ResourceMetrics) -> OTelSdkResult {
        let result = self.inner.export(metrics).await;
        if result.is_err() {
            self.stats.metric_failures.fetch_add(1, Ordering::Relaxed);
        }
        self.stats.note(&result, &self.stats.metric_exports, 1);
        result
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
