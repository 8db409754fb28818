//! One turn, from prompt to answer, with the commit rules of the design:
//!
//! 1. resolve `@path` references (failures are Warn alerts, never silent);
//! 2. run the interceptor chain (`cancel` stops it and nothing of the prompt is committed);
//! 3. commit `[user, file items…, interceptor items…]` as one group;
//! 4. before every model request, commit pending notifications (before a turn's first request
//!    also the plan reminder, when `[plan]`'s rule finds one due) and `pre-llm-request` items,
//!    then build the request from history alone;
//! 5. commit the answer; run tool calls (`pre-tool-call`, approval, the tool, `post-tool-call`)
//!    and commit their results; back to 4;
//! 6. `on-turn-end` may continue the turn, at most `max_continuations` times;
//! 7. hooks see every event.
//!
//! Between turns a front end may also run the person's own command (`person`), compact
//! (`compact`) or undo.

mod checkpoint;
mod child;
mod compact;
mod context;
mod escalation;
mod events;
pub(crate) mod file_change;
mod front;
mod instructions;
mod limits;
mod model;
mod person;
mod points;
mod redacting;
mod referenced;
mod rules;
mod served;
mod shell_checkpoint;
mod system;
mod tool_calls;

pub use compact::{BYTES_PER_TOKEN, Compacted};
pub use context::ContextPart;
pub use person::PERSON_RAN;
pub use served::ServedCall;

#[cfg(test)]
mod tests;

use std::borrow::Cow;
use std::collections::HashSet;

use sha2::Digest;

use crate::config::Config;
use crate::domain::{Alert, Entry, Event, Mode, Resolve, Segment, TurnEvent, TurnSink};
use crate::fileref::{self, ShownFiles};
use crate::llm::{CancelToken, Provider};
use crate::store::{
    AuditEvent, AuditLog, PointEndRecord, PointInputRecord, PointRecord, SessionWriter,
};
use crate::worker::WorkerError;
use crate::worker::chain::{ChainEntry, PointEnd};
use crate::worker::hooks::Hooks;
use crate::worker::prompt::prepare;
use crate::worker::tools::ToolRegistry;
use crate::worker::validate::call_ids;

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
    /// The turn stopped early: a closed plugin failure after the prompt was committed.
    Stopped {
        /// Why.
        reason: String,
    },
    /// The turn reached a limit (`worker.max_steps`, or the model repeating the same calls
    /// with the same results); a committed note says so, and `continue` resumes it.
    Limited {
        /// Why, and how to go on.
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
    /// Tool-call ids the session's history holds (kept as groups are committed, so no call
    /// point scans the whole history).
    call_ids: HashSet<String>,
    tools: ToolRegistry,
    /// Tools the person approved with `always` (for as long as this worker runs).
    always_approved: HashSet<String>,
    /// `tool@host:port` of calls to a host the person allowed (an `approve = "per-host"`
    /// plugin's), for as long as this worker runs.
    hosts_approved: HashSet<String>,
    /// The permission mode in force (from `[tools] mode`; `/mode` changes it).
    mode: Mode,
    cancel: CancelToken,
    usage: Option<compact::ReportedUsage>,
    /// Audit records waiting for the next audit batch (empty between turns).
    deferred_audit: Vec<AuditEvent>,
    /// What built-in writes changed, for `warden undo` (opened on the first write).
    checkpoints: Option<checkpoint::CheckpointState>,
    /// Alerts of the assembly (an MCP server that failed to start), raised at the next turn.
    pending_alerts: Vec<Alert>,
    /// The files the running turn changed, call by call (for its `turn_ended` event).
    changes: file_change::TurnChanges,
    /// A turn has started on this worker (the next one is no session start).
    started: bool,
    /// Why the model stopped its last answer (`max_tokens` tells a front end the answer was
    /// cut).
    last_stop: Option<crate::llm::StopReason>,
    /// Known secret values: masked in what tools and the resolver return and in every item
    /// committed but the person's own prompt.
    redactor: std::sync::Arc<crate::domain::redact::Redactor>,
}

/// The parts a [`Worker`] is assembled from (the `setup` layer above holds the standard assembly).
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
    /// The tools the model may call.
    pub tools: ToolRegistry,
    /// Configuration.
    pub config: Config,
}

impl Worker {
    /// A worker over an open session.
    pub fn new(mut parts: WorkerParts) -> Self {
        let redactor = std::sync::Arc::new(crate::domain::redact::Redactor::new(
            crate::config::known_secrets(&parts.config, utf8_vars()),
        ));
        parts.tools.set_redactor(std::sync::Arc::clone(&redactor));
        let resolver: Box<dyn Resolve> = if redactor.is_empty() {
            parts.resolver
        } else {
            Box::new(redacting::Redacting::new(
                parts.resolver,
                std::sync::Arc::clone(&redactor),
            ))
        };
        Self {
            shown: shown_in(&parts.writer),
            call_ids: ids_in(&parts.writer),
            writer: parts.writer,
            audit: parts.audit,
            provider: parts.provider,
            resolver,
            chain: parts.chain,
            hooks: parts.hooks,
            mode: parts.config.tools.mode,
            config: parts.config,
            tools: parts.tools,
            always_approved: HashSet::new(),
            hosts_approved: HashSet::new(),
            cancel: CancelToken::new(),
            usage: None,
            deferred_audit: Vec::new(),
            checkpoints: None,
            pending_alerts: Vec::new(),
            changes: file_change::TurnChanges::default(),
            started: false,
            last_stop: None,
            redactor,
        }
    }

    /// Raise `alert` at the start of the next turn (what the assembly found, such as an MCP
    /// server that failed to start).
    pub fn defer_alert(&mut self, alert: Alert) {
        self.pending_alerts.push(alert);
    }

    /// Continue with another session (same plugins, provider and configuration); what was
    /// shown is taken from the new session's history.
    pub fn switch_session(&mut self, writer: SessionWriter, audit: AuditLog) {
        self.shown = shown_in(&writer);
        self.call_ids = ids_in(&writer);
        self.writer = writer;
        self.audit = audit;
        self.usage = None;
        self.checkpoints = None;
        self.started = false;
    }

    /// The permission mode in force.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    /// The `[[rules]]` in force (those saved by "always" in this chat included).
    pub fn rules(&self) -> &crate::domain::rules::RuleSet {
        &self.config.rules
    }

    /// Remove the user layer's rule `id` from its file and from the rules in force.
    pub fn remove_user_rule(&mut self, id: &str) -> Result<(), String> {
        let rules = &mut self.config.rules;
        let Some(at) = rules.rules.iter().position(|r| r.id == id) else {
            return Err(format!("no rule `{id}` is in force"));
        };
        let layer = rules.rules[at].origin.layer.clone();
        let file = match (&rules.rules[at].origin.file, layer.as_str()) {
            (Some(file), "user") => file.clone(),
            _ => {
                return Err(format!(
                    "rule `{id}` comes from the {layer} layer; only the user layer's rules are removed here"
                ));
            }
        };
        let workspace = rules.rules[at].workspace.as_deref();
        crate::config::remove_user_rule(&file, id, workspace).map_err(|err| err.to_string())?;
        rules.rules.remove(at);
        Ok(())
    }

    /// Change the permission mode for the rest of this worker's life (`/mode` in chat). The
    /// caller checks it against managed policy's `max_mode` and lock first; this refuses a
    /// mode above `policy.max_mode` all the same, returning the cap.
    pub fn set_mode(&mut self, mode: Mode) -> Result<(), Mode> {
        match self.config.policy.max_mode {
            Some(max) if mode > max => Err(max),
            _ => {
                self.mode = mode;
                Ok(())
            }
        }
    }

    /// Undo the file changes of the last `turns` turns of this session (see [`crate::worker::undo`])
    /// and commit the host item saying what was undone.
    pub fn undo(
        &mut self,
        sink: &mut dyn TurnSink,
        turns: usize,
        force: bool,
    ) -> Result<crate::worker::undo::UndoReport, WorkerError> {
        let dir = self
            .writer
            .path()
            .parent()
            .map(std::path::Path::to_path_buf)
            .unwrap_or_default();
        let workspace = self.writer.header().workspace.clone();
        let report =
            crate::worker::undo::undo(&dir, &workspace, &self.config.fileref, turns, force)
                .map_err(WorkerError::Undo)?;
        self.checkpoints = None;
        if !report.lines.is_empty() {
            let note = crate::domain::Item::System {
                text: report.note(),
            };
            self.commit(sink, vec![Entry::new(crate::domain::Source::Host, note)])?;
        }
        Ok(report)
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        self.writer.id()
    }

    /// The workspace the session records.
    pub fn workspace(&self) -> &std::path::Path {
        &self.writer.header().workspace
    }

    /// The session this one is a child of, if it is one.
    pub fn parent_session(&self) -> Option<&str> {
        self.writer.header().parent.as_deref()
    }

    /// A token that cancels the running model request (e.g. from a Ctrl-C handler).
    pub fn cancel_token(&self) -> CancelToken {
        self.cancel.clone()
    }

    /// The session's history.
    pub fn history(&self) -> impl ExactSizeIterator<Item = &crate::domain::Item> + '_ {
        self.writer.items()
    }

    /// `group` with every known secret masked, in all but the person's own prompt.
    fn masked(&self, group: Vec<Entry>) -> Vec<Entry> {
        if self.redactor.is_empty() {
            return group;
        }
        group
            .into_iter()
            .map(|mut entry| {
                if entry.source != crate::domain::Source::User {
                    entry.item = redacting::item(&self.redactor, entry.item);
                }
                entry
            })
            .collect()
    }

    /// Why the model stopped its last answer, when one came.
    pub fn last_stop_reason(&self) -> Option<&crate::llm::StopReason> {
        self.last_stop.as_ref()
    }

    /// The session's records, with what the host recorded about each item (its usage …).
    pub fn records(&self) -> &[crate::store::Record] {
        self.writer.records()
    }

    pub(super) fn raise(&mut self, sink: &mut dyn TurnSink, alert: Alert) {
        sink.event(&TurnEvent::Alert(alert.clone()));
        let more = self.hooks.emit(&Event::AlertRaised(alert));
        for alert in more {
            sink.event(&TurnEvent::Alert(alert));
        }
    }

    pub(super) fn emit(&mut self, sink: &mut dyn TurnSink, event: Event) {
        for alert in self.hooks.emit(&event) {
            sink.event(&TurnEvent::Alert(alert));
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
        let group = self.masked(group);
        let bytes = self.writer.commit_entries(&group)?.bytes;
        tracing::debug!(items = group.len(), bytes, "commit group");
        self.shown.record(&group);
        self.call_ids.extend(
            call_ids(group.iter().map(|e| &e.item))
                .into_iter()
                .map(str::to_owned),
        );
        for entry in &group {
            if entry.source == crate::domain::Source::Notify {
                self.emit(sink, Event::Notification(entry.item.text().to_owned()));
            }
        }
        let seqs = self.last_seqs(group.len());
        for (entry, seq) in group.iter().zip(seqs) {
            sink.event(&TurnEvent::ItemCommitted {
                seq,
                source: entry.source.to_string(),
                item: entry.item.clone(),
            });
        }
        self.emit(sink, Event::ItemsCommitted(group));
        Ok(())
    }

    /// Sequence numbers of the last `n` committed records, in order.
    pub(super) fn last_seqs(&self, n: usize) -> Vec<u64> {
        let records = self.writer.records();
        records[records.len().saturating_sub(n)..]
            .iter()
            .map(|r| r.seq)
            .collect()
    }

    /// Append `events` to the audit log as one batch, after the point records waiting for it.
    /// Events given by value are not copied on their way to export.
    pub(super) fn audit<'a>(
        &mut self,
        events: impl Into<Cow<'a, [AuditEvent]>>,
    ) -> Result<(), WorkerError> {
        let events = events.into();
        if self.deferred_audit.is_empty() {
            self.audit.append_batch(events)?;
        } else {
            let mut batch = std::mem::take(&mut self.deferred_audit);
            match events {
                Cow::Borrowed(events) => batch.extend_from_slice(events),
                Cow::Owned(events) => batch.extend(events),
            }
            self.audit.append_batch(batch)?;
        }
        Ok(())
    }

    /// An audit record written with the next audit batch, or when the turn returns at the
    /// latest: recording a call point costs no write (and no fsync) of its own.
    pub(super) fn defer_audit(&mut self, event: AuditEvent) {
        self.deferred_audit.push(event);
    }

    /// Run one turn for `prompt`, as the person typed it (`@path` references are parsed here).
    pub fn submit(
        &mut self,
        prompt: &str,
        sink: &mut dyn TurnSink,
    ) -> Result<TurnOutcome, WorkerError> {
        self.submit_segments(&fileref::parse(prompt).segments, sink)
    }

    /// The chain's interceptors start a turn, and are told what it is.
    pub(super) fn new_chain_turn(&mut self) {
        let session_start = (!self.started).then(|| {
            if self.writer.items().next().is_none() {
                "startup"
            } else {
                "resume"
            }
        });
        self.started = true;
        let context = self.turn_context(session_start);
        for entry in &mut self.chain {
            entry.plugin.new_turn();
            entry.plugin.set_context(&context);
        }
    }

    /// What a turn of this session is, as command hooks are told.
    fn turn_context(&self, session_start: Option<&'static str>) -> crate::domain::TurnContext {
        let header = self.writer.header();
        crate::domain::TurnContext {
            session: self.writer.id().to_owned(),
            transcript_path: Some(self.writer.path().display().to_string()),
            cwd: header.workspace.display().to_string(),
            mode: self.mode,
            model: self.provider.model().to_owned(),
            turn_id: uuid::Uuid::now_v7().to_string(),
            session_start,
            parent: header.parent.clone(),
        }
    }

    /// The session is left (`reason` as Claude Code names it: `prompt_input_exit`, `clear`,
    /// `resume`, `other`): the chain's interceptors that observe it (command hooks at
    /// `SessionEnd`) are told.
    pub fn end_session(&mut self, reason: &str) {
        let context = self.turn_context(None);
        for entry in &mut self.chain {
            entry.plugin.set_context(&context);
            entry.plugin.on_session_end(reason);
        }
    }

    /// Run one turn for `segments`, for front ends that send references already parsed. In a
    /// child session the turn's end, however it ends, is reported to the parent's inbox.
    pub fn submit_segments(
        &mut self,
        segments: &[Segment],
        sink: &mut dyn TurnSink,
    ) -> Result<TurnOutcome, WorkerError> {
        self.checkpoint_new_turn();
        self.changes = file_change::TurnChanges::default();
        sink.event(&TurnEvent::TurnStarted {
            session: self.writer.id().to_owned(),
        });
        let mut result = self.run_turn(segments, sink);
        // Records still waiting are written before the turn returns, and the chain head after
        // them is recorded outside the log (`audit.head`).
        if let Err(err) = self.audit(&[])
            && result.is_ok()
        {
            result = Err(err);
        }
        if let Err(err) = self.writer.record_audit_head() {
            // The log stays whole; only the turn's tail is anchored by the next commit instead.
            tracing::warn!(session = self.writer.id(), "audit head not recorded: {err}");
            self.raise(
                sink,
                Alert::warn(
                    "audit",
                    format!("the audit chain head was not recorded at the turn's end: {err}"),
                ),
            );
        }
        self.report_to_parent(sink, &result);
        let (outcome, reason) = match &result {
            Ok(TurnOutcome::Answered { .. }) => ("answered", None),
            Ok(TurnOutcome::Cancelled { reason, .. }) => ("cancelled", Some(reason.clone())),
            Ok(TurnOutcome::Stopped { reason }) => ("stopped", Some(reason.clone())),
            Ok(TurnOutcome::Limited { reason }) => ("limited", Some(reason.clone())),
            Ok(TurnOutcome::Interrupted { reason }) => ("interrupted", Some(reason.clone())),
            Err(err) => ("failed", Some(err.to_string())),
        };
        sink.event(&TurnEvent::TurnEnded {
            outcome: outcome.to_owned(),
            reason,
            changes: std::mem::take(&mut self.changes).summary(),
        });
        result
    }

    fn run_turn(
        &mut self,
        segments: &[Segment],
        sink: &mut dyn TurnSink,
    ) -> Result<TurnOutcome, WorkerError> {
        let turn_span = crate::trace::span("turn")
            .with("session", self.writer.id())
            .with("gen_ai.conversation.id", self.writer.id());
        for alert in std::mem::take(&mut self.pending_alerts) {
            self.raise(sink, alert);
        }
        self.hooks.new_turn();
        self.resolver.new_turn();
        self.tools.new_turn();
        self.new_chain_turn();
        self.emit(sink, Event::PromptSubmitted(Segment::typed(segments)));

        // 1–2. File references, then the interceptor chain.
        let prepared = {
            let _stage = crate::trace::span("prompt stage");
            prepare(
                segments,
                self.resolver.as_mut(),
                &mut self.chain,
                &self.config.fileref,
                &self.shown,
                self.writer.id(),
                &self.call_ids,
            )
        };
        for alert in prepared.resolved.alerts.clone() {
            self.raise(sink, alert);
        }
        let typed = prepared.typed;
        if self.config.telemetry.include_prompts {
            turn_span.set("gen_ai.prompt", typed.as_str());
        }
        let resolved = prepared.resolved;
        let (end, mut decisions) = self.report(sink, prepared.run);
        let prompt_sha256 = hex::encode(sha2::Sha256::digest(typed.as_bytes()));
        decisions.insert(
            0,
            AuditEvent::TurnStarted {
                prompt_sha256: prompt_sha256.clone(),
                prompt_bytes: typed.len() as u64,
            },
        );
        let cancelled_by = |plugin: &str| AuditEvent::TurnCancelled {
            plugin: plugin.to_owned(),
            prompt_sha256: prompt_sha256.clone(),
        };
        let cancelled = |end: PointEndRecord| {
            PointRecord::event(
                PointInputRecord::OnPromptSubmit { items: Vec::new() },
                end,
                Vec::new(),
            )
        };
        let added = match end {
            PointEnd::Items(items) => items,
            PointEnd::Cancelled { plugin, reason } => {
                decisions.push(cancelled_by(&plugin));
                decisions.push(cancelled(PointEndRecord::cancelled(&plugin, &reason)));
                self.audit(decisions)?;
                return self.cancelled(sink, plugin, reason);
            }
            PointEnd::FailedClosed(failure) => {
                let plugin = failure.plugin.clone();
                decisions.push(cancelled_by(&plugin));
                decisions.push(cancelled(PointEndRecord::failed_closed(
                    &plugin,
                    &failure.to_string(),
                )));
                self.audit(decisions)?;
                let reason = format!("plugin failed and its policy is closed: {failure}");
                return self.cancelled(sink, plugin, reason);
            }
        };

        // 3. Compact first if the request would be too large, then commit the prompt group
        //    (project instructions first when they are new) and audit what it sends.
        let (mut group, mut events): (Vec<Entry>, Vec<AuditEvent>) =
            self.instructions_entry(sink).into_iter().unzip();
        let (submitted, plugin_items) = (resolved.entries.len(), added.len());
        group.extend(resolved.entries);
        group.extend(added);
        self.compact_if_due(sink, &group)?;
        self.commit(sink, group)?;
        sink.event(&TurnEvent::FilesAttached {
            refs: resolved.refs.clone(),
        });
        events.extend(decisions);
        let mut seqs = self.last_seqs(submitted + plugin_items);
        let added = seqs.split_off(submitted);
        events.push(PointRecord::event(
            PointInputRecord::OnPromptSubmit { items: seqs },
            PointEndRecord::Done,
            added,
        ));
        events.extend(resolved.audit.iter().map(|f| AuditEvent::FileSent {
            path: f.path.clone(),
            bytes: f.bytes,
            sha256: f.sha256.clone(),
            truncated: f.truncated,
        }));
        self.audit(events)?;

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
                crate::domain::Source::Plugin(plugin.clone()).to_string(),
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

/// The tool-call ids a session's history holds (all of it: ids stay taken after compaction).
fn ids_in(writer: &SessionWriter) -> HashSet<String> {
    call_ids(writer.items())
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// What the next request already shows, for dedup (from the file metadata of the records
/// after the latest compaction marker).
fn shown_in(writer: &SessionWriter) -> ShownFiles {
    let mut shown = ShownFiles::new();
    for record in crate::store::as_sent(writer.records()) {
        shown.record_files(&record.source, &record.item, &record.files);
    }
    shown
}

/// The opening of the system prompt sent when the configuration sets none; a paragraph on the
/// session's tools, mode and sandbox follows it.
pub const DEFAULT_SYSTEM_PROMPT: &str = "You are a careful assistant working in the user's workspace. \
Files the user references appear in the conversation as system messages or tool results; \
when a file was cut, read_file with an offset gives the rest.";

/// The process environment, leaving out what is not UTF-8 (no secret of warden's is).
fn utf8_vars() -> Vec<(String, String)> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}
