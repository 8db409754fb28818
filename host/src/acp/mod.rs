//! `warden acp`: warden as an Agent Client Protocol agent (protocol v1) on stdin and stdout, for
//! editors (Zed, JetBrains IDEs, Neovim, Emacs). The second interactive front end beside the
//! chat, as thin: what both need comes from `front/`; this folder is the JSON-RPC mapping.
//!
//! - [`transport`]: newline-delimited JSON-RPC with a bounded line.
//! - [`agent`]: the methods answered, on the protocol crate's connection.
//! - [`session`]: one session's worker on a thread of its own; [`sink`]: a turn's events and
//!   questions sent from that thread; [`map`]: events as `session/update`s; [`prompt`]: an
//!   editor's content blocks as a prompt with `@` references.

mod agent;
mod map;
mod prompt;
mod session;
mod sink;
mod transport;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::v1::schema::{
    CancelNotification, CloseSessionRequest, InitializeRequest, ListSessionsRequest,
    LoadSessionRequest, NewSessionRequest, PromptRequest, SetSessionModeRequest,
};
use agent_client_protocol::{Agent, on_receive_notification, on_receive_request};

use crate::domain::Mode;
use crate::store::Home;

/// Longest message read from the editor, in bytes.
pub const MAX_MESSAGE_BYTES: usize = 16 << 20;

/// What `warden acp` serves with.
pub struct AcpOptions {
    /// `$WARDEN_HOME`.
    pub home: Home,
    /// `--mode`: the mode every session starts in (held to managed policy).
    pub mode: Option<Mode>,
    /// How long a question (an approval, `/trust`) waits for the editor's answer before the
    /// call is not run.
    pub ask_timeout: Duration,
}

/// Serve the editor on stdin and stdout until it closes them.
pub fn serve(options: AcpOptions) -> Result<(), String> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|err| format!("cannot start the runtime: {err}"))?;
    runtime.block_on(run(options))
}

async fn run(options: AcpOptions) -> Result<(), String> {
    let state = Arc::new(agent::State {
        home: options.home,
        mode: options.mode,
        ask_timeout: options.ask_timeout,
        sessions: Mutex::new(HashMap::new()),
    });
    let transport = transport::lines(tokio::io::stdin(), tokio::io::stdout(), MAX_MESSAGE_BYTES);
    let (s2, s3, s4, s5, s6, s7, s8) = (
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
        Arc::clone(&state),
    );
    let result = Agent
        .v1()
        .name("warden")
        .on_receive_request(
            async move |request: InitializeRequest, responder, _cx| {
                responder.respond(agent::initialize(&request))
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder, cx| {
                agent::new_session(&s2, request, responder, &cx)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder, cx| {
                agent::load_session(&s3, request, responder, &cx)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: ListSessionsRequest, responder, _cx| match agent::list_sessions(
                &s4, &request,
            ) {
                Ok(list) => responder.respond(list),
                Err(err) => responder.respond_with_error(err),
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, cx| {
                agent::prompt(&s5, request, responder, &cx)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder, cx| {
                agent::set_mode(&s6, request, responder, &cx)
            },
            on_receive_request!(),
        )
        .on_receive_request(
            async move |request: CloseSessionRequest, responder, _cx| match agent::close(
                &s7, &request,
            ) {
                Ok(closed) => responder.respond(closed),
                Err(err) => responder.respond_with_error(err),
            },
            on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                agent::cancel(&s8, &notification);
                Ok(())
            },
            on_receive_notification!(),
        )
        .connect_to(transport)
        .await
        .map_err(|err| format!("the editor's connection failed: {err:?}"));
    // Every session ends with the connection: its thread runs its `SessionEnd` hooks.
    state
        .sessions
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .clear();
    result
}
