//! The turn's side of a call point: run it through the chain's one runner and tell the person
//! and the hooks about plugins that failed.

use super::Worker;
use crate::domain::{Alert, CallPoint, Event, Interceptor, PluginFailure, TurnSink};
use crate::store::AuditEvent;
use crate::worker::chain::{Failure, PointEnd, PointRun, Verdict, run_point};

impl Worker {
    /// Ask every interceptor at `point`; returns how the point ended and the audit records of
    /// every decision (for the caller to write with what it commits).
    pub(super) fn run_point(
        &mut self,
        sink: &mut dyn TurnSink,
        point: CallPoint,
        call: impl FnMut(&mut dyn Interceptor) -> Result<Verdict, PluginFailure>,
    ) -> (PointEnd, Vec<AuditEvent>) {
        let run = run_point(&mut self.chain, point, &self.call_ids, call);
        self.report(sink, run)
    }

    /// Report a point's failures; returns how it ended and its audit records.
    pub(super) fn report(
        &mut self,
        sink: &mut dyn TurnSink,
        run: PointRun,
    ) -> (PointEnd, Vec<AuditEvent>) {
        for failure in &run.failures {
            self.plugin_failed(sink, failure);
        }
        self.chain_alerts(sink);
        (run.end, run.decisions)
    }

    /// What the chain's interceptors have for the person (a command hook's `systemMessage`,
    /// the fields of its answer warden could not act on), raised.
    pub(super) fn chain_alerts(&mut self, sink: &mut dyn TurnSink) {
        let alerts: Vec<Alert> = self
            .chain
            .iter_mut()
            .flat_map(|entry| entry.plugin.take_alerts())
            .collect();
        for alert in alerts {
            self.raise(sink, alert);
        }
    }

    /// Tell the hooks that a plugin failed and, when its policy is open, the person too (a
    /// closed failure ends the turn, and the caller's alert says so with the same message).
    pub(super) fn plugin_failed(&mut self, sink: &mut dyn TurnSink, failure: &Failure) {
        if !failure.closed {
            self.raise(
                sink,
                Alert::warn(
                    crate::domain::Source::Plugin(failure.plugin.clone()).to_string(),
                    format!("{failure} (failure policy: open; continuing without it)"),
                ),
            );
        }
        self.emit(
            sink,
            Event::PluginFailed {
                plugin: failure.plugin.clone(),
                message: failure.to_string(),
            },
        );
    }
}
