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
        let text = |key| span.text(key).unwrap_or_default().to_owned();
        let attributes = [
            KeyValue::new("warden.plugin", text("plugin")),
            KeyValue::new("warden.point", text("point")),
        ];
        self.duration.record(seconds(span), &attributes);
        if span
            .text("outcome")
            .is_some_and(|o| o.starts_with("failed"))
        {
            self.failures.add(1, &attributes);
        }
    }
}

/// How long `span` lasted, in seconds, from its own start and end (0 if the wall clock was
/// set back while it was open).
fn seconds(span: &Ended) -> f64 {
    span.end
        .duration_since(span.start)
        .map_or(0.0, |d| d.as_secs_f64())
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

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::seconds;
    use crate::trace::{Context, Ended};

    fn ended(start: SystemTime, end: SystemTime) -> Ended {
        Ended {
            context: Context {
                trace: [1; 16],
                span: [2; 8],
            },
            parent: None,
            parent_is_remote: false,
            name: "plugin call",
            start,
            end,
            attributes: Vec::new(),
            link: None,
        }
    }

    #[test]
    fn a_plugin_call_lasts_from_its_spans_start_to_its_end() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let span = ended(start, start + Duration::from_micros(1_250));
        assert!(
            (seconds(&span) - 0.001_25).abs() < 1e-9,
            "{}",
            seconds(&span)
        );
    }

    #[test]
    fn a_clock_set_back_during_the_call_gives_zero_not_a_panic() {
        let start = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
        let span = ended(start, start - Duration::from_secs(3));
        assert_eq!(seconds(&span), 0.0);
    }
}
