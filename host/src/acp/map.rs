//! A turn's events ([`TurnEvent`]) as ACP `session/update`s: the answer as
//! `agent_message_chunk`, each tool call as `tool_call` then `tool_call_update`s (kind, status,
//! locations, content: the command's output and exit status, a `diff` block for every file a
//! call changed, who denied it and why), the plan as `plan`, the tokens as `usage_update`, and
//! alerts as messages. One [`Mapper`] per session: it remembers each call's content, because an
//! update replaces the whole content list.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, Cost, Diff, Plan, PlanEntry, PlanEntryPriority, PlanEntryStatus,
    SessionInfoUpdate, SessionUpdate, ToolCall as AcpToolCall, ToolCallContent, ToolCallLocation,
    ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind, UsageUpdate,
};
use serde_json::{Value, json};

use crate::domain::builtin::UPDATE_PLAN;
use crate::domain::diff::old_text;
use crate::domain::plan::{PlanStep, StepStatus};
use crate::domain::{Alert, AlertLevel, ChangeKind, FileChange, RefReport, ToolCall, TurnEvent};
use crate::front::edit_preview::Files;
use crate::front::transcript::target;
use crate::front::usage::{Costing, Figures};

/// Longest command output sent in one update (the model's result is capped on its own).
const MAX_OUTPUT: usize = 64 * 1024;

/// Turns one session's events into updates.
pub(crate) struct Mapper {
    root: PathBuf,
    files: Option<Files>,
    costing: Costing,
    figures: Option<Figures>,
    /// Each call's content so far, by call id.
    content: HashMap<String, Vec<ToolCallContent>>,
    /// The arguments each call was asked with, by call id.
    asked: HashMap<String, Value>,
    /// `@` mentions reported so far (their updates' ids).
    attached: u64,
}

impl Mapper {
    /// For a session of workspace `root` under the deny globs `deny`; `figures`: the session's
    /// tokens so far.
    pub(crate) fn new(
        root: &Path,
        deny: &[String],
        costing: Costing,
        figures: Option<Figures>,
    ) -> Self {
        Self {
            root: root.to_owned(),
            files: Files::new(root, deny),
            costing,
            figures,
            content: HashMap::new(),
            asked: HashMap::new(),
            attached: 0,
        }
    }

    /// The workspace file at `path` (relative), absolute: ACP paths are absolute.
    pub(crate) fn absolute(&self, path: &str) -> PathBuf {
        self.root.join(path)
    }

    /// The updates `event` becomes (none for what the person is not shown).
    pub(crate) fn map(&mut self, event: &TurnEvent) -> Vec<SessionUpdate> {
        match event {
            TurnEvent::TurnStarted { .. } | TurnEvent::Waiting { .. } => {
                vec![SessionUpdate::SessionInfoUpdate(
                    SessionInfoUpdate::new().updated_at(now()),
                )]
            }
            TurnEvent::Alert(alert) => vec![message(&alert_text(alert))],
            TurnEvent::TextDelta { text } => vec![message(text)],
            TurnEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => vec![SessionUpdate::AgentThoughtChunk(ContentChunk::new(
                text_block(&format!(
                    "the model request failed ({reason}); retry {attempt} in {delay_ms} ms\n"
                )),
            ))],
            TurnEvent::FilesAttached { refs } => refs.iter().map(|r| self.attached(r)).collect(),
            TurnEvent::ItemCommitted { .. } => Vec::new(),
            TurnEvent::Usage(usage) => {
                let figures = self.figures.get_or_insert(Figures {
                    used: None,
                    window: self.costing.window,
                    total: crate::domain::Usage::default(),
                    cost: None,
                });
                figures.add(usage, &self.costing);
                let Some(window) = figures.window else {
                    return Vec::new();
                };
                let mut update = UsageUpdate::new(figures.used.unwrap_or_default(), window);
                if let Some(cost) = figures.cost {
                    update = update.cost(Cost::new(cost, "USD"));
                }
                vec![SessionUpdate::UsageUpdate(update)]
            }
            TurnEvent::ToolCallRequested { call } => {
                self.asked.insert(call.id.clone(), call.arguments.clone());
                vec![SessionUpdate::ToolCall(self.requested(call))]
            }
            TurnEvent::ToolCallDecided {
                call,
                allowed,
                by,
                reason,
                ..
            } => {
                if *allowed {
                    // A rewrite is shown: the arguments that run.
                    if self.asked.get(&call.id) == Some(&call.arguments) {
                        return Vec::new();
                    }
                    return vec![update(
                        &call.id,
                        ToolCallUpdateFields::new()
                            .raw_input(call.arguments.clone())
                            .title(title(call)),
                    )];
                }
                let why = format!(
                    "denied by {by}: {}",
                    reason.as_deref().unwrap_or("no reason given")
                );
                let content = self.push(&call.id, text_content(&why));
                vec![update(
                    &call.id,
                    ToolCallUpdateFields::new()
                        .status(ToolCallStatus::Failed)
                        .content(content),
                )]
            }
            TurnEvent::ToolCallStarted { call } => vec![update(
                &call.id,
                ToolCallUpdateFields::new().status(ToolCallStatus::InProgress),
            )],
            TurnEvent::ToolCallRan {
                call,
                is_error,
                exit_code,
                output,
            } => {
                let failed = TurnEvent::ran_failed(*is_error, *exit_code);
                let mut shown = capped(output);
                if let Some(code) = exit_code {
                    shown.push_str(&format!("\n[exit status {code}]"));
                }
                let content = if call.name == UPDATE_PLAN && !failed {
                    self.content.get(&call.id).cloned().unwrap_or_default()
                } else {
                    self.push(&call.id, text_content(&shown))
                };
                vec![update(
                    &call.id,
                    ToolCallUpdateFields::new()
                        .status(if failed {
                            ToolCallStatus::Failed
                        } else {
                            ToolCallStatus::Completed
                        })
                        .content(content)
                        .raw_output(json!({"exit_code": exit_code, "is_error": is_error})),
                )]
            }
            TurnEvent::PlanUpdated { steps, .. } => vec![SessionUpdate::Plan(plan(steps))],
            TurnEvent::FileChanged(change) => {
                let block = self.changed(change);
                let content = self.push(&change.call_id, block);
                vec![update(
                    &change.call_id,
                    ToolCallUpdateFields::new()
                        .content(content)
                        .locations(vec![ToolCallLocation::new(self.absolute(&change.path))]),
                )]
            }
            TurnEvent::TurnEnded { changes, .. } => {
                if changes.is_empty() {
                    return Vec::new();
                }
                let files: Vec<String> = changes
                    .iter()
                    .map(|c| format!("{} (+{} −{})", c.shown(), c.added, c.removed))
                    .collect();
                let noun = if files.len() == 1 { "file" } else { "files" };
                vec![message(&format!(
                    "\n\nchanged {} {noun}: {}\n",
                    files.len(),
                    files.join(", ")
                ))]
            }
        }
    }

    /// A `tool_call` for a call the model asked for.
    pub(crate) fn requested(&self, call: &ToolCall) -> AcpToolCall {
        let mut out = AcpToolCall::new(call.id.clone(), title(call))
            .kind(kind(&call.name))
            .status(ToolCallStatus::Pending)
            .raw_input(call.arguments.clone());
        if let Some(path) = call.arguments.get("path").and_then(Value::as_str) {
            out = out.locations(vec![ToolCallLocation::new(self.absolute(path))]);
        }
        out
    }

    /// The `diff` block of what an edit the person is asked about would change.
    pub(crate) fn proposed(&self, arguments: &Value) -> Option<ToolCallContent> {
        let edit = crate::front::edit_preview::proposed(self.files.as_ref(), arguments)?;
        let mut diff = Diff::new(self.absolute(&edit.path), edit.new);
        if let Some(old) = edit.old {
            diff = diff.old_text(old);
        }
        Some(ToolCallContent::Diff(diff))
    }

    fn push(&mut self, id: &str, block: ToolCallContent) -> Vec<ToolCallContent> {
        let list = self.content.entry(id.to_owned()).or_default();
        list.push(block);
        list.clone()
    }

    fn attached(&mut self, report: &RefReport) -> SessionUpdate {
        self.attached += 1;
        let resolved = report.status == "resolved";
        let mut what = format!("@{}: {}", report.path, report.status);
        if resolved {
            what = format!("@{}: {} bytes", report.path, report.bytes);
            if report.truncated {
                what.push_str(" (cut)");
            }
        }
        let mut call = AcpToolCall::new(
            format!("attach-{}", self.attached),
            format!("@{}", report.path),
        )
        .kind(ToolKind::Read)
        .status(if resolved {
            ToolCallStatus::Completed
        } else {
            ToolCallStatus::Failed
        })
        .content(vec![text_content(&what)]);
        if resolved {
            call = call.locations(vec![ToolCallLocation::new(self.absolute(&report.path))]);
        }
        SessionUpdate::ToolCall(call)
    }

    /// A `diff` block for `change`, or a line saying why there is none.
    fn changed(&self, change: &FileChange) -> ToolCallContent {
        let path = self.absolute(&change.path);
        let summary = |why: &str| {
            text_content(&format!(
                "{} {} (+{} −{}): {why}",
                change.shown(),
                kind_word(change.kind),
                change.added,
                change.removed
            ))
        };
        if change.diff_cut || change.diff.is_empty() && change.kind != ChangeKind::Created {
            return summary("the diff is too large or the file is not text");
        }
        let new = match change.kind {
            ChangeKind::Deleted => String::new(),
            ChangeKind::Created | ChangeKind::Modified => {
                match self.files.as_ref().map(|f| f.read(&change.path)) {
                    Some(Ok(text)) => text,
                    Some(Err(why)) => return summary(&why),
                    None => return summary("cannot be read"),
                }
            }
        };
        if change.kind == ChangeKind::Created {
            return ToolCallContent::Diff(Diff::new(path, new));
        }
        match old_text(&new, &change.diff) {
            Some(old) => ToolCallContent::Diff(Diff::new(path, new).old_text(old)),
            // Changed again since: the diff no longer fits the file.
            None => summary("changed again since"),
        }
    }
}

fn kind_word(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Created => "created",
        ChangeKind::Modified => "modified",
        ChangeKind::Deleted => "deleted",
    }
}

fn update(id: &str, fields: ToolCallUpdateFields) -> SessionUpdate {
    SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.to_owned(), fields))
}

fn text_block(text: &str) -> ContentBlock {
    ContentBlock::from(text.to_owned())
}

fn text_content(text: &str) -> ToolCallContent {
    ToolCallContent::from(text_block(text))
}

fn message(text: &str) -> SessionUpdate {
    SessionUpdate::AgentMessageChunk(ContentChunk::new(text_block(text)))
}

/// An alert as a message line of its own: `> warning (plugin:x): …`.
pub(crate) fn alert_text(alert: &Alert) -> String {
    let level = match alert.level {
        AlertLevel::Info => "info",
        AlertLevel::Warn => "warning",
        AlertLevel::Error => "error",
    };
    format!("\n> {level} ({}): {}\n\n", alert.source, alert.message)
}

/// `shell cargo test`, `edit_file src/lib.rs`.
pub(crate) fn title(call: &ToolCall) -> String {
    let target = target(&call.arguments);
    if target.is_empty() {
        call.name.clone()
    } else {
        format!("{} {target}", call.name)
    }
}

/// The ACP kind of a tool, by its name.
pub(crate) fn kind(name: &str) -> ToolKind {
    match name {
        "read_file" | "list_files" => ToolKind::Read,
        "grep" | "glob" => ToolKind::Search,
        "write_file" | "edit_file" => ToolKind::Edit,
        "shell" => ToolKind::Execute,
        "web_fetch" => ToolKind::Fetch,
        UPDATE_PLAN => ToolKind::Think,
        _ => ToolKind::Other,
    }
}

fn plan(steps: &[PlanStep]) -> Plan {
    Plan::new(
        steps
            .iter()
            .map(|s| {
                PlanEntry::new(
                    s.step.clone(),
                    PlanEntryPriority::Medium,
                    match s.status {
                        StepStatus::Pending => PlanEntryStatus::Pending,
                        StepStatus::InProgress => PlanEntryStatus::InProgress,
                        StepStatus::Done => PlanEntryStatus::Completed,
                    },
                )
            })
            .collect(),
    )
}

fn capped(output: &str) -> String {
    if output.len() <= MAX_OUTPUT {
        return output.to_owned();
    }
    let mut cut = MAX_OUTPUT;
    while !output.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n[{} more bytes not shown]",
        &output[..cut],
        output.len() - cut
    )
}

/// Now, as ISO 8601.
fn now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}
