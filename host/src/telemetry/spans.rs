//! Spans: warden's spans ([`crate::trace`]: turn, prompt stage, model request, tool call,
//! tool run, plugin call) exported as OpenTelemetry spans, and plugin-call figures from the
//! same spans.
//!
//! The turn's thread only notes a span (its name, ids, times and attributes) and hands a
//! turn's spans over in one batch when the turn's span ends; the OpenTelemetry span, and the
//! plugin-call figures, are built on export's thread ([`into_span_data`], [`PluginMeters::record`]).

use std::borrow::Cow;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::trace::{
    Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, SpanData, SpanEvents, SpanLinks, SpanProcessor,
};

use super::export::Stats;
use super::queue::{Job, submit};
use crate::trace::{Context, Ended, Value};

/// The span processor of the export running, with its counts.
type Slot = RwLock<Option<(BatchSpanProcessor, Arc<Stats>)>>;

/// Where ended spans go: the export running, if any.
static SLOT: Slot = RwLock::new(None);

/// Sends ended spans to `processor`, and starts noting spans.
pub(crate) fn switch_on(mut processor: BatchSpanProcessor, stats: Arc<Stats>) {
    processor.set_resource(&super::resource());
    if let Ok(mut slot) = SLOT.write() {
        *slot = Some((processor, stats));
    }
    crate::trace::set_consumer(Some(Box::new(|batch| submit(Job::Spans(batch)))));
}

/// Stops noting spans and flushes the span processor for at most `timeout`.
pub(crate) fn switch_off(timeout: Duration) {
    crate::trace::set_consumer(None);
    let taken = SLOT.write().ok().and_then(|mut slot| slot.take());
    if let Some((processor, _)) = taken {
        let _ = processor.shutdown_with_timeout(timeout);
    }
}

/// Hands `span` (built on export's thread) to the span processor of the export running.
pub(crate) fn export(span: SpanData) {
    if let Ok(slot) = SLOT.read()
        && let Some((processor, _)) = slot.as_ref()
    {
        processor.on_end(span);
    }
}

/// Plugin-call figures.
pub(crate) struct PluginMeters {
    pub duration: Histogram<f64>,
    pub failures: Counter<u64>,
}

impl PluginMeters {
    /// The figures of `span`, if it is a plugin call.
    pub(crate) fn record(&self, span: &Ended) {
        if span.name != "plugin call" {
            return;
        }
        let us = match span.get("us") {
            Some(Value::Int(us)) => u64::try_from(*us).unwrap_or(0),
            _ => 0,
        };
        let text = |key| span.text(key).unwrap_or_default().to_owned();
        let attributes = [
            KeyValue::new("warden.plugin", text("plugin")),
            KeyValue::new("warden.point", text("point")),
        ];
        self.duration.record(us as f64 / 1_000_000.0, &attributes);
        if span
            .text("outcome")
            .is_some_and(|o| o.starts_with("failed"))
        {
            self.failures.add(1, &attributes);
        }
    }
}

fn context(context: Context, remote: bool) -> SpanContext {
    SpanContext::new(
        TraceId::from_bytes(context.trace),
        SpanId::from_bytes(context.span),
        TraceFlags::SAMPLED,
        remote,
        TraceState::default(),
    )
}

/// The OpenTelemetry span of `span`.
pub(crate) fn into_span_data(span: Ended) -> SpanData {
    let mut links = SpanLinks::default();
    if let Some(parent) = span.link {
        links.links = vec![Link::new(
            context(parent, true),
            vec![KeyValue::new("warden.link", "parent_session")],
            0,
        )];
    }
    let attributes = span
        .attributes
        .into_iter()
        .map(|(key, value)| {
            let value: opentelemetry::Value = match value {
                Value::Text(Cow::Borrowed(text)) => text.into(),
                Value::Text(Cow::Owned(text)) => text.into(),
                Value::Int(n) => n.into(),
                Value::Bool(b) => b.into(),
            };
            KeyValue::new(key, value)
        })
        .collect();
    SpanData {
        span_context: context(span.context, false),
        parent_span_id: span.parent.map_or(SpanId::INVALID, SpanId::from_bytes),
        parent_span_is_remote: span.parent_is_remote,
        span_kind: SpanKind::Internal,
        name: Cow::Borrowed(span.name),
        start_time: span.start,
        end_time: span.end,
        attributes,
        dropped_attributes_count: 0,
        events: SpanEvents::default(),
        links,
        status: Status::Unset,
        instrumentation_scope: opentelemetry::InstrumentationScope::builder("warden").build(),
    }
}
