//! The [`TurnEvent`]s of a tool call and of a model request, built from what the worker knows
//! (the call's [`ToolCallOutcome`], the provider's [`StreamEvent`]).

use super::Worker;
use crate::domain::builtin::{ToolEffect, UPDATE_PLAN};
use crate::domain::plan::Plan;
use crate::domain::{StreamEvent, TurnEvent, TurnSink};
use crate::worker::outcome::ToolCallOutcome;

/// The event a front end is told for what a provider reported; `None` for the pieces of a
/// tool call (the call is told whole when the model's answer is committed).
pub(super) fn stream_event(event: &StreamEvent) -> Option<TurnEvent> {
    let millis = |d: &std::time::Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
    match event {
        StreamEvent::TextDelta(text) => Some(TurnEvent::TextDelta { text: text.clone() }),
        StreamEvent::Waiting {
            provider,
            attempt,
            attempts,
            left,
        } => Some(TurnEvent::Waiting {
            provider: (*provider).to_owned(),
            attempt: *attempt,
            attempts: *attempts,
            left_ms: millis(left),
        }),
        StreamEvent::Retrying {
            attempt,
            delay,
            reason,
        } => Some(TurnEvent::Retrying {
            attempt: *attempt,
            delay_ms: millis(delay),
            reason: reason.clone(),
        }),
        _ => None,
    }
}

impl Worker {
    /// Tell the front end who allowed or denied the call, and why.
    pub(super) fn tell_decided(&self, sink: &mut dyn TurnSink, outcome: &ToolCallOutcome) {
        let call = outcome.call_to_run();
        let effect = self.tools.effect(&call.name).unwrap_or(ToolEffect::Read);
        let reason = outcome.denied().map(|(_, reason)| reason.to_owned());
        sink.event(&TurnEvent::ToolCallDecided {
            call,
            effect,
            allowed: reason.is_none(),
            by: outcome.decided_by().to_string(),
            reason,
        });
    }

    /// Tell the front end what a call that ran produced.
    pub(super) fn tell_ran(sink: &mut dyn TurnSink, outcome: &ToolCallOutcome) {
        let output = outcome.output();
        sink.event(&TurnEvent::ToolCallRan {
            call: outcome.call_to_run(),
            is_error: output.is_error,
            exit_code: output.exit_code,
            output: output.content.clone(),
        });
        let call = outcome.call_to_run();
        if call.name == UPDATE_PLAN
            && !output.is_error
            && let Ok(plan) = Plan::parse(&call.arguments)
        {
            sink.event(&TurnEvent::PlanUpdated {
                call_id: call.id,
                steps: plan.steps,
                explanation: plan.explanation,
            });
        }
    }
}
