//! warden's spans: the turn, its prompt stage, each model request, tool call, tool run and
//! plugin call, noted on the thread that runs them while a consumer (OpenTelemetry export)
//! is on, and handed over in one batch when the outermost span closes.
//!
//! Noting a span is a push on a thread-local stack: two clock reads, an id from a thread-local
//! generator, and the attributes the call site gives. While no consumer is on, opening a span
//! is one atomic load and nothing else (its attributes are not even converted). A span's
//! parent is the span open below it on the same thread; a span opened in none is a child of
//! the session's root ([`enter_session`]), whose ids are derived from the session id, and a
//! turn of a child session links to its parent session's root.
//!
//! This module imports nothing of the host: every layer may open spans, and the consumer
//! (`telemetry`) registers with [`set_consumer`].

mod ids;

use std::borrow::Cow;
use std::cell::RefCell;
use std::marker::PhantomData;
use std::sync::RwLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::SystemTime;

pub use ids::session_root;

/// Spans ended and not yet handed over past this many are handed over at once, even in a
/// span still open (a long turn).
const BATCH: usize = 128;

/// Set while a consumer takes spans.
static ON: AtomicBool = AtomicBool::new(false);

/// What takes ended spans, in batches, on the thread that ended them.
pub type Consumer = Box<dyn Fn(Vec<Ended>) + Send + Sync>;

static CONSUMER: RwLock<Option<Consumer>> = RwLock::new(None);

/// Starts handing ended spans to `consumer` (replacing any before it), or stops with `None`.
/// Spans open when it changes are handed to the consumer in place when they end.
pub fn set_consumer(consumer: Option<Consumer>) {
    let on = consumer.is_some();
    if let Ok(mut slot) = CONSUMER.write() {
        *slot = consumer;
    }
    ON.store(on, Ordering::Release);
}

/// A trace id and a span id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Context {
    /// The trace the span is in.
    pub trace: [u8; 16],
    /// The span.
    pub span: [u8; 8],
}

/// An attribute's value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// Text: borrowed when known at compile time ([`Value::label`]).
    Text(Cow<'static, str>),
    /// A whole number.
    Int(i64),
    /// Yes or no.
    Bool(bool),
}

impl Value {
    /// A text known at compile time: not copied.
    pub fn label(text: &'static str) -> Self {
        Value::Text(Cow::Borrowed(text))
    }
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(Cow::Owned(text.to_owned()))
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::Text(Cow::Owned(text))
    }
}

impl From<&String> for Value {
    fn from(text: &String) -> Self {
        Value::Text(Cow::Owned(text.clone()))
    }
}

impl From<bool> for Value {
    fn from(value: bool) -> Self {
        Value::Bool(value)
    }
}

impl From<i64> for Value {
    fn from(value: i64) -> Self {
        Value::Int(value)
    }
}

impl From<u64> for Value {
    fn from(value: u64) -> Self {
        i64::try_from(value).map_or_else(|_| Value::from(value.to_string()), Value::Int)
    }
}

impl From<usize> for Value {
    fn from(value: usize) -> Self {
        Value::from(value as u64)
    }
}

/// A span as it ended.
#[derive(Debug)]
pub struct Ended {
    /// Its trace and id.
    pub context: Context,
    /// The span it was opened in, or the session's root.
    pub parent: Option<[u8; 8]>,
    /// The parent is the session's root (no span of this process).
    pub parent_is_remote: bool,
    /// What it is: `turn`, `tool call`, `plugin call`…
    pub name: &'static str,
    /// When it opened.
    pub start: SystemTime,
    /// When it ended.
    pub end: SystemTime,
    /// Its attributes, each key once, in the order first set.
    pub attributes: Vec<(&'static str, Value)>,
    /// The parent session's root, for a turn of a child session.
    pub link: Option<Context>,
}

impl Ended {
    /// The value of attribute `key`.
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.attributes
            .iter()
            .find(|(k, _)| *k == key)
            .map(|(_, v)| v)
    }

    /// The text of attribute `key`.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(Value::Text(text)) => Some(text),
            _ => None,
        }
    }
}

/// The session whose turns run on this thread: its root, and its parent session's root.
#[derive(Clone, Copy)]
struct Session {
    root: Context,
    parent: Option<Context>,
}

#[derive(Default)]
struct Local {
    session: Option<Session>,
    open: Vec<Ended>,
    done: Vec<Ended>,
}

thread_local! {
    static LOCAL: RefCell<Local> = RefCell::new(Local::default());
}

/// A session entered on this thread (from [`enter_session`]); the one before comes back when
/// it is dropped.
pub struct SessionTrace {
    before: Option<Session>,
    _thread: PhantomData<*const ()>,
}

impl Drop for SessionTrace {
    fn drop(&mut self) {
        let before = self.before.take();
        let _ = LOCAL.try_with(|local| local.borrow_mut().session = before);
    }
}

/// Makes the spans opened in none on this thread children of `session`'s root (its trace id
/// derived from the id), and a turn's span linked to `parent`'s root for a child session;
/// until the guard is dropped.
pub fn enter_session(session: &str, parent: Option<&str>) -> SessionTrace {
    let entered = Session {
        root: session_root(session),
        parent: parent.map(session_root),
    };
    let before = LOCAL
        .try_with(|local| local.borrow_mut().session.replace(entered))
        .ok()
        .flatten();
    SessionTrace {
        before,
        _thread: PhantomData,
    }
}

/// An open span: ends when dropped. Not `Send`: a span ends on the thread it was opened on.
#[must_use = "a span ends when dropped"]
pub struct Span {
    /// The span's id while it is noted; `None` while no consumer is on.
    id: Option<[u8; 8]>,
    _thread: PhantomData<*const ()>,
}

/// Opens span `name` on this thread, in the span open below it.
#[inline]
pub fn span(name: &'static str) -> Span {
    if !ON.load(Ordering::Relaxed) {
        return Span::none();
    }
    open(name)
}

/// [`span`] while a consumer is on.
#[inline(never)]
fn open(name: &'static str) -> Span {
    let opened = LOCAL.try_with(|local| {
        let mut local = local.borrow_mut();
        let (trace, parent, parent_is_remote, link) = match (local.open.last(), local.session) {
            (Some(parent), _) => (parent.context.trace, Some(parent.context.span), false, None),
            (None, Some(session)) => (
                session.root.trace,
                Some(session.root.span),
                true,
                session.parent.filter(|_| name == "turn"),
            ),
            (None, None) => (ids::trace_id(), None, false, None),
        };
        let id = ids::span_id();
        let now = SystemTime::now();
        local.open.push(Ended {
            context: Context { trace, span: id },
            parent,
            parent_is_remote,
            name,
            start: now,
            end: now,
            // Room for the attributes most spans carry, so that setting them does not grow
            // the vector one by one.
            attributes: Vec::with_capacity(4),
            link,
        });
        id
    });
    Span {
        id: opened.ok(),
        _thread: PhantomData,
    }
}

impl Span {
    /// A span that notes nothing.
    #[inline]
    pub fn none() -> Self {
        Span {
            id: None,
            _thread: PhantomData,
        }
    }

    /// Sets attribute `key` (replacing a value set before); nothing, not even the
    /// conversion, while the span is not noted.
    #[inline]
    pub fn set(&self, key: &'static str, value: impl Into<Value>) {
        if let Some(id) = self.id {
            set_noted(id, key, value.into());
        }
    }

    /// [`Span::set`], for building: `trace::span("x").with("k", v)`.
    #[inline]
    pub fn with(self, key: &'static str, value: impl Into<Value>) -> Self {
        self.set(key, value);
        self
    }
}

/// Sets attribute `key` of the noted span `id`.
fn set_noted(id: [u8; 8], key: &'static str, value: Value) {
    let _ = LOCAL.try_with(|local| {
        let mut local = local.borrow_mut();
        if let Some(open) = local.open.iter_mut().rev().find(|o| o.context.span == id) {
            match open.attributes.iter_mut().find(|(k, _)| *k == key) {
                Some((_, v)) => *v = value,
                None => open.attributes.push((key, value)),
            }
        }
    });
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(id) = self.id else { return };
        let batch = LOCAL.try_with(|local| {
            let mut local = local.borrow_mut();
            let at = local.open.iter().rposition(|o| o.context.span == id)?;
            let mut ended = local.open.remove(at);
            ended.end = SystemTime::now();
            local.done.push(ended);
            // The next batch starts with the room this one needed: a turn's spans are not
            // pushed into a vector grown from nothing each time.
            (local.open.is_empty() || local.done.len() >= BATCH).then(|| {
                let room = local.done.len();
                std::mem::replace(&mut local.done, Vec::with_capacity(room))
            })
        });
        if let Ok(Some(batch)) = batch {
            hand_over(batch);
        }
    }
}

/// Gives `batch` to the consumer, if one is on.
fn hand_over(batch: Vec<Ended>) {
    if let Ok(slot) = CONSUMER.read()
        && let Some(consumer) = slot.as_ref()
    {
        consumer(batch);
    }
}

#[cfg(test)]
mod tests;
