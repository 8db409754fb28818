//! One turn, from prompt to answer, with the commit rules of the design:
//!
//! 1. resolve `@path` references (failures are Warn alerts, never silent);
//! 2. run the interceptor chain (`cancel` stops it and nothing of the prompt is committed);
//! 3. commit `[user, file items…, interceptor items…]` as one group;
//! 4. before every model request, commit pending notifications and `pre-llm-request` items,
//!    then build the request from history alone;
//! 5. commit the answer; run tool calls and commit their results; back to 4;
//! 6. `on-turn-end` may continue the turn, at most `max_continuations` times;
//! 7. hooks see every event.

use crate::config::Config;
use crate::fileref::{self, Resolve, ShownFiles};
use crate::llm::{CancelToken, LlmError, Provider, Request, ToolSpec};
use crate::store::{AuditEvent, AuditLog, Entry, SessionWriter};
use crate::worker::chain::{ChainEntry, Step, step};
use crate::worker::hooks::Hooks;
use crate::worker::{
    Alert, Event, Item, PromptDecision, RequestInfo, Segment, Source, SubmittedPrompt,
    TurnEndDecision, TurnInfo, TurnSink, WorkerError,
};

/// Source name of alerts the worker itself raises.
const HOST: &str = "host";

/// How a turn ended.
#[derive(Debug, Clone, PartialEq)]
pub enum TurnOutcome {
    /// The model answered; this is its last answer.
    Answered {
        /// Answer text.
        text: String,
    },
    /// An interceptor cancelled the prompt (or failed closed); nothing of it was committed.
    Cancelled {
        /// Plugin name.
        plugin: String,
        /// The reason shown to the person.
        reason: String,
    },
    /// The turn stopped early: a closed plugin failure after the prompt was committed, or the
    /// step limit.
    Stopped {
        /// Why.
        reason: String,
    },
    /// The person cancelled the model request (Ctrl-C); the partial answer was not committed.
    Interrupted {
        /// What the person is told.
        reason: String,
    },
}

/// Everything one session's turns need.
pub struct Worker {
    writer: SessionWriter,
    audit: AuditLog,
    provider: Box<dyn Provider>,
    resolver: Box<dyn Resolve>,
    chain: Vec<ChainEntry>,
    hooks: Hooks,
    config: Config,
    shown: ShownFiles,
    tools: Vec<ToolSpec>,
    cancel: CancelToken,
}

/// The parts a [`Worker`] is assembled from (see `worker::setup` for the standard assembly).
pub struct WorkerParts {
    /// The session, opened for writing.
    pub writer: SessionWriter,
    /// Its audit log.
    pub audit: AuditLog,
    /// The model provider.
    pub provider: Box<dyn Provider>,
    /// The resolver of `@path` references and file tools.
    pub resolver: Box<dyn Resolve>,
    /// Interceptors in chain order.
    pub chain: Vec<ChainEntry>,
    /// Hooks.
    pub hooks: Hooks,
    /// Configuration.
    pub config: Config,
}

impl Worker {
    /// A worker over an open session.
    pub fn new(parts: WorkerParts) -> Self {
        let history: Vec<(Source, Item)> = parts
            .writer
            .records()
            .iter()
            .map(|r| (r.source.clone(), r.item.clone()))
            .collect();
        Self {
            shown: ShownFiles::from_history(&history),
            writer: parts.writer,
            audit: parts.audit,
            provider: parts.provider,
            resolver: parts.resolver,
            chain: parts.chain,
            hooks: parts.hooks,
            config: parts.config,
            tools: fileref::tools::specs()
                .into_iter()
                .map(|spec| ToolSpec {
                    name: spec.name.to_owned(),
                    description: spec.description.to_owned(),
                    input_schema: spec.parameters,
                })
                .collect(),
            cancel: CancelToken::new(),
        }
    }

    /// Continue with another session (same plugins, provider and configuration); what was
    /// shown is taken from the new session's history.
    pub fn switch_session(&mut self, writer: SessionWriter, audit: AuditLog) {
        let history: Vec<(Source, Item)> = writer
            .records()
            .iter()
            .map(|r| (r.source.clone(), r.item.clone()))
            .collect();
        self.shown = ShownFiles::from_history(&history);
        self.writer = writer;
        self.audit = audit;
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.writer.id()
    }

    /// A token that cancels the running model request (e.g. from a Ctrl-C handler).
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// The session's history.
    pub fn history(&self) -> impl ExactSizeIterator<Item = &Item> + '_ {
        self.writer.items()
    }

    fn raise(&mut self, sink: &mut dyn TurnSink, alert: Alert) {
        sink.alert(&alert);
        let more = self.hooks.emit(&Event::AlertRaised(alert));
        for alert in more {
            sink.alert(&alert);
        }
    }

    fn emit(&mut self, sink: &mut dyn TurnSink, event: Event) {
        for alert in self.hooks.emit(&event) {
            sink.alert(&alert);
        }
    }

    fn commit(&mut self, sink: &mut dyn TurnSink, group: Vec<Entry>) -> Result<(), WorkerError> {
        if group.is_empty() {
            return Ok(());
        }
        self.writer.commit_entries(&group)?;
        let items: Vec<(Source, Item)> = group.into_iter().map(|e| (e.source, e.item)).collect();
        self.shown.record(&items);
        for (source, item) in &items {
            if *source == Source::Notify {
                self.emit(sink, Event::Notification(item.text().to_owned()));
            }
        }
        self.emit(sink, Event::ItemsCommitted(items));
        Ok(())
    }

    fn audit(&mut self, events: &[AuditEvent]) -> Result<(), WorkerError> {
        self.audit.append_batch(events)?;
        Ok(())
    }

    fn decision(plugin: &str, hook: &str, decision: &str, reason: Option<String>) -> AuditEvent {
        AuditEvent::PluginDecision {
            plugin: plugin.to_owned(),
            hook: hook.to_owned(),
            decision: decision.to_owned(),
            reason,
        }
    }

    /// Run one turn for `segments` (a parsed prompt).
    pub fn submit(
        &mut self,
        segments: &[Segment],
        sink: &mut dyn TurnSink,
    ) -> Result<TurnOutcome, WorkerError> {
        let _span = tracing::info_span!("turn", session = self.writer.id()).entered();
        self.hooks.new_turn();
        let typed: String = segments
            .iter()
            .map(|s| match s {
                Segment::Text { text } => text.as_str(),
                Segment::FileRef { raw, .. } => raw.as_str(),
            })
            .collect();
        self.emit(sink, Event::PromptSubmitted(typed.clone()));

        // 1. File references.
        let resolved = fileref::resolve_prompt(
            segments,
            self.resolver.as_mut(),
            &self.config.fileref,
            &self.shown,
        );
        for alert in resolved.alerts.clone() {
            self.raise(sink, alert);
        }

        // 2. Interceptor chain.
        let prompt = SubmittedPrompt {
            session: self.writer.id().to_owned(),
            text: typed.clone(),
            items: resolved
                .items
                .iter()
                .map(|(_, item)| item.clone())
                .collect(),
        };
        let mut group: Vec<Entry> = resolved
            .items
            .iter()
            .cloned()
            .map(|(source, item)| Entry::new(source, item))
            .collect();
        let mut decisions = Vec::new();
        for index in 0..self.chain.len() {
            let entry = &mut self.chain[index];
            let name = entry.plugin.name().to_owned();
            let _span = tracing::debug_span!("interceptor", plugin = %name).entered();
            let result = entry.plugin.on_prompt_submit(&prompt);
            match step(entry, result, |d| match d {
                PromptDecision::ContinueWith(items) => Some(items.as_slice()),
                _ => None,
            }) {
                Step::Answer(PromptDecision::Continue) => {
                    decisions.push(Self::decision(&name, "on-prompt-submit", "continue", None));
                }
                Step::Answer(PromptDecision::ContinueWith(items)) => {
                    decisions.push(Self::decision(
                        &name,
                        "on-prompt-submit",
                        "continue-with",
                        Some(format!("{} items", items.len())),
                    ));
                    let source = Source::Plugin(name.clone());
                    group.extend(
                        items
                            .into_iter()
                            .map(|item| Entry::new(source.clone(), item)),
                    );
                }
                Step::Answer(PromptDecision::Cancel(reason)) => {
                    decisions.push(Self::decision(
                        &name,
                        "on-prompt-submit",
                        "cancel",
                        Some(reason.clone()),
                    ));
                    self.audit(&decisions)?;
                    return self.cancelled(sink, name, reason);
                }
                Step::FailedOpen(message) => {
                    decisions.push(Self::decision(
                        &name,
                        "on-prompt-submit",
                        "failed-open",
                        Some(message.clone()),
                    ));
                    self.plugin_failed(sink, &name, &message, false);
                }
                Step::FailedClosed(message) => {
                    decisions.push(Self::decision(
                        &name,
                        "on-prompt-submit",
                        "failed-closed",
                        Some(message.clone()),
                    ));
                    self.audit(&decisions)?;
                    self.plugin_failed(sink, &name, &message, true);
                    return self.cancelled(
                        sink,
                        name,
                        format!("plugin failed and its policy is closed: {message}"),
                    );
                }
            }
        }

        // 3. Commit the prompt group, then audit what it sends.
        self.commit(sink, group)?;
        let mut events = decisions;
        events.extend(resolved.audit.iter().map(|f| AuditEvent::FileSent {
            path: f.path.clone(),
            bytes: f.bytes,
            sha256: f.sha256.clone(),
            truncated: f.truncated,
        }));
        self.audit(&events)?;

        self.run_model_loop(sink, &typed)
    }

    fn cancelled(
        &mut self,
        sink: &mut dyn TurnSink,
        plugin: String,
        reason: String,
    ) -> Result<TurnOutcome, WorkerError> {
        self.raise(
            sink,
            Alert::error(
                format!("plugin:{plugin}"),
                format!("turn cancelled: {reason}"),
            ),
        );
        self.emit(
            sink,
            Event::TurnEnded(format!("cancelled by plugin {plugin}")),
        );
        Ok(TurnOutcome::Cancelled { plugin, reason })
    }

    fn plugin_failed(
        &mut self,
        sink: &mut dyn TurnSink,
        plugin: &str,
        message: &str,
        closed: bool,
    ) {
        let level_message = if closed {
            format!("{message} (failure policy: closed)")
        } else {
            format!("{message} (failure policy: open; continuing without it)")
        };
        let alert = if closed {
            Alert::error(format!("plugin:{plugin}"), level_message)
        } else {
            Alert::warn(format!("plugin:{plugin}"), level_message)
        };
        self.raise(sink, alert);
        self.emit(
            sink,
            Event::PluginFailed {
                plugin: plugin.to_owned(),
                message: message.to_owned(),
            },
        );
    }

    /// Steps 4–6: request, answer, tools, continuations.
    fn run_model_loop(
        &mut self,
        sink: &mut dyn TurnSink,
        typed: &str,
    ) -> Result<TurnOutcome, WorkerError> {
        let mut continuations = 0u32;
        let mut step_index = 0u32;
        loop {
            if step_index >= self.config.worker.max_steps {
                let reason = format!(
                    "the turn reached its limit of {} model requests (worker.max_steps)",
                    self.config.worker.max_steps
                );
                self.raise(sink, Alert::warn(HOST, reason.clone()));
                self.emit(sink, Event::TurnEnded(reason.clone()));
                return Ok(TurnOutcome::Stopped { reason });
            }
            if let Some(outcome) = self.commit_pending(sink, typed, step_index)? {
                return Ok(outcome);
            }
            let answer = match self.request(sink)? {
                Ok(answer) => answer,
                Err(outcome) => return Ok(outcome),
            };
            step_index += 1;
            let calls = match &answer {
                Item::Assistant { tool_calls, .. } => tool_calls.clone(),
                _ => Vec::new(),
            };
            if !calls.is_empty() {
                let mut results = Vec::with_capacity(calls.len());
                for call in &calls {
                    sink.tool_started(&call.name, &call.arguments);
                    let result =
                        fileref::tools::run(call, self.resolver.as_mut(), &self.config.fileref);
                    let is_error = matches!(result, Item::ToolResult { is_error: true, .. });
                    self.emit(
                        sink,
                        Event::ToolRan {
                            name: call.name.clone(),
                            call_id: call.id.clone(),
                            is_error,
                        },
                    );
                    results.push(Entry::new(Source::Tool, result));
                }
                self.commit(sink, results)?;
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
            let mut more: Vec<Entry> = Vec::new();
            let mut decisions = Vec::new();
            for index in 0..self.chain.len() {
                let entry = &mut self.chain[index];
                let name = entry.plugin.name().to_owned();
                let result = entry.plugin.on_turn_end(&info);
                match step(entry, result, |d| match d {
                    TurnEndDecision::ContinueWith(items) => Some(items.as_slice()),
                    TurnEndDecision::Finish => None,
                }) {
                    Step::Answer(TurnEndDecision::Finish) => {
                        decisions.push(Self::decision(&name, "on-turn-end", "finish", None));
                    }
                    Step::Answer(TurnEndDecision::ContinueWith(items)) => {
                        decisions.push(Self::decision(
                            &name,
                            "on-turn-end",
                            "continue-with",
                            Some(format!("{} items", items.len())),
                        ));
                        let source = Source::Plugin(name.clone());
                        more.extend(
                            items
                                .into_iter()
                                .map(|item| Entry::new(source.clone(), item)),
                        );
                    }
                    Step::FailedOpen(message) => {
                        decisions.push(Self::decision(
                            &name,
                            "on-turn-end",
                            "failed-open",
                            Some(message.clone()),
                        ));
                        self.plugin_failed(sink, &name, &message, false);
                    }
                    Step::FailedClosed(message) => {
                        decisions.push(Self::decision(
                            &name,
                            "on-turn-end",
                            "failed-closed",
                            Some(message.clone()),
                        ));
                        self.audit(&decisions)?;
                        self.plugin_failed(sink, &name, &message, true);
                        let reason =
                            format!("plugin {name} failed at turn end and its policy is closed");
                        self.emit(sink, Event::TurnEnded(reason.clone()));
                        return Ok(TurnOutcome::Stopped { reason });
                    }
                }
            }
            self.audit(&decisions)?;
            if more.is_empty() {
                self.emit(sink, Event::TurnEnded("answered".into()));
                return Ok(TurnOutcome::Answered { text });
            }
            if continuations >= self.config.worker.max_continuations {
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
            continuations += 1;
            self.commit(sink, more)?;
        }
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
        let info = RequestInfo {
            session: self.writer.id().to_owned(),
            prompt: typed.to_owned(),
            step: step_index,
            history_items: u32::try_from(self.writer.records().len()).unwrap_or(u32::MAX),
        };
        let mut decisions = Vec::new();
        for index in 0..self.chain.len() {
            let entry = &mut self.chain[index];
            let name = entry.plugin.name().to_owned();
            let result = entry.plugin.pre_llm_request(&info);
            match step(entry, result, |items| Some(items.as_slice())) {
                Step::Answer(items) => {
                    if !items.is_empty() {
                        decisions.push(Self::decision(
                            &name,
                            "pre-llm-request",
                            "continue-with",
                            Some(format!("{} items", items.len())),
                        ));
                    }
                    let source = Source::Plugin(name.clone());
                    group.extend(
                        items
                            .into_iter()
                            .map(|item| Entry::new(source.clone(), item)),
                    );
                }
                Step::FailedOpen(message) => {
                    decisions.push(Self::decision(
                        &name,
                        "pre-llm-request",
                        "failed-open",
                        Some(message.clone()),
                    ));
                    self.plugin_failed(sink, &name, &message, false);
                }
                Step::FailedClosed(message) => {
                    decisions.push(Self::decision(
                        &name,
                        "pre-llm-request",
                        "failed-closed",
                        Some(message.clone()),
                    ));
                    self.audit(&decisions)?;
                    self.plugin_failed(sink, &name, &message, true);
                    let reason = format!(
                        "plugin {name} failed before the model request and its policy is closed"
                    );
                    self.emit(sink, Event::TurnEnded(reason.clone()));
                    return Ok(Some(TurnOutcome::Stopped { reason }));
                }
            }
        }
        self.commit(sink, group)?;
        self.audit(&decisions)?;
        Ok(None)
    }

    /// Step 5: one model request built from history alone; commits the answer.
    fn request(
        &mut self,
        sink: &mut dyn TurnSink,
    ) -> Result<Result<Item, TurnOutcome>, WorkerError> {
        let items: Vec<Item> = self.writer.items().cloned().collect();
        let bytes: u64 = items.iter().map(|i| i.byte_len() as u64).sum();
        let count = items.len();
        let request = Request {
            model: self
                .config
                .model
                .name
                .clone()
                .unwrap_or_else(|| self.provider.model().to_owned()),
            system: Some(
                self.config
                    .model
                    .system_prompt
                    .clone()
                    .unwrap_or_else(|| DEFAULT_SYSTEM_PROMPT.to_owned()),
            ),
            items,
            tools: self.tools.clone(),
            max_tokens: self.config.model.max_tokens,
            stream: self.config.model.stream,
        };
        self.audit(&[AuditEvent::ModelRequest {
            provider: self.provider.name().to_owned(),
            items: count as u64,
            bytes,
        }])?;
        self.emit(
            sink,
            Event::RequestSent {
                items: u32::try_from(count).unwrap_or(u32::MAX),
                bytes,
            },
        );
        let cancel = self.cancel.clone();
        let result = {
            let _span = tracing::info_span!(
                "model request",
                provider = self.provider.name(),
                items = count
            )
            .entered();
            self.provider
                .complete(&request, &mut |event| sink.model_event(event), &cancel)
        };
        match result {
            Ok(response) => {
                let item = response.to_item();
                self.commit(sink, vec![Entry::new(Source::Provider, item.clone())])?;
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
                self.emit(sink, Event::TurnEnded("model request failed".into()));
                Err(WorkerError::Model(err))
            }
        }
    }
}

/// System prompt sent when the configuration sets none.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a careful assistant working in the user's workspace. \
Files the user references appear in the conversation as system messages or tool results. \
Use the read_file and list_files tools to look at more of the workspace when you need to; \
when a file was cut, read_file with an offset gives the rest.";
