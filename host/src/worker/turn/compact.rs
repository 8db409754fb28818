//! Compaction: the history a request is built from is replaced by a summary and current copies
//! of every file it referenced, committed as one group after what it replaces (history stays
//! append-only). [`Worker::compact`] runs it on demand; a turn runs it by itself when the next
//! request's estimated size passes `worker.compact_at_tokens`, or by default
//! `worker.compact_at_percent` (85) of the model's context window.

use super::referenced::referenced_files;
use super::{HOST, Worker, shown_in};
use crate::domain::block;
use crate::domain::escape::escape;
use crate::domain::{
    Alert, CallPoint, CompactionInfo, CompactionMarker, Entry, Event, Item, SUMMARY_PROMPT,
    SUMMARY_SYSTEM, Segment, Source, TurnSink,
};
use crate::fileref::{self, RESOLVED, ShownFiles};
use crate::store::{AuditEvent, as_sent};
use crate::worker::WorkerError;
use crate::worker::chain::{PointEnd, Verdict};

/// Bytes per token of the size estimate (see `docs/sessions.md`).
pub const BYTES_PER_TOKEN: u64 = 4;

/// What one compaction committed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compacted {
    /// The range replaced.
    pub replaces: CompactionMarker,
    /// Items in the committed group.
    pub items: usize,
    /// Paths re-read, in first-mention order (deleted or denied ones included).
    pub files: Vec<String>,
}

/// Token usage the provider reported for the last request of this process, and how many
/// records history had once its answer was committed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct ReportedUsage {
    pub(super) tokens: u64,
    pub(super) records: usize,
}

/// `events` followed by the record that ends a compaction.
fn with_end(mut events: Vec<AuditEvent>, outcome: &str) -> Vec<AuditEvent> {
    events.push(AuditEvent::CompactionEnded {
        outcome: outcome.to_owned(),
    });
    events
}

impl Worker {
    /// Compact the session now: ask the model for a summary of what the next request would be
    /// built from, re-read every file referenced there, and commit marker, summary, files and
    /// interceptor items as one group. `Ok(None)` when there is nothing to compact.
    pub fn compact(&mut self, sink: &mut dyn TurnSink) -> Result<Option<Compacted>, WorkerError> {
        let _span = crate::trace::span("compaction").with("session", self.writer.id());
        let records = as_sent(self.writer.records());
        let (Some(first), Some(last)) = (records.first(), records.last()) else {
            return Ok(None);
        };
        let replaces = CompactionMarker {
            from: first.seq,
            to: last.seq,
        };
        let referenced = referenced_files(records);
        let mut items: Vec<Item> = records.iter().map(|r| r.item.clone()).collect();
        items.push(Item::user(SUMMARY_PROMPT));
        // Written with the summary request's record, ahead of it.
        self.defer_audit(AuditEvent::CompactionStarted {
            from: replaces.from,
            to: replaces.to,
        });
        let summary = self.summarize(items)?;

        // Current copies of the files, through the resolver, as a fresh session would see them.
        let segments: Vec<Segment> = referenced
            .iter()
            .map(|r| Segment::FileRef {
                raw: format!("@{}", r.path),
                path: r.path.clone(),
                range: r.range,
            })
            .collect();
        let resolved = fileref::resolve_prompt(
            &segments,
            self.resolver.as_mut(),
            &self.config.fileref,
            &ShownFiles::new(),
        );
        let notes: Vec<Entry> = resolved
            .refs
            .iter()
            .filter(|r| r.status != RESOLVED)
            .map(|r| {
                Entry::new(
                    Source::Compaction,
                    Item::system(format!(
                        "[File: {} was referenced before compaction and cannot be read now: {}]",
                        escape(&r.path),
                        escape(r.status)
                    )),
                )
            })
            .collect();
        let files: Vec<String> = referenced.iter().map(|r| r.path.clone()).collect();

        let info = CompactionInfo {
            session: self.writer.id().to_owned(),
            replaces,
            summary: summary.clone(),
            files: files.clone(),
        };
        let (end, decisions) = self.run_point(sink, CallPoint::Compaction, |plugin| {
            plugin.on_compaction(&info).map(|items| {
                if items.is_empty() {
                    Verdict::Pass(None)
                } else {
                    Verdict::Add(items)
                }
            })
        });
        let added = match end {
            PointEnd::Items(items) => items,
            PointEnd::Cancelled { plugin, reason } => {
                // The runner only cancels on a `Cancel` verdict, which this point never gives.
                self.audit(with_end(decisions, "failed"))?;
                return Err(WorkerError::CompactionStopped {
                    plugin,
                    message: reason,
                });
            }
            PointEnd::FailedClosed(failure) => {
                self.audit(with_end(decisions, "failed"))?;
                return Err(WorkerError::CompactionStopped {
                    message: failure.to_string(),
                    plugin: failure.plugin,
                });
            }
        };

        let mut group = vec![
            Entry::compaction_marker(replaces),
            Entry::new(
                Source::Compaction,
                // The summary is the model's text: escaped like every host block's content.
                Item::system(format!(
                    "[Summary of the conversation before compaction]\n{}",
                    block::body(&summary)
                )),
            ),
        ];
        group.extend(
            resolved
                .entries
                .into_iter()
                .filter(|e| !matches!(e.item, Item::User { .. })),
        );
        group.extend(notes);
        group.extend(added);
        let count = group.len();
        self.commit(sink, group)?;
        // What the next request shows starts at the marker.
        self.shown = shown_in(&self.writer);
        self.usage = None;
        let mut events = decisions;
        events.extend(resolved.audit.iter().map(|f| AuditEvent::FileSent {
            path: f.path.clone(),
            bytes: f.bytes,
            sha256: f.sha256.clone(),
            truncated: f.truncated,
        }));
        self.audit(with_end(events, "ok"))?;
        self.emit(
            sink,
            Event::Compacted {
                from: replaces.from,
                to: replaces.to,
                items: u32::try_from(count).unwrap_or(u32::MAX),
            },
        );
        Ok(Some(Compacted {
            replaces,
            items: count,
            files,
        }))
    }

    /// The model's summary of `items` (which end with the summary prompt).
    fn summarize(&mut self, items: Vec<Item>) -> Result<String, WorkerError> {
        // The tools stay offered so that providers accept the tool calls in the history being
        // summarised.
        let (request, _) = self.audited_request(SUMMARY_SYSTEM.to_owned(), items, false)?;
        let count = request.items.len();
        let cancel = self.cancel.clone();
        let response = {
            let _span = crate::trace::span("model request")
                .with("provider", self.provider.name())
                .with("items", count);
            self.provider.complete(&request, &mut |_| {}, &cancel)
        };
        // A success is written with the compaction's own records; a failure ends it here.
        let outcome = super::model::model_outcome(&response);
        match response {
            Ok(response) => {
                self.defer_audit(outcome);
                Ok(response.text)
            }
            Err(err) => {
                self.audit(with_end(vec![outcome], "failed"))?;
                Err(err.into())
            }
        }
    }

    /// The model name a request names.
    pub(super) fn model_name(&self) -> String {
        self.config
            .model
            .name
            .clone()
            .unwrap_or_else(|| self.provider.model().to_owned())
    }

    /// The system prompt a turn's request carries.
    pub(super) fn system_prompt(&self) -> String {
        self.config.model.system_prompt.clone().unwrap_or_else(|| {
            super::system::default_prompt(self.tools.specs(), self.mode, &self.config.tools.shell)
        })
    }

    /// Estimated tokens of the next request if `pending` were committed first: the provider's
    /// reported usage of the last request plus what was committed since, when known; else the
    /// bytes of system prompt, tool specs and items over [`BYTES_PER_TOKEN`].
    pub(super) fn estimate_tokens(&self, pending: &[Entry]) -> u64 {
        let pending_bytes: u64 = pending.iter().map(|e| e.item.byte_len() as u64).sum();
        let records = self.writer.records();
        if let Some(usage) = self.usage
            && usage.records <= records.len()
        {
            let since: u64 = records[usage.records..]
                .iter()
                .map(|r| r.item.byte_len() as u64)
                .sum();
            return usage.tokens + (since + pending_bytes).div_ceil(BYTES_PER_TOKEN);
        }
        let items: u64 = as_sent(records)
            .iter()
            .map(|r| r.item.byte_len() as u64)
            .sum();
        let tools: u64 = self
            .tools
            .specs()
            .iter()
            .map(|s| serde_json::to_string(s).map_or(0, |t| t.len() as u64))
            .sum();
        let system = self.system_prompt().len() as u64;
        (items + pending_bytes + tools + system).div_ceil(BYTES_PER_TOKEN)
    }

    /// The size past which a prompt compacts first, and the key that set it:
    /// `worker.compact_at_tokens`, else `worker.compact_at_percent` of the model's window
    /// (`None`: never, as when the window is not known or the share is 0).
    pub(super) fn compaction_limit(&self) -> Option<(u64, &'static str)> {
        if let Some(limit) = self.config.worker.compact_at_tokens {
            return Some((limit, "worker.compact_at_tokens"));
        }
        let percent = u64::from(self.config.worker.compact_at_percent.min(100));
        if percent == 0 {
            return None;
        }
        let window = self.config.model.context_window.or_else(|| {
            crate::domain::price::known_model(&self.model_name()).map(|k| k.context_window)
        })?;
        Some((
            window.saturating_mul(percent) / 100,
            "worker.compact_at_percent of the model's window",
        ))
    }

    /// Compact first when committing `pending` would take the next request past
    /// `worker.compact_at_tokens`. A compaction that fails for any reason but the store is a
    /// warning: the turn goes on with the history as it was.
    pub(super) fn compact_if_due(
        &mut self,
        sink: &mut dyn TurnSink,
        pending: &[Entry],
    ) -> Result<(), WorkerError> {
        let Some((limit, key)) = self.compaction_limit() else {
            return Ok(());
        };
        let estimate = self.estimate_tokens(pending);
        if estimate <= limit {
            return Ok(());
        }
        tracing::info!(estimate, limit, "compacting before the request");
        match self.compact(sink) {
            Ok(_) => Ok(()),
            Err(WorkerError::Store(err)) => Err(WorkerError::Store(err)),
            Err(err) => {
                self.raise(
                    sink,
                    Alert::warn(
                        HOST,
                        format!(
                            "the request is estimated at {estimate} tokens, past {key} ({limit} tokens), but compaction failed: {err}; sending it uncompacted"
                        ),
                    ),
                );
                Ok(())
            }
        }
    }
}
