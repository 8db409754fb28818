//! The audit log of a session (`sessions/<id>/audit.jsonl`): an append-only record of what left
//! the machine and what plugins decided, one JSON object per line (`ts`, tagged `event`), fsynced
//! once per appended batch. Each line also carries the chain fields of [`super::audit_chain`]
//! (`seq`, `prev`, `hash`), written under an exclusive lock on the file so that every writer of a
//! session, in this process or another, extends one chain.

use std::borrow::Cow;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

use super::audit_chain::{self, ChainHead};
use super::audit_file::{Mode, open_log};
use super::fsio::{self, format_ts, rfc3339};
use super::{Home, StoreError};
use crate::domain::CallPoint;

/// Something worth auditing. Serialized with a `type` tag.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
#[non_exhaustive]
pub enum AuditEvent {
    /// File content was placed where the model will see it.
    FileSent {
        /// The path as referenced, relative to the workspace.
        path: String,
        /// Bytes sent.
        bytes: u64,
        /// sha256 of the bytes sent, lowercase hex.
        sha256: String,
        /// True when the file was cut at the size cap.
        truncated: bool,
    },
    /// An interceptor decided something about a turn.
    PluginDecision {
        /// Plugin name.
        plugin: String,
        /// Hook point (`on-prompt-submit`, `pre-llm-request`, `on-turn-end`).
        hook: String,
        /// `continue`, `cancel`, `continue-with`, `finish`, or `failed`.
        decision: String,
        /// The plugin's reason or the failure, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// A request was sent to a model provider.
    ModelRequest {
        /// Provider name.
        provider: String,
        /// Model name, as sent.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        model: Option<String>,
        /// Items in the request.
        items: u64,
        /// Approximate request size in bytes.
        bytes: u64,
    },
    /// How the model request recorded just before ended (absent from files written before
    /// outcomes were recorded: such a request's outcome is unknown).
    ModelOutcome {
        /// `ok`, `failed` or `cancelled`.
        outcome: String,
        /// Why it failed, when it did.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// The tokens it took, when it was answered and the provider reported them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        usage: Option<crate::domain::Usage>,
    },
    /// A compaction began (`/compact`, `warden compact`, or due by size): its summary request
    /// and the files it re-read follow, and belong to it rather than to the turn before.
    CompactionStarted {
        /// First history sequence number it replaces.
        from: u64,
        /// Last history sequence number it replaces.
        to: u64,
    },
    /// A compaction ended (written with its last records): what follows belongs to the turn
    /// it interrupted, if it ran inside one.
    CompactionEnded {
        /// `ok`, or `failed` (its request failed, or an interceptor stopped it).
        outcome: String,
    },
    /// A turn began: the prompt's sha256 and size, never its text.
    TurnStarted {
        /// sha256 of the prompt as typed, lowercase hex.
        prompt_sha256: String,
        /// Its size in bytes.
        prompt_bytes: u64,
    },
    /// An interceptor cancelled the turn (or failed closed): nothing of the prompt was
    /// committed or sent.
    TurnCancelled {
        /// The plugin.
        plugin: String,
        /// sha256 of the prompt as typed, lowercase hex.
        prompt_sha256: String,
    },
    /// A tool call the model asked for: what was decided and by whom, what the tool may
    /// reach, and the bytes that went in and came out.
    ToolCall {
        /// Tool name.
        tool: String,
        /// Call id.
        call_id: String,
        /// The tool plugin it belongs to (absent for a built-in tool).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plugin: Option<String>,
        /// What the tool's plugin is granted (nothing for a built-in tool). Boxed to keep the
        /// event small.
        #[serde(default)]
        grants: Box<ToolGrantRecord>,
        /// `allowed`, `rewritten` (allowed with rewritten arguments) or `denied`.
        decision: String,
        /// Who decided: `plugin:<name>`, `rule:<id>`, `approval`, `mode`, `policy`,
        /// `default`, or `person` for a command the person ran (`!COMMAND` in the chat).
        by: String,
        /// Why it was denied, if it was.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// `plugin:<name>` of each interceptor that rewrote the arguments, in order.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        rewritten_by: Vec<String>,
        /// The person's answer when approval was needed: `yes`, `always`, `remembered`
        /// (an earlier `always`) or `no`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        approval: Option<String>,
        /// The permission mode that judged a call that writes files or runs commands (absent
        /// for a read, or a call an interceptor denied first).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mode: Option<crate::domain::Mode>,
        /// The `[[rules]]` id that decided the call (allowed, denied or asked), comma-separated
        /// when each simple command of a `shell` call had its own. Boxed to keep the event
        /// small.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rule: Option<Box<String>>,
        /// Bytes of the arguments (JSON) the tool received, or that were asked for when denied.
        bytes_in: u64,
        /// Bytes of the result committed for the model.
        bytes_out: u64,
        /// The result is an error (denied or failed).
        is_error: bool,
        /// The tool plugin's outgoing HTTP during the call (plugins granted `allowed_hosts`,
        /// or that tried to fetch).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        http: Option<ToolHttpRecord>,
        /// The tool plugin itself failed (trap, deadline, memory cap, output over its cap);
        /// its entry's failure policy applied.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        plugin_failure: Option<Box<String>>,
        /// An MCP server's tool: the server, the tool's own name and the call's duration.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        mcp: Option<Box<crate::domain::McpCallFigures>>,
        /// A `shell` call that asked for more than the default sandbox: the kind, the hosts
        /// and the reason it gave (the record says whether it was allowed and by whom).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        escalation: Option<Box<crate::domain::Escalation>>,
        /// Every interceptor the chain asked about the call (at `pre-tool-call` or
        /// `post-tool-call`), in chain order, once each.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        seen_by: Vec<PluginSeen>,
    },
    /// What an interceptor in `shadow` mode would have decided at a call point, beside what
    /// the chain decided; never applied.
    ShadowDecision {
        /// Plugin name.
        plugin: String,
        /// sha256 of its component, lowercase hex.
        sha256: String,
        /// The call point.
        point: String,
        /// The tool, at `pre-tool-call`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        tool: Option<String>,
        /// The tool call's id, at `pre-tool-call`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        call_id: Option<String>,
        /// What it would have decided (`allow`, `rewrite`, `deny`, `continue`,
        /// `continue-with`, `cancel`, `failed-open`, `failed-closed`, …).
        decision: String,
        /// Its reason or failure, if any.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        /// What the enforcing chain decided at the same point, named the same way.
        chain: String,
        /// Its decision would have changed the outcome.
        differs: bool,
    },
    /// A call point as the chain met it, for `warden plugin replay`: what it was asked (by
    /// reference to the history, which holds the prompts and answers) and how it ended.
    /// Boxed to keep the event small.
    Point(Box<PointRecord>),
    /// Any other event.
    Other {
        /// What kind of event.
        kind: String,
        /// Its details.
        #[serde(default)]
        detail: serde_json::Value,
    },
}

/// An interceptor that saw a tool call: its name, its component's sha256, and whether it ran
/// in `shadow` mode (its answers recorded, never applied).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PluginSeen {
    /// Plugin name.
    pub plugin: String,
    /// sha256 of its component, lowercase hex (absent for an interceptor that has none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// It ran in `shadow` mode.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub shadow: bool,
}

/// One call point as it happened: its input and how the chain ended. `pre-tool-call` has no
/// record of its own: the `tool_call` record is its decision, and the history holds the call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PointRecord {
    /// What the point was asked.
    pub input: PointInputRecord,
    /// How the chain ended.
    pub end: PointEndRecord,
    /// Sequence numbers of the history records the chain added, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub added: Vec<u64>,
}

impl PointRecord {
    /// The audit event of a point that asked `input`, ended with `end` and added the history
    /// records `added`.
    pub fn event(input: PointInputRecord, end: PointEndRecord, added: Vec<u64>) -> AuditEvent {
        AuditEvent::Point(Box::new(Self { input, end, added }))
    }

    /// The call point.
    pub fn point(&self) -> CallPoint {
        self.input.point()
    }
}

/// What a call point was asked, by reference to the history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "point", rename_all = "kebab-case")]
pub enum PointInputRecord {
    /// A prompt was submitted.
    OnPromptSubmit {
        /// Sequence numbers of the user item and its file items; empty when the chain
        /// cancelled the prompt (its text was never committed).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        items: Vec<u64>,
    },
    /// A model request was about to be built.
    PreLlmRequest {
        /// 0 for the turn's first request.
        step: u32,
        /// Items in history before the request's pending items.
        history_items: u32,
    },
    /// The model answered without tool calls.
    OnTurnEnd {
        /// Sequence number of the answer.
        answer: u64,
        /// Continuations already made this turn.
        continuations: u32,
    },
    /// A tool call ran.
    PostToolCall {
        /// The call's id (its call and result are in the history).
        call_id: String,
        /// The arguments the tool received, when interceptors rewrote them.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        arguments: Option<serde_json::Value>,
    },
}

impl PointInputRecord {
    /// The call point.
    pub fn point(&self) -> CallPoint {
        match self {
            Self::OnPromptSubmit { .. } => CallPoint::OnPromptSubmit,
            Self::PreLlmRequest { .. } => CallPoint::PreLlmRequest,
            Self::OnTurnEnd { .. } => CallPoint::OnTurnEnd,
            Self::PostToolCall { .. } => CallPoint::PostToolCall,
        }
    }
}

/// How a call point's chain ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum PointEndRecord {
    /// Every interceptor answered (or failed open).
    Done,
    /// An interceptor cancelled.
    Cancelled {
        /// Its name.
        plugin: String,
        /// Its reason.
        reason: String,
    },
    /// An interceptor failed and its policy is closed.
    FailedClosed {
        /// Its name.
        plugin: String,
        /// What went wrong.
        message: String,
    },
}

impl PointEndRecord {
    /// `plugin` cancelled for `reason`.
    pub fn cancelled(plugin: &str, reason: &str) -> Self {
        Self::Cancelled {
            plugin: plugin.to_owned(),
            reason: reason.to_owned(),
        }
    }

    /// `plugin` failed closed with `message`.
    pub fn failed_closed(plugin: &str, message: &str) -> Self {
        Self::FailedClosed {
            plugin: plugin.to_owned(),
            message: message.to_owned(),
        }
    }
}

/// A tool plugin's grants as the audit log records them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolGrantRecord {
    /// `none`, `read` or `read-write`.
    pub fs: String,
    /// Hosts outgoing HTTP may reach.
    pub allowed_hosts: Vec<String>,
    /// Environment variables passed in.
    pub env: Vec<String>,
}

/// A tool plugin's outgoing HTTP during one call, as the audit log records it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolHttpRecord {
    /// Requests sent.
    pub requests: u32,
    /// Requests refused (host not granted, caps, deadline).
    pub refused: u32,
    /// Bytes of the requests sent.
    pub bytes_out: u64,
    /// Bytes of the responses received.
    pub bytes_in: u64,
}

impl Default for ToolGrantRecord {
    fn default() -> Self {
        Self {
            fs: "none".to_owned(),
            allowed_hosts: Vec::new(),
            env: Vec::new(),
        }
    }
}

/// One line of the audit log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AuditRecord {
    /// When the event was appended.
    #[serde(with = "rfc3339")]
    pub ts: SystemTime,
    /// The event.
    pub event: AuditEvent,
}

#[derive(Serialize)]
struct AuditOut<'a> {
    ts: &'a str,
    event: &'a AuditEvent,
    seq: u64,
    prev: &'a str,
}

/// Holds an exclusive lock on a file until dropped.
struct FileLock<'a>(&'a File);

impl<'a> FileLock<'a> {
    fn take(file: &'a File) -> std::io::Result<Self> {
        file.lock()?;
        Ok(Self(file))
    }
}

impl Drop for FileLock<'_> {
    fn drop(&mut self) {
        // Closing the file releases the lock too; an error here leaves nothing to undo.
        let _ = self.0.unlock();
    }
}

/// Something told of every audit event appended in this process, after it is written (for
/// export elsewhere). Set once, with [`set_audit_tap`].
pub trait AuditTap: Send + Sync {
    /// `events` of session `session` were appended at `ts`, each as the record `links` names
    /// at the same index (its `seq` and `hash` in the chain).
    fn appended(
        &self,
        session: &str,
        ts: SystemTime,
        events: Cow<'_, [AuditEvent]>,
        links: Vec<ChainHead>,
    );
}

static TAP: std::sync::OnceLock<Box<dyn AuditTap>> = std::sync::OnceLock::new();

/// Sets the process's audit tap; false if one was set already.
pub fn set_audit_tap(tap: Box<dyn AuditTap>) -> bool {
    TAP.set(tap).is_ok()
}

/// An open audit log, appending.
#[derive(Debug)]
pub struct AuditLog {
    session: String,
    path: PathBuf,
    file: File,
    /// Set when the file may end in a partial line, which the next append cuts off.
    needs_newline: bool,
    /// fsync after each batch (always, except in benchmarks of the host-side cost).
    fsync: bool,
    /// The session's chain anchor.
    anchor: String,
    /// The file's length after this handle's last append and the chain head it left; read
    /// again from the file when another writer appended since.
    known: Option<(u64, Option<ChainHead>)>,
}

impl AuditLog {
    /// Opens the audit log of existing session `id` for appending.
    pub fn open(home: &Home, id: &str) -> Result<Self, StoreError> {
        let anchor = session_anchor(home, id)?;
        let path = home.audit_path(id)?;
        let Some(file) = open_log(&path, Mode::Append)? else {
            return Err(StoreError::io("open", &path)(
                std::io::ErrorKind::NotFound.into(),
            ));
        };
        let needs_newline = ends_in_partial_line(&file).map_err(StoreError::io("read", &path))?;
        Ok(Self {
            session: id.to_owned(),
            path,
            file,
            needs_newline,
            fsync: true,
            anchor,
            known: None,
        })
    }

    /// Appends one event and fsyncs.
    pub fn append(&mut self, event: &AuditEvent) -> Result<(), StoreError> {
        self.append_batch(std::slice::from_ref(event))
    }

    /// Appends events with one write and one fsync.
    /// Events given by value reach the audit tap without a copy.
    pub fn append_batch<'a>(
        &mut self,
        events: impl Into<Cow<'a, [AuditEvent]>>,
    ) -> Result<(), StoreError> {
        let events = events.into();
        if events.is_empty() {
            return Ok(());
        }
        let now = fsio::now();
        let ts = format_ts(now);
        let _lock = FileLock::take(&self.file).map_err(StoreError::io("lock", &self.path))?;
        let mut len = self
            .file
            .metadata()
            .map_err(StoreError::io("stat", &self.path))?
            .len();
        let known = match &self.known {
            Some((known_len, head)) if *known_len == len => Some(head.clone()),
            _ => None,
        };
        if known.is_none() {
            self.needs_newline =
                ends_in_partial_line(&self.file).map_err(StoreError::io("read", &self.path))?;
        }
        if self.needs_newline {
            // A line cut short by a crash is only ever accepted as the last line: it goes
            // before the chain continues. Under the lock no other writer is mid-write.
            len = torn_tail_start(&self.file, len).map_err(StoreError::io("read", &self.path))?;
            self.file
                .set_len(len)
                .map_err(StoreError::io("truncate the torn last line of", &self.path))?;
            self.needs_newline = false;
        }
        let mut head = match known {
            Some(head) => head,
            None => audit_chain::read_head(&self.file, len)
                .map_err(StoreError::io("read", &self.path))?,
        };
        let mut buf = Vec::new();
        let mut links = Vec::with_capacity(if TAP.get().is_some() { events.len() } else { 0 });
        for event in events.iter() {
            let (seq, prev) = match &head {
                Some(h) => (h.seq + 1, h.hash.as_str()),
                None => (0, self.anchor.as_str()),
            };
            let mut line = serde_json::to_vec(&AuditOut {
                ts: &ts,
                event,
                seq,
                prev,
            })
            .map_err(|source| StoreError::Encode {
                path: self.path.clone(),
                source,
            })?;
            let Some(hash) = audit_chain::seal(&mut line, &self.anchor) else {
                return Err(StoreError::io("encode", &self.path)(std::io::Error::other(
                    "an audit record is not a JSON object",
                )));
            };
            if links.capacity() > 0 {
                links.push(ChainHead {
                    seq,
                    hash: hash.clone(),
                });
            }
            head = Some(ChainHead { seq, hash });
            buf.extend_from_slice(&line);
            buf.push(b'\n');
        }
        if let Err(e) = (&self.file).write_all(&buf) {
            self.needs_newline = true;
            self.known = None;
            return Err(StoreError::io("write", &self.path)(e));
        }
        self.needs_newline = false;
        self.known = Some((len + buf.len() as u64, head));
        if let Some(tap) = TAP.get() {
            tap.appended(&self.session, now, events, links);
        }
        if !self.fsync {
            return Ok(());
        }
        self.file
            .sync_data()
            .map_err(StoreError::io("fsync", &self.path))
    }

    /// The chain head this handle last wrote or read, if any.
    pub fn head(&self) -> Option<&ChainHead> {
        self.known.as_ref().and_then(|(_, head)| head.as_ref())
    }

    /// Turns the per-batch fsync off or on; for benchmarks that measure the host-side cost only.
    #[doc(hidden)]
    pub fn set_fsync_for_benchmarks(&mut self, fsync: bool) {
        self.fsync = fsync;
    }

    /// The audit log file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The chain head of session `id`'s audit log now (its last whole chained record), read from
/// the end of the file; `None` when it has none.
pub(crate) fn read_audit_head(home: &Home, id: &str) -> Result<Option<ChainHead>, StoreError> {
    let path = home.audit_path(id)?;
    let Some(file) = open_log(&path, Mode::Read)? else {
        return Ok(None);
    };
    let len = file
        .metadata()
        .map_err(StoreError::io("stat", &path))?
        .len();
    audit_chain::read_head(&file, len).map_err(StoreError::io("read", &path))
}

/// The chain anchor of existing session `id`: its id and its history header's checksum.
pub fn session_anchor(home: &Home, id: &str) -> Result<String, StoreError> {
    let history = home.existing_history(id)?;
    let file = File::open(&history).map_err(StoreError::io("open", &history))?;
    let mut first = Vec::new();
    std::io::BufRead::read_until(&mut std::io::BufReader::new(file), b'\n', &mut first)
        .map_err(StoreError::io("read", &history))?;
    if first.last() == Some(&b'\n') {
        first.pop();
    }
    Ok(audit_chain::anchor(id, &first))
}

/// Where the last line of `file` (`len` bytes, not ending in a newline) starts.
fn torn_tail_start(mut file: &File, len: u64) -> std::io::Result<u64> {
    let mut end = len;
    let mut chunk = [0u8; 4096];
    while end > 0 {
        let start = end.saturating_sub(chunk.len() as u64);
        let piece = &mut chunk[..(end - start) as usize];
        file.seek(SeekFrom::Start(start))?;
        file.read_exact(piece)?;
        if let Some(i) = piece.iter().rposition(|&b| b == b'\n') {
            return Ok(start + i as u64 + 1);
        }
        end = start;
    }
    Ok(0)
}

fn ends_in_partial_line(mut file: &File) -> std::io::Result<bool> {
    let len = file.metadata()?.len();
    if len == 0 {
        return Ok(false);
    }
    file.seek(SeekFrom::Start(len - 1))?;
    let mut last = [0u8; 1];
    file.read_exact(&mut last)?;
    Ok(last[0] != b'\n')
}
