//! One editor session on a thread of its own: the worker (plugins, resolver, tools and the
//! session writer are not `Send`) lives there and the connection sends it jobs — a prompt, a
//! mode, a command — one at a time, as the chat runs them.
//!
//! Opening a session finds the workspace from the editor's `cwd` as every command finds it,
//! loads the configuration with the project's code only when it is trusted (while it waits,
//! the session runs without it and says so; `/trust` asks the person through the editor with
//! the facts `warden trust` shows), joins the editor's MCP servers as the user's own, and
//! assembles the worker.

use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    ContentBlock, ContentChunk, PermissionOption, PermissionOptionKind, SessionUpdate,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};
use tokio::sync::{mpsc, oneshot};

use super::map::Mapper;
use super::sink::{ALLOW_ONCE, AcpSink, Asked, Out, REJECT, ask};
use crate::config::{ClientServer, ClientValues, Loaded, add_client_servers};
use crate::domain::{Alert, Mode};
use crate::fileref;
use crate::front::assemble::{Wrap, assemble};
use crate::front::replay::{Replayed, replay};
use crate::front::trust_gate::{WhenWaiting, change_lines, load_trusted, question_header};
use crate::front::usage::{Costing, figures};
use crate::front::{FrontError, mode};
use crate::llm::{CancelToken, StopReason};
use crate::store::Home;
use crate::worker::{TurnOutcome, Worker};

/// What opening a session needs.
pub(crate) struct Opening {
    /// The editor's working directory (absolute).
    pub(crate) cwd: PathBuf,
    /// The session to continue (`session/load`), else a new one.
    pub(crate) load: Option<String>,
    /// The editor's MCP servers.
    pub(crate) servers: Vec<ClientServer>,
    /// `$WARDEN_HOME`.
    pub(crate) home: Home,
    /// `--mode`.
    pub(crate) mode: Option<Mode>,
    /// How long a question waits for the editor.
    pub(crate) ask_timeout: Duration,
}

/// A session opened.
pub(crate) struct Opened {
    /// The session id.
    pub(crate) id: String,
    /// The workspace root.
    pub(crate) root: PathBuf,
    /// The longest prompt, in bytes (`worker.max_prompt_bytes`).
    pub(crate) max_prompt: usize,
    /// The mode in force.
    pub(crate) mode: Mode,
    /// The modes managed policy lets the person switch to.
    pub(crate) modes: Vec<Mode>,
    /// What to tell the person once the session is open (held-back project code, warnings).
    pub(crate) notes: Vec<Alert>,
    /// For `session/load`: the conversation, replayed.
    pub(crate) replay: Vec<SessionUpdate>,
}

/// How a prompt ended.
pub(crate) enum Ended {
    /// The turn ended this way.
    Turn(agent_client_protocol::v1::schema::StopReason),
    /// A command ran (its output was sent as a message).
    Command,
}

enum Job {
    Prompt {
        text: String,
        out: mpsc::UnboundedSender<Out>,
        done: oneshot::Sender<Result<Ended, String>>,
    },
    SetMode {
        mode: Mode,
        reply: oneshot::Sender<Result<(), String>>,
    },
    Reopen {
        reply: oneshot::Sender<Opened>,
    },
}

/// The connection's handle on a session's thread; dropping every clone ends the session.
#[derive(Clone)]
pub(crate) struct SessionHandle {
    /// The workspace root.
    pub(crate) root: Arc<PathBuf>,
    /// The longest prompt, in bytes.
    pub(crate) max_prompt: usize,
    jobs: std::sync::mpsc::Sender<Job>,
    cancel: Arc<Mutex<CancelToken>>,
    busy: Arc<Mutex<bool>>,
}

const GONE: &str = "the session's thread has stopped";

impl SessionHandle {
    /// Run `text` as the person's prompt (or a command), updates and questions on `out`.
    pub(crate) async fn prompt(
        &self,
        text: String,
        out: mpsc::UnboundedSender<Out>,
    ) -> Result<Ended, String> {
        {
            let mut busy = self.busy.lock().unwrap_or_else(PoisonError::into_inner);
            if *busy {
                return Err("a prompt is already running in this session; cancel it first".into());
            }
            *busy = true;
        }
        let (done, answer) = oneshot::channel();
        let sent = self.jobs.send(Job::Prompt { text, out, done });
        let result = match sent {
            Ok(()) => answer.await.unwrap_or_else(|_| Err(GONE.to_owned())),
            Err(_) => Err(GONE.to_owned()),
        };
        *self.busy.lock().unwrap_or_else(PoisonError::into_inner) = false;
        result
    }

    /// Switch the mode, unless managed policy refuses it.
    pub(crate) async fn set_mode(&self, mode: Mode) -> Result<(), String> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::SetMode { mode, reply })
            .map_err(|_| GONE.to_owned())?;
        answer.await.unwrap_or_else(|_| Err(GONE.to_owned()))
    }

    /// The session as a `session/load` of it finds it, replay included (it is open already).
    pub(crate) async fn reopen(&self) -> Result<Opened, FrontError> {
        let (reply, answer) = oneshot::channel();
        self.jobs
            .send(Job::Reopen { reply })
            .map_err(|_| FrontError::failure(GONE))?;
        answer.await.map_err(|_| FrontError::failure(GONE))
    }

    /// Stop the running turn as Ctrl-C stops it (nothing partial is committed).
    pub(crate) fn cancel(&self) {
        self.cancel
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .cancel();
    }
}

/// Open a session on a thread of its own; `out` carries what it says while opening (nothing
/// is asked then).
pub(crate) async fn open(opening: Opening) -> Result<(SessionHandle, Opened), FrontError> {
    let (ready_tx, ready_rx) = oneshot::channel();
    let (jobs, queue) = std::sync::mpsc::channel::<Job>();
    let cancel = Arc::new(Mutex::new(CancelToken::new()));
    let thread_cancel = Arc::clone(&cancel);
    std::thread::Builder::new()
        .name("warden-acp-session".into())
        .spawn(move || {
            let loading = opening.load.is_some();
            let mut session = match Session::open(opening) {
                Ok(session) => session,
                Err(err) => {
                    let _ = ready_tx.send(Err(err));
                    return;
                }
            };
            let opened = session.opened(loading);
            if ready_tx.send(Ok(opened)).is_err() {
                session.end();
                return;
            }
            if let Some(session) = session.serve(&queue, &thread_cancel) {
                session.end();
            }
        })
        .map_err(|err| FrontError::failure(format!("cannot start the session's thread: {err}")))?;
    let opened = ready_rx.await.map_err(|_| FrontError::failure(GONE))??;
    Ok((
        SessionHandle {
            root: Arc::new(opened.root.clone()),
            max_prompt: opened.max_prompt,
            jobs,
            cancel,
            busy: Arc::new(Mutex::new(false)),
        },
        opened,
    ))
}

/// The state on the session's thread.
struct Session {
    worker: Worker,
    loaded: Loaded,
    root: PathBuf,
    home: Home,
    servers: Vec<ClientServer>,
    mapper: Mapper,
    notes: Vec<Alert>,
    ask_timeout: Duration,
    _trace: crate::telemetry::SessionTrace,
}

/// The editor's MCP values, for the servers' start only.
struct AcpWrap<'a>(&'a ClientValues);

impl Wrap for AcpWrap<'_> {
    fn mcp_value(&self, var: &str) -> Option<String> {
        self.0.get(var).cloned()
    }
}

/// Commands an editor offers as `/name` (`available_commands_update`), with what they do.
pub(crate) const COMMANDS: &[(&str, &str)] = &[
    (
        "compact",
        "summarise the session and re-read its files; history keeps everything",
    ),
    ("cost", "the session's tokens and what they cost"),
    (
        "status",
        "session, model, permission mode, workspace and how full the window is",
    ),
    ("context", "what fills the model's window, kind by kind"),
    ("diff", "the diffs of every file this session changed"),
    ("undo", "put back the files the last turn wrote or edited"),
    (
        "trust",
        "review the project's plugins, hooks and settings and let them run",
    ),
];

impl Session {
    fn open(opening: Opening) -> Result<Self, FrontError> {
        let root = workspace_of(&opening.cwd)?;
        let (loaded, notes) = configuration(&root, &opening.home, WhenWaiting::LeaveOut)?;
        Self::assemble(
            loaded,
            notes,
            root,
            opening.home,
            opening.servers,
            opening.mode,
            opening.load.as_deref(),
            opening.ask_timeout,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn assemble(
        mut loaded: Loaded,
        mut notes: Vec<Alert>,
        root: PathBuf,
        home: Home,
        servers: Vec<ClientServer>,
        mode: Option<Mode>,
        load: Option<&str>,
        ask_timeout: Duration,
    ) -> Result<Self, FrontError> {
        if let Some(mode) = mode {
            mode::allowed(&loaded, mode, "--mode").map_err(FrontError::usage)?;
            loaded.config.tools.mode = mode;
        }
        let values = add_client_servers(
            &mut loaded,
            &servers,
            Path::new("the editor's session/new mcpServers"),
        )
        .map_err(|err| FrontError::usage(err.to_string()))?;
        notes.extend(
            std::mem::take(&mut loaded.warnings)
                .into_iter()
                .map(|w| Alert::warn("config", w)),
        );
        let assembled = assemble(&loaded.config, &root, &home, load, &mut AcpWrap(&values))?;
        let worker = assembled.worker;
        // A session is continued only in the workspace it records (read as it is opened).
        if worker.workspace() != root {
            return Err(FrontError::usage(format!(
                "session {} belongs to {}, not to {}; open that folder to continue it",
                worker.session_id(),
                worker.workspace().display(),
                root.display()
            )));
        }
        let costing = Costing::of(&loaded.config.model);
        let mapper = Mapper::new(
            &root,
            &loaded.config.fileref.deny,
            costing.clone(),
            figures(worker.records(), &costing),
        );
        let trace = crate::telemetry::enter_session(worker.session_id(), worker.parent_session());
        Ok(Self {
            worker,
            loaded,
            root,
            home,
            servers,
            mapper,
            notes,
            ask_timeout,
            _trace: trace,
        })
    }

    /// What `session/new` or (`replayed`) `session/load` answers with.
    fn opened(&mut self, replayed: bool) -> Opened {
        let modes = Mode::ALL
            .into_iter()
            .filter(|m| mode::allowed(&self.loaded, *m, "mode").is_ok())
            .collect();
        Opened {
            id: self.worker.session_id().to_owned(),
            root: self.root.clone(),
            max_prompt: usize::try_from(self.loaded.config.worker.max_prompt_bytes)
                .unwrap_or(usize::MAX),
            mode: self.worker.mode(),
            modes,
            notes: std::mem::take(&mut self.notes),
            replay: if replayed {
                self.replayed()
            } else {
                Vec::new()
            },
        }
    }

    /// The session's conversation as updates.
    fn replayed(&mut self) -> Vec<SessionUpdate> {
        let mut mapper = Mapper::new(
            &self.root,
            &self.loaded.config.fileref.deny,
            Costing::of(&self.loaded.config.model),
            None,
        );
        let mut updates = Vec::new();
        for item in replay(self.worker.history()) {
            match item {
                Replayed::Prompt(text) => updates.push(SessionUpdate::UserMessageChunk(
                    ContentChunk::new(ContentBlock::from(text)),
                )),
                Replayed::Event(event) => updates.extend(mapper.map(&event)),
            }
        }
        updates
    }

    /// Run jobs until the connection lets the session go; the session as it is then (`None`
    /// when it could not be opened again after `/trust`).
    fn serve(
        mut self,
        queue: &std::sync::mpsc::Receiver<Job>,
        cancel: &Mutex<CancelToken>,
    ) -> Option<Self> {
        while let Ok(job) = queue.recv() {
            match job {
                Job::Prompt { text, out, done } => {
                    let token = self.worker.new_cancel_token();
                    *cancel.lock().unwrap_or_else(PoisonError::into_inner) = token.clone();
                    let ended = match command(&text) {
                        Some(("trust", _)) => {
                            let (session, ended) = self.retrust(&out, &token);
                            let _ = done.send(ended);
                            self = session?;
                            continue;
                        }
                        Some((name, args)) => self.command(name, args, &out),
                        None => self.turn(&text, &out, token),
                    };
                    let _ = done.send(ended);
                }
                Job::Reopen { reply } => {
                    let _ = reply.send(self.opened(true));
                }
                Job::SetMode { mode: asked, reply } => {
                    let result = mode::switch(
                        &mut self.loaded,
                        &mut self.worker,
                        asked,
                        "session/set_mode",
                    );
                    let _ = reply.send(result);
                }
            }
        }
        Some(self)
    }

    fn turn(
        &mut self,
        text: &str,
        out: &mpsc::UnboundedSender<Out>,
        token: CancelToken,
    ) -> Result<Ended, String> {
        let segments = fileref::parse(text).segments;
        let mut sink = AcpSink {
            mapper: &mut self.mapper,
            out,
            token: token.clone(),
            ask_timeout: self.ask_timeout,
        };
        let result = self.worker.submit_segments(&segments, &mut sink);
        use agent_client_protocol::v1::schema::StopReason as Stop;
        if token.is_cancelled() {
            return Ok(Ended::Turn(Stop::Cancelled));
        }
        match result {
            Ok(TurnOutcome::Answered { .. }) => Ok(Ended::Turn(
                if self.worker.last_stop_reason() == Some(&StopReason::MaxTokens) {
                    Stop::MaxTokens
                } else {
                    Stop::EndTurn
                },
            )),
            Ok(TurnOutcome::Interrupted { .. }) => Ok(Ended::Turn(Stop::Cancelled)),
            Ok(TurnOutcome::Cancelled { .. } | TurnOutcome::Stopped { .. }) => {
                Ok(Ended::Turn(Stop::Refusal))
            }
            Ok(TurnOutcome::Limited { .. }) => Ok(Ended::Turn(Stop::MaxTurnRequests)),
            Err(err) => Err(err.to_string()),
        }
    }

    fn command(
        &mut self,
        name: &str,
        args: &str,
        out: &mpsc::UnboundedSender<Out>,
    ) -> Result<Ended, String> {
        let say = |text: String| {
            let _ = out.send(Out::Update(SessionUpdate::AgentMessageChunk(
                ContentChunk::new(ContentBlock::from(text)),
            )));
        };
        let mut quiet = crate::domain::CollectingSink::default();
        match name {
            "compact" => match self.worker.compact(&mut quiet) {
                Ok(Some(done)) => say(crate::front::reports::compacted(&done)),
                Ok(None) => say("nothing to compact yet".into()),
                Err(err) => return Err(err.to_string()),
            },
            "cost" => {
                let costing = Costing::of(&self.loaded.config.model);
                say(crate::front::usage::cost_lines(self.worker.records(), &costing).join("\n"));
            }
            "status" => {
                let costing = Costing::of(&self.loaded.config.model);
                let provider = serde_json::to_value(self.loaded.config.model.provider)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_owned))
                    .unwrap_or_default();
                say(crate::front::status::status_lines(
                    &self.worker,
                    &costing,
                    &provider,
                    &self.root,
                )
                .join("\n"));
            }
            "context" => {
                let costing = Costing::of(&self.loaded.config.model);
                say(crate::front::status::context_lines(
                    &self.worker.context_parts(),
                    costing.window,
                )
                .join("\n"));
            }
            "diff" => match self.worker.session_diff() {
                Ok(changes) if changes.is_empty() => {
                    say("no file of this session differs from before its changes".into());
                }
                Ok(changes) => {
                    for change in changes {
                        say(format!(
                            "```diff\n--- a/{0}\n+++ b/{0}\n{1}```\n",
                            change.shown(),
                            change.diff
                        ));
                    }
                }
                Err(err) => return Err(format!("/diff: {err}")),
            },
            "undo" => {
                let turns = args.trim().parse::<usize>().unwrap_or(1).max(1);
                let report = self
                    .worker
                    .undo(&mut quiet, turns, false)
                    .map_err(|err| err.to_string())?;
                say(crate::front::reports::undone(&report, self.worker.session_id()).join("\n"));
            }
            _ => return Err(format!("unknown command /{name}")),
        }
        for alert in quiet.alerts {
            say(super::map::alert_text(&alert));
        }
        Ok(Ended::Command)
    }

    /// `/trust`: show what the project's configuration would run and ask; on yes, record the
    /// trust and open the session again with the project's code (on a failure, without it, as
    /// before). `None` when the session could not be opened again.
    fn retrust(
        self,
        out: &mpsc::UnboundedSender<Out>,
        token: &CancelToken,
    ) -> (Option<Self>, Result<Ended, String>) {
        let timeout = self.ask_timeout;
        let mut asked = None;
        let mut asker = |pending: &crate::setup::trust::Pending| {
            let mut text = question_header(pending);
            for line in change_lines(pending, false) {
                text.push('\n');
                text.push_str(&line);
            }
            let fields = ToolCallUpdateFields::new()
                .title(format!("trust {}", pending.root.display()))
                .kind(ToolKind::Other)
                .status(ToolCallStatus::Pending)
                .content(vec![ToolCallContent::from(format!("```\n{text}\n```"))]);
            let options = vec![
                PermissionOption::new(
                    ALLOW_ONCE,
                    "Trust it and load it",
                    PermissionOptionKind::AllowOnce,
                ),
                PermissionOption::new(REJECT, "Do not trust it", PermissionOptionKind::RejectOnce),
            ];
            let call = ToolCallUpdate::new("trust", fields);
            let yes = matches!(ask(out, call, options, token, timeout), Asked::Chose(id) if id == ALLOW_ONCE);
            asked = Some(yes);
            yes
        };
        let gated = configuration(&self.root, &self.home, WhenWaiting::Ask(&mut asker));
        let (loaded, notes) = match gated {
            Ok(gated) => gated,
            Err(err) => return (Some(self), Err(err.message)),
        };
        match asked {
            None => {
                let said = notes.iter().find(|n| n.source == "trust").map_or_else(
                    || format!("nothing in {} waits for trust", self.root.display()),
                    |n| n.message.clone(),
                );
                self.say(out, said);
                return (Some(self), Ok(Ended::Command));
            }
            Some(false) => {
                self.say(
                    out,
                    "nothing was trusted: the session goes on without the project's code".into(),
                );
                return (Some(self), Ok(Ended::Command));
            }
            Some(true) => {}
        }
        let id = self.worker.session_id().to_owned();
        let mode = Some(self.worker.mode());
        let (root, home, servers, timeout) = (
            self.root.clone(),
            self.home.clone(),
            self.servers.clone(),
            self.ask_timeout,
        );
        let before = self.loaded.clone();
        // The session's writer is let go before it is opened again.
        drop(self);
        let again = |loaded, notes| {
            Self::assemble(
                loaded,
                notes,
                root.clone(),
                home.clone(),
                servers.clone(),
                mode,
                Some(&id),
                timeout,
            )
        };
        match again(loaded, notes) {
            Ok(mut session) => {
                let notes = std::mem::take(&mut session.notes);
                session.say(
                    out,
                    format!("trusted {}: the project's code is loaded", root.display()),
                );
                for note in notes {
                    session.say(out, super::map::alert_text(&note));
                }
                (Some(session), Ok(Ended::Command))
            }
            Err(err) => {
                let failed = format!(
                    "trusted, but the project's code could not be loaded: {}",
                    err.message
                );
                match again(before, Vec::new()) {
                    Ok(session) => (Some(session), Err(failed)),
                    Err(again) => (
                        None,
                        Err(format!(
                            "{failed}; and the session could not be opened again: {}",
                            again.message
                        )),
                    ),
                }
            }
        }
    }

    fn say(&self, out: &mpsc::UnboundedSender<Out>, text: String) {
        let _ = out.send(Out::Update(SessionUpdate::AgentMessageChunk(
            ContentChunk::new(ContentBlock::from(text)),
        )));
    }

    /// The session ends: its `SessionEnd` hooks run, then its audit head is signed when
    /// `[audit] sign_key` says so.
    fn end(mut self) {
        self.worker.end_session("prompt_input_exit");
        let id = self.worker.session_id().to_owned();
        if let Some(signed) =
            crate::worker::audit_sign::end_session(&self.home, &id, &self.loaded.config.audit)
        {
            match crate::worker::audit_sign::describe(&id, &signed) {
                Ok(line) => tracing::info!("{line}"),
                Err(problem) => tracing::warn!("audit: {problem}"),
            }
        }
    }
}

/// `/name args` when `text` is one of [`COMMANDS`].
fn command(text: &str) -> Option<(&str, &str)> {
    let rest = text.trim().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    COMMANDS
        .iter()
        .any(|(known, _)| *known == name)
        .then_some((name, args))
}

/// The configuration of `root`, and what to tell the person about it.
fn configuration(
    root: &Path,
    home: &Home,
    when: WhenWaiting<'_>,
) -> Result<(Loaded, Vec<Alert>), FrontError> {
    let gated = load_trusted(root, home, when).map_err(|refused| refused.error)?;
    let mut notes: Vec<Alert> = gated
        .warnings
        .iter()
        .map(|w| Alert::warn("config", w.clone()))
        .collect();
    if let Some(mut alert) = gated.alert {
        alert.message.push_str("; or type /trust here to review it");
        notes.push(alert);
    }
    let mut loaded = gated.loaded;
    loaded.warnings.clear();
    Ok((loaded, notes))
}

/// The workspace root for the editor's `cwd`: absolute, an existing directory, not inside a
/// `.git` or `.warden` directory (symbolic links resolved), then found as every command finds
/// it (the nearest ancestor holding `.warden/`, else `.git`, else the directory itself); the
/// file system root is no workspace.
pub(crate) fn workspace_of(cwd: &Path) -> Result<PathBuf, FrontError> {
    if !cwd.is_absolute() {
        return Err(FrontError::usage(format!(
            "cwd {}: not an absolute path",
            cwd.display()
        )));
    }
    let real = cwd
        .canonicalize()
        .map_err(|err| FrontError::usage(format!("cwd {}: {err}", cwd.display())))?;
    if !real.is_dir() {
        return Err(FrontError::usage(format!(
            "cwd {}: not a directory",
            cwd.display()
        )));
    }
    if real
        .components()
        .any(|c| matches!(c, Component::Normal(name) if name == ".git" || name == ".warden"))
    {
        return Err(FrontError::usage(format!(
            "cwd {} is inside {}: warden never works in a repository's `.git` or its own `.warden` directory",
            cwd.display(),
            real.display()
        )));
    }
    let root = crate::front::workspace::discover(&real);
    if root.parent().is_none() {
        return Err(FrontError::usage(format!(
            "cwd {}: the file system root is not a workspace; open a project folder",
            cwd.display()
        )));
    }
    Ok(root)
}
