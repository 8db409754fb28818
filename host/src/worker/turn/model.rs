//! Steps 4–6 of a turn: pending items before each request, the request built from history
//! alone, the answer, tool calls and their results, and turn-end continuations.

use super::compact::ReportedUsage;
use super::limits::{RepeatWatch, repeat_reason, steps_reason};
use super::{HOST, TurnOutcome, Worker};
use crate::domain::plan::PlanState;
use crate::domain::{
    Alert, CallPoint, Entry, Event, Item, RequestInfo, Source, ToolCall, TurnEndDecision,
    TurnEvent, TurnInfo, TurnSink,
};
use crate::llm::{LlmError, Request, Response};
use crate::store::{AuditEvent, PointEndRecord, PointInputRecord, PointRecord, as_sent};
use crate::worker::WorkerError;
use crate::worker::chain::{PointEnd, Verdict};

impl Worker {
    /// Requests, tools and continuations until the turn ends.
    pub(super) fn run_model_loop(
        &mut self,
        sink: &mut dyn TurnSink,
        typed: &str,
    ) -> Result<TurnOutcome, WorkerError> {
        let mut continuations = 0u32;
        let mut step_index = 0u32;
        let mut repeats = RepeatWatch::default();
        loop {
            if step_index >= self.config.worker.max_steps {
                let reason = steps_reason(self.config.worker.max_steps);
                return self.limit_reached(sink, reason);
            }
            if let Some(outcome) = self.commit_pending(sink, typed, step_index)? {
                return Ok(outcome);
            }
            let answer = match self.request(sink)? {
                Ok(answer) => answer,
                Err(outcome) => return Ok(outcome),
            };
            step_index += 1;
            if let Item::Assistant { tool_calls, .. } = &answer
                && !tool_calls.is_empty()
            {
                let calls = tool_calls.clone();
                let before = self.writer.records().len();
                if let Some(outcome) = self.run_tools(sink, &calls)? {
                    return Ok(outcome);
                }
                if self.cancel.is_cancelled() {
                    return Ok(self.cancelled_in_tools(sink, &calls));
                }
                let results = self.writer.records()[before..].iter().map(|r| &r.item);
                if let Some(times) = repeats.round(&calls, results) {
                    return self.limit_reached(sink, repeat_reason(&calls, times));
                }
                continue;
            }

            // 6. Turn end.
            let text = answer.text().to_owned();
            let info = TurnInfo {
                session: self.writer.id().to_owned(),
                prompt: typed.to_owned(),
                answer: text.clone(),
                continuations,
            };
            let (end, mut decisions) = self.run_point(sink, CallPoint::OnTurnEnd, |plugin| {
                plugin.on_turn_end(&info).map(|d| match d {
                    TurnEndDecision::Finish => Verdict::Pass(Some("finish")),
                    TurnEndDecision::ContinueWith(items) => Verdict::Add(items),
                })
            });
            let input = PointInputRecord::OnTurnEnd {
                answer: self.last_seqs(1).first().copied().unwrap_or_default(),
                continuations,
            };
            let more = match end {
                PointEnd::Items(items) => items,
                PointEnd::Cancelled { plugin, reason } => {
                    decisions.push(PointRecord::event(
                        input,
                        PointEndRecord::cancelled(&plugin, &reason),
                        Vec::new(),
                    ));
                    self.audit(decisions)?;
                    return Ok(self.stopped_by(sink, &plugin, &reason, "at turn end"));
                }
                PointEnd::FailedClosed(failure) => {
                    let message = failure.to_string();
                    let end = PointEndRecord::failed_closed(&failure.plugin, &message);
                    decisions.push(PointRecord::event(input, end, Vec::new()));
                    self.audit(decisions)?;
                    return Ok(self.stopped_by(sink, &failure.plugin, &message, "at turn end"));
                }
            };
            if more.is_empty() {
                decisions.push(PointRecord::event(input, PointEndRecord::Done, Vec::new()));
                self.audit(decisions)?;
                self.emit(sink, Event::TurnEnded("answered".into()));
                return Ok(TurnOutcome::Answered { text });
            }
            if continuations >= self.config.worker.max_continuations {
                // The items were not committed: the point added nothing.
                decisions.push(PointRecord::event(input, PointEndRecord::Done, Vec::new()));
                self.audit(decisions)?;
                self.raise(
                    sink,
                    Alert::warn(
                        HOST,
                        format!(
                            "turn-end interceptors asked to continue again; the limit of {} continuations (worker.max_continuations) ends the turn",
                            self.config.worker.max_continuations
                        ),
                    ),
                );
                self.emit(sink, Event::TurnEnded("continuation limit".into()));
                return Ok(TurnOutcome::Answered { text });
            }
            self.audit(&decisions)?;
            continuations += 1;
            let count = more.len();
            self.commit(sink, more)?;
            let added = self.last_seqs(count);
            self.defer_audit(PointRecord::event(input, PointEndRecord::Done, added));
        }
    }

    /// A closed plugin failure after the prompt was committed: one error alert, turn over.
    pub(super) fn stopped_by(
        &mut self,
        sink: &mut dyn TurnSink,
        plugin: &str,
        message: &str,
        when: &str,
    ) -> TurnOutcome {
        let reason = format!("plugin {plugin} failed {when} and its policy is closed: {message}");
        self.raise(
            sink,
            Alert::error(
                crate::domain::Source::Plugin(plugin.to_owned()).to_string(),
                reason.clone(),
            ),
        );
        self.emit(sink, Event::TurnEnded(reason.clone()));
        TurnOutcome::Stopped { reason }
    }

    /// Step 4: commit pending notifications and `pre-llm-request` items, in arrival order, as
    /// one group. A closed failure stops the turn.
    fn commit_pending(
        &mut self,
        sink: &mut dyn TurnSink,
        typed: &str,
        step_index: u32,
    ) -> Result<Option<TurnOutcome>, WorkerError> {
        let mut group: Vec<Entry> = self
            .writer
            .pending_notifications()?
            .iter()
            .map(|n| n.entry())
            .collect();
        if step_index == 0
            && let Some(reminder) =
                PlanState::of(self.history()).reminder(self.config.plan.remind_after_turns)
        {
            group.push(Entry::from((Source::Host, Item::system(reminder))));
        }
        let info = RequestInfo {
            session: self.writer.id().to_owned(),
            prompt: typed.to_owned(),
            step: step_index,
            history_items: u32::try_from(self.writer.records().len()).unwrap_or(u32::MAX),
        };
        let (end, mut decisions) = self.run_point(sink, CallPoint::PreLlmRequest, |plugin| {
            plugin.pre_llm_request(&info).map(|items| {
                if items.is_empty() {
                    Verdict::Pass(None)
                } else {
                    Verdict::Add(items)
                }
            })
        });
        let input = PointInputRecord::PreLlmRequest {
            step: info.step,
            history_items: info.history_items,
        };
        let (plugin, message) = match end {
            PointEnd::Items(items) => {
                let count = items.len();
                group.extend(items);
                self.commit(sink, group)?;
                let added = self.last_seqs(count);
                // Written with the request's own record, which follows at once.
                for decision in decisions {
                    self.defer_audit(decision);
                }
                self.defer_audit(PointRecord::event(input, PointEndRecord::Done, added));
                return Ok(None);
            }
            PointEnd::Cancelled { plugin, reason } => {
                let end = PointEndRecord::cancelled(&plugin, &reason);
                decisions.push(PointRecord::event(input, end, Vec::new()));
                (plugin, reason)
            }
            PointEnd::FailedClosed(failure) => {
                let message = failure.to_string();
                let end = PointEndRecord::failed_closed(&failure.plugin, &message);
                decisions.push(PointRecord::event(input, end, Vec::new()));
                (failure.plugin.clone(), message)
            }
        };
        self.audit(decisions)?;
        Ok(Some(self.stopped_by(
            sink,
            &plugin,
            &message,
            "before the model request",
        )))
    }

    /// A request over `items` with the session's model, tools and answer cap, recorded in the
    /// audit log as it leaves; returns it with its size in bytes.
    pub(super) fn audited_request(
        &mut self,
        system: String,
        items: Vec<Item>,
        stream: bool,
    ) -> Result<(Request, u64), WorkerError> {
        let bytes: u64 = items.iter().map(|i| i.byte_len() as u64).sum();
        let request = Request {
            model: self.model_name(),
            system: Some(system),
            items,
            tools: self.tools.specs().to_vec(),
            max_tokens: self.config.model.max_tokens,
            stream,
        };
        self.audit(vec![AuditEvent::ModelRequest {
            provider: self.provider.name().to_owned(),
            model: Some(request.model.clone()),
            items: request.items.len() as u64,
            bytes,
        }])?;
        Ok((request, bytes))
    }

    /// Step 5: one model request built from history alone; commits the answer.
    fn request(
        &mut self,
        sink: &mut dyn TurnSink,
    ) -> Result<Result<Item, TurnOutcome>, WorkerError> {
        let items: Vec<Item> = as_sent(self.writer.records())
            .iter()
            .map(|r| r.item.clone())
            .collect();
        let stream = self.config.model.stream;
        let (request, bytes) = self.audited_request(self.system_prompt(), items, stream)?;
        let count = request.items.len();
        self.emit(
            sink,
            Event::RequestSent {
                items: u32::try_from(count).unwrap_or(u32::MAX),
                bytes,
            },
        );
        let cancel = self.cancel.clone();
        let result = {
            let _span = crate::trace::span("model request")
                .with("provider", self.provider.name())
                .with("items", count);
            self.provider.complete(
                &request,
                &mut |event| {
                    if let Some(event) = super::events::stream_event(event) {
                        sink.event(&event);
                    }
                },
                &cancel,
            )
        };
        // Written with the next batch (or when the turn returns): no write of its own.
        self.defer_audit(model_outcome(&result));
        match result {
            Ok(mut response) => {
                // Arguments with their keys in order, whatever order the model wrote them in:
                // what is shown, recorded and sent back does not depend on it.
                for call in &mut response.tool_calls {
                    call.arguments = crate::domain::canonical_json::sorted(&call.arguments);
                }
                self.last_stop = Some(response.stop_reason.clone());
                let item = response.to_item();
                let entry = Entry::new(Source::Provider, item.clone()).with_usage(response.usage);
                self.commit(sink, vec![entry])?;
                self.usage = response.usage.map(|u| ReportedUsage {
                    tokens: u.total(),
                    records: self.writer.records().len(),
                });
                if let Some(usage) = response.usage {
                    sink.event(&TurnEvent::Usage(usage));
                }
                self.emit(
                    sink,
                    Event::ResponseReceived {
                        text: response.text.clone(),
                        tool_calls: u32::try_from(response.tool_calls.len()).unwrap_or(u32::MAX),
                    },
                );
                Ok(Ok(item))
            }
            Err(LlmError::Cancelled { .. }) => {
                let reason =
                    "cancelled while the model was answering; the partial answer was not committed"
                        .to_owned();
                self.raise(sink, Alert::warn(HOST, reason.clone()));
                self.emit(sink, Event::TurnEnded("cancelled by the person".into()));
                Ok(Err(TurnOutcome::Interrupted { reason }))
            }
            Err(err) => {
                self.raise(sink, Alert::error("provider", err.to_string()));
                // The prompt stays committed; recording the failure beside it lets a resumed
                // session show the model that this request got no answer.
                let note = Item::System {
                    text: format!("[the model request failed and got no answer: {err}]"),
                };
                self.commit(sink, vec![Entry::new(Source::Host, note)])?;
                self.emit(sink, Event::TurnEnded("model request failed".into()));
                Err(WorkerError::Model(err))
            }
        }
    }
}

impl Worker {
    /// Ctrl-C came while the tools of `calls` ran: their results are committed, and the turn
    /// ends without asking the model again, naming what was running.
    fn cancelled_in_tools(&mut self, sink: &mut dyn TurnSink, calls: &[ToolCall]) -> TurnOutcome {
        // A call whose committed result is a denial did not run: Ctrl-C came at its approval.
        let ran = |call: &ToolCall| {
            self.writer.records().iter().rev().any(|r| {
                matches!(&r.item, Item::ToolResult { call_id, content, is_error }
                    if *call_id == call.id && crate::domain::result_shows_run(content, *is_error))
            })
        };
        let (ran, asked): (Vec<&ToolCall>, Vec<&ToolCall>) = calls.iter().partition(|c| ran(c));
        let names = |calls: &[&ToolCall]| {
            let mut names: Vec<String> = Vec::new();
            for call in calls {
                let name = format!("`{}`", crate::domain::escape::escape_capped(&call.name, 64));
                if !names.contains(&name) {
                    names.push(name);
                }
            }
            (names.join(", "), names.len())
        };
        let reason = match (names(&ran), names(&asked)) {
            ((ran, 1), _) => format!(
                "cancelled while {ran} was running; the results so far were committed and the model was not asked again"
            ),
            ((ran, n), _) if n > 1 => format!(
                "cancelled while {ran} were running; the results so far were committed and the model was not asked again"
            ),
            (_, (asked, _)) => format!(
                "cancelled at the approval of {asked}; nothing ran and the model was not asked again"
            ),
        };
        self.raise(sink, Alert::warn(HOST, reason.clone()));
        self.emit(sink, Event::TurnEnded("cancelled by the person".into()));
        TurnOutcome::Interrupted { reason }
    }
}

/// The audit record of how a model request ended: `ok`, `cancelled`, or `failed` with why.
pub(super) fn model_outcome(result: &Result<Response, LlmError>) -> AuditEvent {
    let (outcome, reason, usage) = match result {
        Ok(response) => ("ok", None, response.usage),
        Err(LlmError::Cancelled { .. }) => ("cancelled", None, None),
        Err(err) => ("failed", Some(err.to_string()), None),
    };
    AuditEvent::ModelOutcome {
        outcome: outcome.to_owned(),
        reason,
        usage,
    }
}
