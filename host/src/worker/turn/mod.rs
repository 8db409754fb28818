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

mod front;
mod instructions;
mod model;
mod points;

use points::{PointEnd, Verdict};

use crate::config::Config;
use crate::fileref::{self, Resolve, ShownFiles};
use crate::llm::{CancelToken, Provider, ToolSpec};
use crate::store::{AuditEvent, AuditLog, Entry, SessionWriter};
use crate::worker::chain::ChainEntry;
use crate::worker::hooks::Hooks;
use crate::worker::{
    Alert, Event, Item, PromptDecision, Segment, Source, SubmittedPrompt, TurnSink, WorkerError,
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
        Self {
            shown: shown_in(&parts.writer),
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
        self.shown = shown_in(&writer);
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

    pub(super) fn raise(&mut self, sink: &mut dyn TurnSink, alert: Alert) {
        sink.alert(&alert);
        let more = self.hooks.emit(&Event::AlertRaised(alert));
        for alert in more {
            sink.alert(&alert);
        }
    }

    pub(super) fn emit(&mut self, sink: &mut dyn TurnSink, event: Event) {
        for alert in self.hooks.emit(&event) {
            sink.alert(&alert);
        }
    }

    pub(super) fn commit(
        &mut self,
        sink: &mut dyn TurnSink,
        group: Vec<Entry>,
    ) -> Result<(), WorkerError> {
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

    pub(super) fn audit(&mut self, events: &[AuditEvent]) -> Result<(), WorkerError> {
        self.audit.append_batch(events)?;
        Ok(())
    }

    /// Run one turn for `segments` (a parsed prompt).
    pub fn submit(
        &mut self,
        segments: &[Segment],
        sink: &mut dyn TurnSink,
    ) -> Result<TurnOutcome, WorkerError> {
        let _span = tracing::info_span!("turn", session = self.writer.id()).entered();
        self.hooks.new_turn();
        let typed = Segment::typed(segments);
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
        let (end, decisions) = self.run_point(sink, "on-prompt-submit", |plugin| {
            plugin.on_prompt_submit(&prompt).map(|d| match d {
                PromptDecision::Continue => Verdict::Pass(Some("continue")),
                PromptDecision::ContinueWith(items) => Verdict::Add(items),
                PromptDecision::Cancel(reason) => Verdict::Cancel(reason),
            })
        });
        let added = match end {
            PointEnd::Items(items) => items,
            PointEnd::Cancelled { plugin, reason } => {
                self.audit(&decisions)?;
                return self.cancelled(sink, plugin, reason);
            }
            PointEnd::FailedClosed { plugin, message } => {
                self.audit(&decisions)?;
                let reason = format!("plugin failed and its policy is closed: {message}");
                return self.cancelled(sink, plugin, reason);
            }
        };

        // 3. Commit the prompt group (project instructions first when they are new), then
        //    audit what it sends.
        let (mut group, mut events): (Vec<Entry>, Vec<AuditEvent>) =
            self.instructions_entry(sink).into_iter().unzip();
        group.extend(
            resolved
                .items
                .iter()
                .cloned()
                .map(|(source, item)| Entry::new(source, item)),
        );
        group.extend(added);
        self.commit(sink, group)?;
        sink.files_attached(&resolved.refs);
        events.extend(decisions);
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
}

/// What the session's history already shows, for dedup.
fn shown_in(writer: &SessionWriter) -> ShownFiles {
    let history: Vec<(Source, Item)> = writer
        .records()
        .iter()
        .map(|r| (r.source.clone(), r.item.clone()))
        .collect();
    ShownFiles::from_history(&history)
}

/// System prompt sent when the configuration sets none.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a careful assistant working in the user's workspace. \
Files the user references appear in the conversation as system messages or tool results. \
Use the read_file and list_files tools to look at more of the workspace when you need to; \
when a file was cut, read_file with an offset gives the rest.";
