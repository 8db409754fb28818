//! Spans: the turn's `tracing` spans (turn, prompt stage, model request, tool call, plugin
//! call) exported as OpenTelemetry spans, and plugin-call figures from the same spans.
//!
//! The turn's thread only notes what a span is — its name, ids, times and fields — and hands
//! that to export's queue when the span closes; the OpenTelemetry span is built on export's
//! thread ([`Ended::into_span_data`]). A span's parent is the span it was opened in; a span
//! opened in none (a turn) is a child of its session's root, whose trace id is derived from
//! the session id ([`enter_session`]), and a child session's turns link to the parent
//! session's root.
//!
//! The layer is in place from the start of the process and passes nothing on until export
//! starts (a flag read per span), so that configuration, read later, decides.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, SystemTime};

use opentelemetry::KeyValue;
use opentelemetry::metrics::{Counter, Histogram};
use opentelemetry::trace::{
    Link, SpanContext, SpanId, SpanKind, Status, TraceFlags, TraceId, TraceState,
};
use opentelemetry_sdk::trace::{
    BatchSpanProcessor, IdGenerator, RandomIdGenerator, SpanData, SpanEvents, SpanLinks,
    SpanProcessor,
};
use sha2::{Digest, Sha256};
use tracing::Level;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::subscriber::Interest;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::LevelFilter;
use tracing_subscriber::layer::Context as LayerContext;
use tracing_subscriber::layer::Filter;
use tracing_subscriber::registry::{LookupSpan, Registry};

use super::export::Stats;
use super::queue::{Job, submit};

/// Set while export runs.
static ON: AtomicBool = AtomicBool::new(false);

/// The span processor of the export running, with its counts.
type Slot = RwLock<Option<(BatchSpanProcessor, Arc<Stats>)>>;

/// Where ended spans go: the export running, if any.
static SLOT: Slot = RwLock::new(None);

/// Sends ended spans to `processor`, and turns the layer on.
pub(crate) fn switch_on(mut processor: BatchSpanProcessor, stats: Arc<Stats>) {
    processor.set_resource(&super::resource());
    if let Ok(mut slot) = SLOT.write() {
        *slot = Some((processor, stats));
    }
    ON.store(true, Ordering::Relaxed);
}

/// Turns the layer off and flushes the span processor for at most `timeout`.
pub(crate) fn switch_off(timeout: Duration) {
    ON.store(false, Ordering::Relaxed);
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

/// The layer to install in the process's subscriber: warden's own spans to OpenTelemetry,
/// and plugin-call figures, silent until export starts.
pub fn tracing_layers() -> Box<dyn Layer<Registry> + Send + Sync> {
    Spans.with_filter(WhenOn).boxed()
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

/// The session whose turns run on this thread: its root, and its parent session's root.
#[derive(Clone)]
struct Session {
    root: SpanContext,
    parent: Option<SpanContext>,
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
}

/// A session entered on this thread (from [`enter_session`]); the one before comes back when
/// it is dropped.
pub struct SessionTrace {
    before: Option<Session>,
}

impl Drop for SessionTrace {
    fn drop(&mut self) {
        let before = self.before.take();
        SESSION.with(|slot| *slot.borrow_mut() = before);
    }
}

/// Makes the turns of `session` run on this thread children of the session's root (its trace
/// id derived from the id), linked to `parent`'s root for a child session; until the guard is
/// dropped.
pub fn enter_session(session: &str, parent: Option<&str>) -> SessionTrace {
    let entered = Session {
        root: session_root(session),
        parent: parent.map(session_root),
    };
    let before = SESSION.with(|slot| slot.borrow_mut().replace(entered));
    SessionTrace { before }
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

/// A span as the turn's thread notes it: built into an OpenTelemetry span on export's thread.
pub(crate) struct Ended {
    context: SpanContext,
    parent: SpanId,
    parent_is_remote: bool,
    name: &'static str,
    start: SystemTime,
    end: SystemTime,
    attributes: Vec<KeyValue>,
    links: Vec<Link>,
}

impl Ended {
    /// The OpenTelemetry span.
    pub(crate) fn into_span_data(self) -> SpanData {
        let mut links = SpanLinks::default();
        links.links = self.links;
        SpanData {
            span_context: self.context,
            parent_span_id: self.parent,
            parent_span_is_remote: self.parent_is_remote,
            span_kind: SpanKind::Internal,
            name: Cow::Borrowed(self.name),
            start_time: self.start,
            end_time: self.end,
            attributes: self.attributes,
            dropped_attributes_count: 0,
            events: SpanEvents::default(),
            links,
            status: Status::Unset,
            instrumentation_scope: opentelemetry::InstrumentationScope::builder("warden").build(),
        }
    }
}

/// An open span, in the registry's extensions until it closes.
struct Open(Ended);

/// A span's fields as attributes.
struct Fields<'a>(&'a mut Vec<KeyValue>);

impl Fields<'_> {
    fn set(&mut self, field: &Field, value: opentelemetry::Value) {
        let key = field.name();
        match self.0.iter_mut().find(|kv| kv.key.as_str() == key) {
            Some(kv) => kv.value = value,
            None => self.0.push(KeyValue::new(key, value)),
        }
    }
}

impl Visit for Fields<'_> {
    fn record_str(&mut self, field: &Field, value: &str) {
        self.set(field, value.to_owned().into());
    }

    fn record_bool(&mut self, field: &Field, value: bool) {
        self.set(field, value.into());
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        self.set(field, value.into());
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match i64::try_from(value) {
            Ok(value) => self.set(field, value.into()),
            Err(_) => self.set(field, value.to_string().into()),
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        self.set(field, value.into());
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.set(field, format!("{value:?}").into());
    }
}

/// The text of attribute `key`, if set.
fn text<'a>(attributes: &'a [KeyValue], key: &str) -> Option<&'a str> {
    attributes
        .iter()
        .find(|kv| kv.key.as_str() == key)
        .and_then(|kv| match &kv.value {
            opentelemetry::Value::String(s) => Some(s.as_str()),
            _ => None,
        })
}

/// Notes each span of warden's while export runs, hands it to export's queue when it
/// closes, and the figures of each plugin call.
struct Spans;

impl<S: tracing::Subscriber + for<'a> LookupSpan<'a>> Layer<S> for Spans {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(id) else { return };
        let ids = RandomIdGenerator::default();
        let parent = span.parent().and_then(|parent| {
            parent
                .extensions()
                .get::<Open>()
                .map(|open| open.0.context.clone())
        });
        let session = SESSION.with(|slot| slot.borrow().clone());
        let (trace, parent_id, parent_is_remote, link) = match (parent, session) {
            (Some(parent), _) => (parent.trace_id(), parent.span_id(), false, None),
            (None, Some(session)) => (
                session.root.trace_id(),
                session.root.span_id(),
                true,
                session.parent,
            ),
            (None, None) => (ids.new_trace_id(), SpanId::INVALID, false, None),
        };
        let name = attrs.metadata().name();
        let links = match link {
            Some(parent) if name == "turn" => vec![Link::new(
                parent,
                vec![KeyValue::new("warden.link", "parent_session")],
                0,
            )],
            _ => Vec::new(),
        };
        let mut attributes = Vec::with_capacity(attrs.fields().len());
        attrs.record(&mut Fields(&mut attributes));
        let now = SystemTime::now();
        span.extensions_mut().insert(Open(Ended {
            context: SpanContext::new(
                trace,
                ids.new_span_id(),
                TraceFlags::SAMPLED,
                false,
                TraceState::default(),
            ),
            parent: parent_id,
            parent_is_remote,
            name,
            start: now,
            end: now,
            attributes,
            links,
        }));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: LayerContext<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(open) = span.extensions_mut().get_mut::<Open>()
        {
            values.record(&mut Fields(&mut open.0.attributes));
        }
    }

    fn on_close(&self, id: Id, ctx: LayerContext<'_, S>) {
        let Some(span) = ctx.span(&id) else { return };
        let Some(Open(mut ended)) = span.extensions_mut().remove::<Open>() else {
            return;
        };
        ended.end = SystemTime::now();
        if ended.name == "plugin call" {
            let field = |key| text(&ended.attributes, key).unwrap_or_default().to_owned();
            let us = ended
                .attributes
                .iter()
                .find(|kv| kv.key.as_str() == "us")
                .and_then(|kv| match kv.value {
                    opentelemetry::Value::I64(us) => u64::try_from(us).ok(),
                    _ => None,
                })
                .unwrap_or(0);
            submit(Job::PluginCall {
                plugin: field("plugin"),
                point: field("point"),
                us,
                failed: field("outcome").starts_with("failed"),
            });
        }
        submit(Job::Span(Box::new(ended)));
    }
}
