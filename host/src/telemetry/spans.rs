//! Spans: the turn's `tracing` spans (turn, prompt stage, model request, tool call, plugin
//! call) exported through `tracing-opentelemetry`, and plugin-call figures from the same spans.
//!
//! The layers are in place from the start of the process and pass nothing on until export
//! starts (a flag read per span), so that configuration, read later, decides.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock, RwLock};
use std::time::Duration;

use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::trace::{
    SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState, TracerProvider as _,
};
use opentelemetry::{Context, KeyValue};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, SdkTracerProvider, Span, SpanData, SpanProcessor,
};
use sha2::{Digest, Sha256};
use tracing::Level;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing_opentelemetry::OpenTelemetrySpanExt;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::layer::Filter;
use tracing_subscriber::registry::{LookupSpan, Registry};

use super::export::Stats;

/// Set while export runs.
static ON: AtomicBool = AtomicBool::new(false);

/// The span processor of the export running, with its counts.
type Slot = RwLock<Option<(BatchSpanProcessor, Arc<Stats>)>>;

/// Where the span layer's provider sends ended spans: the export running, if any.
static SLOT: Slot = RwLock::new(None);

/// The tracer provider behind the span layer (kept for the life of the process).
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// The parent session's root, linked from each turn of a child session.
static PARENT: Mutex<Option<SpanContext>> = Mutex::new(None);

/// Sends ended spans to `processor`, and turns the layers on.
pub(crate) fn switch_on(processor: BatchSpanProcessor, stats: Arc<Stats>) {
    if let Ok(mut slot) = SLOT.write() {
        *slot = Some((processor, stats));
    }
    ON.store(true, Ordering::Relaxed);
}

/// Turns the layers off and flushes the span processor for at most `timeout`.
pub(crate) fn switch_off(timeout: Duration) {
    ON.store(false, Ordering::Relaxed);
    let taken = SLOT.write().ok().and_then(|mut slot| slot.take());
    if let Some((processor, _)) = taken {
        let _ = processor.shutdown_with_timeout(timeout);
    }
}

/// The span processor that hands spans to the export running, if any.
#[derive(Debug)]
struct Deferred;

impl SpanProcessor for Deferred {
    fn on_start(&self, span: &mut Span, cx: &Context) {
        if let Ok(slot) = SLOT.read()
            && let Some((inner, _)) = slot.as_ref()
        {
            inner.on_start(span, cx);
        }
    }

    fn on_end(&self, span: SpanData) {
        if let Ok(slot) = SLOT.read()
            && let Some((inner, stats)) = slot.as_ref()
        {
            stats.spans_ended.fetch_add(1, Ordering::Relaxed);
            inner.on_end(span);
        }
    }

    fn force_flush(&self) -> OTelSdkResult {
        Ok(())
    }

    fn shutdown_with_timeout(&self, _timeout: Duration) -> OTelSdkResult {
        Ok(())
    }

    fn set_resource(&mut self, _resource: &Resource) {}
}

/// The layers to install in the process's subscriber: warden's own spans to OpenTelemetry,
/// and plugin-call figures, both silent until export starts.
pub fn tracing_layers() -> Box<dyn Layer<Registry> + Send + Sync> {
    let provider = PROVIDER.get_or_init(|| {
        SdkTracerProvider::builder()
            .with_resource(super::resource())
            .with_span_processor(Deferred)
            .build()
    });
    let tracer = provider.tracer("warden");
    // Only the spans' own fields: no source location, thread, target or busy/idle times
    // (each an attribute built on the turn's thread), and no OpenTelemetry context made
    // current on entering a span (parents come from the span tree; the span is built once,
    // when it closes).
    let spans = tracing_opentelemetry::layer()
        .with_location(false)
        .with_threads(false)
        .with_target(false)
        .with_tracked_inactivity(false)
        .with_context_activation(false)
        .with_tracer(tracer)
        .with_filter(WhenOn);
    let figures = Figures.with_filter(WhenOn);
    spans.and_then(figures).boxed()
}

/// warden's own spans, while export runs. A callsite's interest is "sometimes", never cached
/// as "never", so that spans first met before export started are exported once it runs.
struct WhenOn;

impl WhenOn {
    fn ours(meta: &tracing::Metadata<'_>) -> bool {
        meta.is_span() && meta.target().starts_with("warden") && *meta.level() <= Level::DEBUG
    }
}

impl<S> Filter<S> for WhenOn {
    fn enabled(&self, meta: &tracing::Metadata<'_>, _cx: &LayerContext<'_, S>) -> bool {
        ON.load(Ordering::Relaxed) && Self::ours(meta)
    }

    fn callsite_enabled(&self, meta: &'static tracing::Metadata<'static>) -> Interest {
        if Self::ours(meta) {
            Interest::sometimes()
        } else {
            Interest::never()
        }
    }

    fn max_level_hint(&self) -> Option<LevelFilter> {
        Some(LevelFilter::DEBUG)
    }
}

/// 16 and 8 bytes derived from a session id: its trace, and its (virtual) root span.
fn session_root(session: &str) -> SpanContext {
    let digest = Sha256::digest(session.as_bytes());
    let mut trace = [0u8; 16];
    let mut span = [0u8; 8];
    trace.copy_from_slice(&digest[..16]);
    span.copy_from_slice(&digest[16..24]);
    SpanContext::new(
        TraceId::from_bytes(trace),
        SpanId::from_bytes(span),
        TraceFlags::SAMPLED,
        true,
        TraceState::default(),
    )
}

/// Makes the turns of `session` run on this thread children of the session's root (its trace
/// id derived from the id), linked to `parent`'s root for a child session; until the guard is
/// dropped.
pub fn enter_session(session: &str, parent: Option<&str>) -> opentelemetry::ContextGuard {
    if let Ok(mut slot) = PARENT.lock() {
        *slot = parent.map(session_root);
    }
    Context::new()
        .with_remote_span_context(session_root(session))
        .attach()
}

/// Plugin-call figures.
pub(crate) struct PluginMeters {
    pub duration: Histogram<f64>,
    pub failures: Counter<u64>,
}

impl PluginMeters {
    /// One plugin call of `us` microseconds at `point`.
    pub(crate) fn record(&self, plugin: String, point: String, us: u64, failed: bool) {
        let attributes = [
            KeyValue::new("warden.plugin", plugin),
            KeyValue::new("warden.point", point),
        ];
        self.duration.record(us as f64 / 1_000_000.0, &attributes);
        if failed {
            self.failures.add(1, &attributes);
        }
    }
}

/// The fields of a plugin-call span.
#[derive(Default)]
struct PluginCall {
    plugin: String,
    point: String,
    outcome: String,
    us: u64,
}

impl Visit for PluginCall {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "point" => self.point = value.to_owned(),
            "outcome" => self.outcome = value.to_owned(),
            "plugin" => self.plugin = value.to_owned(),
            _ => {}
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name() == "us" {
            self.us = value;
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "plugin" {
            self.plugin = format!("{value:?}");
        }
    }
}

/// Records plugin-call latency and failures from the `plugin call` spans, and links each turn
/// of a child session to its parent's trace.
struct Figures;

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Figures {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        if attrs.metadata().name() != "plugin call" {
            return;
        }
        let mut call = PluginCall::default();
        attrs.record(&mut call);
        if let Some(span) = ctx.span(id) {
            span.extensions_mut().insert(call);
        }
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(call) = span.extensions_mut().get_mut::<PluginCall>()
        {
            values.record(call);
        }
    }

    fn on_enter(&self, id: &Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        if span.name() != "turn" {
            return;
        }
        let parent = PARENT.lock().ok().and_then(|slot| slot.clone());
        if let Some(parent) = parent {
            tracing::Span::current().add_link_with_attributes(
                parent,
                vec![KeyValue::new("warden.link", "parent_session")],
            );
        }
    }

    fn on_close(&self, id: Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(call) = span.extensions_mut().remove::<PluginCall>() else {
            return;
        };
        let failed = call.outcome.starts_with("failed");
        super::queue::submit(super::queue::Job::PluginCall {
            plugin: call.plugin,
            point: call.point,
            us: call.us,
            failed,
        });
    }
}
