//! The ACP methods warden answers, each mapped onto the sessions' threads: `initialize`,
//! `session/new`, `session/load`, `session/list`, `session/prompt`, `session/set_mode`,
//! `session/close` and the `session/cancel` notification. Work that waits (opening a session,
//! a turn) runs outside the dispatch loop, so that a cancel is read while a turn runs. Anything
//! else is answered `method not found` by the protocol layer.

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, AvailableCommand, AvailableCommandInput, AvailableCommandsUpdate,
    CancelNotification, CloseSessionRequest, CloseSessionResponse, ContentBlock, ContentChunk,
    Implementation, InitializeRequest, InitializeResponse, ListSessionsRequest,
    ListSessionsResponse, LoadSessionRequest, LoadSessionResponse, McpCapabilities, McpServer,
    NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest, PromptResponse,
    RequestPermissionOutcome, RequestPermissionRequest, SessionCapabilities,
    SessionCloseCapabilities, SessionInfo, SessionListCapabilities, SessionMode, SessionModeState,
    SessionNotification, SessionUpdate, SetSessionModeRequest, SetSessionModeResponse,
    UnstructuredCommandInput,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Client, Error};
use tokio::sync::mpsc;

use super::map::alert_text;
use super::prompt::prompt_text;
use super::session::{COMMANDS, Ended, Opened, Opening, SessionHandle, open, workspace_of};
use super::sink::Out;
use crate::config::ClientServer;
use crate::domain::Mode;
use crate::front::FrontError;
use crate::store::Home;

/// What every handler shares.
pub(crate) struct State {
    /// `$WARDEN_HOME`.
    pub(crate) home: Home,
    /// `--mode`.
    pub(crate) mode: Option<Mode>,
    /// How long a question waits for the editor.
    pub(crate) ask_timeout: Duration,
    /// The open sessions, by id.
    pub(crate) sessions: Mutex<HashMap<String, SessionHandle>>,
}

type Cx = ConnectionTo<Client>;

/// A JSON-RPC error for a front-end error: invalid params when it is the client's to fix.
fn rpc_error(err: &FrontError) -> Error {
    if err.usage {
        Error::invalid_params().data(serde_json::json!(err.message))
    } else {
        Error::internal_error().data(serde_json::json!(err.message))
    }
}

fn invalid(message: impl Into<String>) -> Error {
    Error::invalid_params().data(serde_json::json!(message.into()))
}

impl State {
    fn session(&self, id: &str) -> Result<SessionHandle, Error> {
        self.sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
            .ok_or_else(|| {
                invalid(format!(
                    "no open session {id}: open it with session/new or session/load"
                ))
            })
    }
}

/// `initialize`: version 1, sessions that load and list, prompts with embedded context, MCP
/// servers over stdio and HTTP.
pub(crate) fn initialize(request: &InitializeRequest) -> InitializeResponse {
    let version = if request.protocol_version < ProtocolVersion::V1 {
        request.protocol_version
    } else {
        ProtocolVersion::V1
    };
    InitializeResponse::new(version)
        .agent_capabilities(
            AgentCapabilities::new()
                .load_session(true)
                .prompt_capabilities(PromptCapabilities::new().embedded_context(true))
                .mcp_capabilities(McpCapabilities::new().http(true))
                .session_capabilities(
                    SessionCapabilities::new()
                        .list(SessionListCapabilities::new())
                        .close(SessionCloseCapabilities::new()),
                ),
        )
        .agent_info(Implementation::new("warden", env!("CARGO_PKG_VERSION")).title("warden"))
}

/// The editor's MCP servers as warden describes them.
fn client_servers(servers: &[McpServer]) -> Result<Vec<ClientServer>, Error> {
    servers
        .iter()
        .map(|server| match server {
            McpServer::Stdio(s) => {
                let mut command = vec![s.command.to_string_lossy().into_owned()];
                command.extend(s.args.iter().cloned());
                Ok(ClientServer {
                    name: s.name.clone(),
                    command: Some(command),
                    url: None,
                    env: s
                        .env
                        .iter()
                        .map(|v| (v.name.clone(), v.value.clone()))
                        .collect(),
                    headers: Vec::new(),
                })
            }
            McpServer::Http(s) => Ok(ClientServer {
                name: s.name.clone(),
                command: None,
                url: Some(s.url.clone()),
                env: Vec::new(),
                headers: s
                    .headers
                    .iter()
                    .map(|h| (h.name.clone(), h.value.clone()))
                    .collect(),
            }),
            McpServer::Sse(s) => Err(invalid(format!(
                "MCP server `{}`: the SSE transport is not supported (use HTTP)",
                s.name
            ))),
            _ => Err(invalid("an MCP server of an unknown transport")),
        })
        .collect()
}

fn modes(opened: &Opened) -> SessionModeState {
    let available = opened
        .modes
        .iter()
        .map(|mode| {
            let (_, what) = crate::front::mode::described()
                .into_iter()
                .find(|(m, _)| m == mode)
                .unwrap_or((*mode, ""));
            SessionMode::new(mode.name(), mode.name()).description(what.to_owned())
        })
        .collect();
    SessionModeState::new(opened.mode.name(), available)
}

fn say(cx: &Cx, session: &str, update: SessionUpdate) -> Result<(), Error> {
    cx.send_notification(SessionNotification::new(session.to_owned(), update))
}

/// After `session/new` or `session/load` answered: the commands, then what to tell the person.
fn announce(cx: &Cx, id: &str, notes: &[crate::domain::Alert]) -> Result<(), Error> {
    let commands = COMMANDS
        .iter()
        .map(|(name, what)| {
            let command = AvailableCommand::new(*name, *what);
            if *name == "undo" {
                command.input(AvailableCommandInput::Unstructured(
                    UnstructuredCommandInput::new("how many turns (default 1)"),
                ))
            } else {
                command
            }
        })
        .collect();
    say(
        cx,
        id,
        SessionUpdate::AvailableCommandsUpdate(AvailableCommandsUpdate::new(commands)),
    )?;
    for note in notes {
        say(
            cx,
            id,
            SessionUpdate::AgentMessageChunk(ContentChunk::new(ContentBlock::from(alert_text(
                note,
            )))),
        )?;
    }
    Ok(())
}

/// `session/new` and `session/load`: opened on a thread of its own, outside the dispatch loop.
pub(crate) fn open_session(
    state: &Arc<State>,
    cx: &Cx,
    cwd: PathBuf,
    servers: &[McpServer],
    load: Option<String>,
    respond: impl FnOnce(&Cx, String, SessionModeState) -> Result<(), Error> + Send + 'static,
    fail: impl FnOnce(Error) -> Result<(), Error> + Send + 'static,
) -> Result<(), Error> {
    let servers = match client_servers(servers) {
        Ok(servers) => servers,
        Err(err) => return fail(err),
    };
    let opening = Opening {
        cwd,
        load,
        servers,
        home: state.home.clone(),
        mode: state.mode,
        ask_timeout: state.ask_timeout,
    };
    let state = Arc::clone(state);
    let task_cx = cx.clone();
    // A session this process has open already is replayed from its own thread.
    let open_already = opening.load.as_ref().and_then(|id| {
        state
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    });
    cx.spawn(async move {
        let opened = match open_already {
            Some(handle) => match handle.reopen().await {
                Ok(opened) if workspace_of(&opening.cwd).is_ok_and(|root| root == opened.root) => {
                    Ok((handle, opened))
                }
                Ok(opened) => Err(FrontError::usage(format!(
                    "session {} belongs to {}; open that folder to continue it",
                    opened.id,
                    opened.root.display()
                ))),
                Err(err) => Err(err),
            },
            None => open(opening).await,
        };
        let (handle, opened) = match opened {
            Ok(opened) => opened,
            Err(err) => return fail(rpc_error(&err)),
        };
        let id = opened.id.clone();
        // A session loaded twice keeps one thread: the newer handle replaces the older.
        state
            .sessions
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.clone(), handle);
        for update in &opened.replay {
            say(&task_cx, &id, update.clone())?;
        }
        respond(&task_cx, id.clone(), modes(&opened))?;
        announce(&task_cx, &id, &opened.notes)
    })
}

/// `session/new`.
pub(crate) fn new_session(
    state: &Arc<State>,
    request: NewSessionRequest,
    responder: Responder<NewSessionResponse>,
    cx: &Cx,
) -> Result<(), Error> {
    let (ok, err) = split(responder);
    open_session(
        state,
        cx,
        request.cwd,
        &request.mcp_servers,
        None,
        move |_, id, modes| ok(NewSessionResponse::new(id).modes(modes)),
        err,
    )
}

/// `session/load`.
pub(crate) fn load_session(
    state: &Arc<State>,
    request: LoadSessionRequest,
    responder: Responder<LoadSessionResponse>,
    cx: &Cx,
) -> Result<(), Error> {
    let (ok, err) = split(responder);
    open_session(
        state,
        cx,
        request.cwd,
        &request.mcp_servers,
        Some(request.session_id.to_string()),
        move |_, _, modes| ok(LoadSessionResponse::new().modes(modes)),
        err,
    )
}

/// One responder as its two ends.
#[allow(clippy::type_complexity)]
fn split<T: agent_client_protocol::JsonRpcResponse + Send + 'static>(
    responder: Responder<T>,
) -> (
    impl FnOnce(T) -> Result<(), Error> + Send + 'static,
    impl FnOnce(Error) -> Result<(), Error> + Send + 'static,
) {
    let shared = Arc::new(Mutex::new(Some(responder)));
    let second = Arc::clone(&shared);
    let take = |slot: &Mutex<Option<Responder<T>>>| {
        slot.lock().unwrap_or_else(PoisonError::into_inner).take()
    };
    (
        move |value| match take(&shared) {
            Some(responder) => responder.respond(value),
            None => Ok(()),
        },
        move |error| match take(&second) {
            Some(responder) => responder.respond_with_error(error),
            None => Ok(()),
        },
    )
}

/// `session/list`: the sessions of the `cwd`'s workspace (of every workspace without one),
/// most recent first.
pub(crate) fn list_sessions(
    state: &State,
    request: &ListSessionsRequest,
) -> Result<ListSessionsResponse, Error> {
    let root = match &request.cwd {
        Some(cwd) => Some(workspace_of(cwd).map_err(|e| rpc_error(&e))?),
        None => None,
    };
    let offered = crate::front::sessions::candidates(&state.home, root.as_deref(), None)
        .map_err(|e| rpc_error(&e))?;
    Ok(ListSessionsResponse::new(
        offered
            .into_iter()
            .map(|c| {
                SessionInfo::new(c.id, c.workspace)
                    .title(c.title)
                    .updated_at(humantime::format_rfc3339_seconds(c.activity).to_string())
            })
            .collect(),
    ))
}

/// `session/set_mode`: held to managed policy as `/mode` is.
pub(crate) fn set_mode(
    state: &State,
    request: SetSessionModeRequest,
    responder: Responder<SetSessionModeResponse>,
    cx: &Cx,
) -> Result<(), Error> {
    let handle = match state.session(&request.session_id.to_string()) {
        Ok(handle) => handle,
        Err(err) => return responder.respond_with_error(err),
    };
    let mode = match request.mode_id.to_string().parse::<Mode>() {
        Ok(mode) => mode,
        Err(err) => return responder.respond_with_error(invalid(err.to_string())),
    };
    cx.spawn(async move {
        match handle.set_mode(mode).await {
            Ok(()) => responder.respond(SetSessionModeResponse::new()),
            Err(refused) => responder.respond_with_error(invalid(refused)),
        }
    })
}

/// `session/close`: the session's thread ends (its `SessionEnd` hooks run).
pub(crate) fn close(
    state: &State,
    request: &CloseSessionRequest,
) -> Result<CloseSessionResponse, Error> {
    let id = request.session_id.to_string();
    match state
        .sessions
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .remove(&id)
    {
        Some(_) => Ok(CloseSessionResponse::new()),
        None => Err(invalid(format!("no open session {id}"))),
    }
}

/// `session/cancel`: the running turn stops as Ctrl-C stops it.
pub(crate) fn cancel(state: &State, notification: &CancelNotification) {
    if let Ok(handle) = state.session(&notification.session_id.to_string()) {
        handle.cancel();
    }
}

/// `session/prompt`: the turn runs on the session's thread; its updates are sent as they come,
/// its questions asked, and the prompt answered with how it ended.
pub(crate) fn prompt(
    state: &State,
    request: PromptRequest,
    responder: Responder<PromptResponse>,
    cx: &Cx,
) -> Result<(), Error> {
    let id = request.session_id.to_string();
    let handle = match state.session(&id) {
        Ok(handle) => handle,
        Err(err) => return responder.respond_with_error(err),
    };
    let text = match prompt_text(&request.prompt, &handle.root) {
        Ok(text) => text,
        Err(why) => return responder.respond_with_error(invalid(why)),
    };
    if text.len() > handle.max_prompt {
        return responder.respond_with_error(invalid(format!(
            "the prompt is {} bytes, over the limit of {} (worker.max_prompt_bytes)",
            text.len(),
            handle.max_prompt
        )));
    }
    let task_cx = cx.clone();
    cx.spawn(async move {
        let (out, mut updates) = mpsc::unbounded_channel();
        let turn = handle.prompt(text, out);
        tokio::pin!(turn);
        let ended = loop {
            tokio::select! {
                biased;
                Some(next) = updates.recv() => forward(&task_cx, &id, next).await?,
                ended = &mut turn => break ended,
            }
        };
        while let Ok(next) = updates.try_recv() {
            forward(&task_cx, &id, next).await?;
        }
        match ended {
            Ok(Ended::Turn(stop)) => responder.respond(PromptResponse::new(stop)),
            Ok(Ended::Command) => responder.respond(PromptResponse::new(
                agent_client_protocol::v1::schema::StopReason::EndTurn,
            )),
            Err(message) => responder
                .respond_with_error(Error::internal_error().data(serde_json::json!(message))),
        }
    })
}

/// Send one update, or ask one question and hand its answer back (given up when the session's
/// thread stops waiting: the request is then withdrawn).
async fn forward(cx: &Cx, session: &str, next: Out) -> Result<(), Error> {
    match next {
        Out::Update(update) => say(cx, session, update),
        Out::Ask {
            call,
            options,
            mut answer,
        } => {
            let request = RequestPermissionRequest::new(session.to_owned(), call, options);
            let sent = cx.send_request(request);
            tokio::select! {
                result = sent.block_task() => {
                    let chosen = match result {
                        Ok(response) => match response.outcome {
                            RequestPermissionOutcome::Selected(selected) => {
                                Some(selected.option_id.to_string())
                            }
                            _ => None,
                        },
                        Err(err) => {
                            tracing::warn!("session/request_permission failed: {err:?}");
                            None
                        }
                    };
                    let _ = answer.send(chosen);
                }
                () = answer.closed() => {}
            }
            Ok(())
        }
    }
}
