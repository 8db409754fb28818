//! The hand-off between the turn's thread and export: the turn's thread only moves what
//! happened (the typed audit events, and a turn's spans: names, ids, times and attributes)
//! into a bounded queue; one thread of export's own turns them into log records,
//! spans and metric points.
//!
//! Handing over never wakes the export thread (a wake-up is a system call and a thread
//! switch on the turn's time): the thread wakes on its own every [`DRAIN_EVERY`], and when
//! export stops. A full queue drops the job on the turn's thread without waiting; its audit
//! events were counted as handed over and are never sent, so they are reported as lost.

use std::borrow::Cow;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{Receiver, RecvTimeoutError, SyncSender, sync_channel};
use std::sync::{Arc, RwLock};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use super::export::Stats;
use super::records::Tap;
use super::spans::PluginMeters;
use crate::store::{AuditEvent, AuditTap, ChainHead};
use crate::trace::Ended;

/// Jobs waiting for the export thread; past this they are dropped (and counted lost).
const JOBS: usize = 8192;

/// How often the export thread takes what was handed over.
const DRAIN_EVERY: Duration = Duration::from_millis(50);

/// What the turn's thread hands over.
pub(crate) enum Job {
    /// Audit events of one session, appended at one time.
    Audit {
        session: String,
        ts: SystemTime,
        events: Vec<AuditEvent>,
        /// Each event's chain link (`seq`, `hash`) in the session's audit log.
        links: Vec<ChainHead>,
    },
    /// Spans of warden's that ended on one thread: a turn's, at its end.
    Spans(Vec<Ended>),
}

/// The queue of the export running, and its counts.
static QUEUE: RwLock<Option<(SyncSender<Job>, Arc<Stats>)>> = RwLock::new(None);

/// Hands `job` to the export running, if any, without waiting. Audit events and spans are
/// counted as handed over whether or not the queue had room.
pub(crate) fn submit(job: Job) {
    let Ok(slot) = QUEUE.read() else { return };
    let Some((sender, stats)) = slot.as_ref() else {
        return;
    };
    match &job {
        Job::Audit { events, .. } => {
            stats
                .logs_emitted
                .fetch_add(events.len() as u64, Ordering::Relaxed);
        }
        Job::Spans(spans) => {
            stats
                .spans_ended
                .fetch_add(spans.len() as u64, Ordering::Relaxed);
        }
    }
    // Full: dropped, and its events reported as lost at exit.
    let _ = sender.try_send(job);
}

/// Hands audit events to the export running, if any (registered with the store once).
struct Relay;

impl AuditTap for Relay {
    fn appended(
        &self,
        session: &str,
        ts: SystemTime,
        events: Cow<'_, [AuditEvent]>,
        links: Vec<ChainHead>,
    ) {
        // Nothing is copied while export is off.
        if QUEUE.read().map(|slot| slot.is_none()).unwrap_or(true) {
            return;
        }
        submit(Job::Audit {
            session: session.to_owned(),
            ts,
            events: events.into_owned(),
            links,
        });
    }
}

/// The export thread: running until [`Running::stop`].
pub(crate) struct Running {
    thread: Option<JoinHandle<()>>,
    /// Dropped to tell the thread to take what is left and end.
    stop: Option<SyncSender<()>>,
}

/// Opens the queue and starts the thread that turns its jobs into records with `tap` and
/// plugin-call figures with `plugin_meters`.
pub(crate) fn start(tap: Tap, plugin_meters: PluginMeters) -> Result<Running, String> {
    static REGISTERED: std::sync::Once = std::sync::Once::new();
    REGISTERED.call_once(|| {
        crate::store::set_audit_tap(Box::new(Relay));
    });
    let (sender, receiver) = sync_channel(JOBS);
    let (stop, stopped) = sync_channel::<()>(1);
    let stats = tap.stats.clone();
    let thread = std::thread::Builder::new()
        .name("warden-telemetry".into())
        .spawn(move || {
            // Wakes every `DRAIN_EVERY` (a timeout), or ends once `stop` is dropped.
            while let Err(RecvTimeoutError::Timeout) = stopped.recv_timeout(DRAIN_EVERY) {
                drain(&receiver, &tap, &plugin_meters);
            }
            drain(&receiver, &tap, &plugin_meters);
        })
        .map_err(|e| format!("telemetry: cannot start the export thread: {e}"))?;
    if let Ok(mut slot) = QUEUE.write() {
        *slot = Some((sender, stats));
    }
    Ok(Running {
        thread: Some(thread),
        stop: Some(stop),
    })
}

/// Turns every job waiting into records and figures.
fn drain(receiver: &Receiver<Job>, tap: &Tap, plugin_meters: &PluginMeters) {
    for job in receiver.try_iter() {
        match job {
            Job::Audit {
                session,
                ts,
                events,
                links,
            } => tap.emit(&session, ts, &events, &links),
            Job::Spans(spans) => {
                for span in spans {
                    plugin_meters.record(&span);
                    super::spans::export(super::spans::into_span_data(span));
                }
            }
        }
    }
}

impl Running {
    /// Closes the queue and waits for the thread to hand what was queued to the exporters
    /// (work on this machine only: the exporters' own queues never wait).
    pub(crate) fn stop(&mut self) {
        if let Ok(mut slot) = QUEUE.write() {
            *slot = None;
        }
        self.stop = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}
