//! The turn's sink on the session's thread: each event becomes updates sent to the
//! connection, and each approval becomes a question the connection asks the editor
//! (`session/request_permission`) — answered, or given up when the prompt is cancelled or the
//! editor does not answer within the wait the person set (`--ask-timeout`).

use std::time::{Duration, Instant};

use agent_client_protocol::v1::schema::{
    PermissionOption, PermissionOptionKind, SessionUpdate, ToolCallContent, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields,
};
use serde_json::Value;
use tokio::sync::{mpsc, oneshot};

use super::map::{Mapper, kind, title};
use crate::domain::{Approval, AskWhy, ToolCall, TurnEvent, TurnSink};
use crate::llm::CancelToken;

/// What the session's thread sends the connection.
pub(crate) enum Out {
    /// Send this update.
    Update(SessionUpdate),
    /// Ask the editor; the answer goes back on `answer`.
    Ask {
        /// The call, as the question shows it.
        call: ToolCallUpdate,
        /// The choices.
        options: Vec<PermissionOption>,
        /// Where the choice goes (dropped: the question was given up).
        answer: oneshot::Sender<Option<String>>,
    },
}

/// Option ids of a question.
pub(crate) const ALLOW_ONCE: &str = "allow-once";
pub(crate) const ALLOW_ALWAYS: &str = "allow-always";
pub(crate) const REJECT: &str = "reject";

/// How often a waiting question looks at the prompt's cancel token.
const POLL: Duration = Duration::from_millis(10);

/// The sink of one turn.
pub(crate) struct AcpSink<'a> {
    pub(crate) mapper: &'a mut Mapper,
    pub(crate) out: &'a mpsc::UnboundedSender<Out>,
    pub(crate) token: CancelToken,
    pub(crate) ask_timeout: Duration,
}

impl TurnSink for AcpSink<'_> {
    fn event(&mut self, event: &TurnEvent) {
        for update in self.mapper.map(event) {
            // A connection that is gone loses nothing the history does not keep.
            let _ = self.out.send(Out::Update(update));
        }
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        let (call_update, options) = question(self.mapper, call, why);
        match ask(
            self.out,
            call_update,
            options,
            &self.token,
            self.ask_timeout,
        ) {
            Asked::Chose(id) if id == ALLOW_ONCE => Approval::Yes,
            Asked::Chose(id) if id == ALLOW_ALWAYS => Approval::Always,
            Asked::Chose(_) => Approval::No("the person rejected it in the editor".into()),
            Asked::Cancelled => Approval::No("the prompt was cancelled".into()),
            Asked::TimedOut => Approval::No(format!(
                "the editor did not answer within {} s, so the call was not run",
                self.ask_timeout.as_secs()
            )),
        }
    }
}

/// How a question ended.
pub(crate) enum Asked {
    /// This option was chosen.
    Chose(String),
    /// The prompt was cancelled (or the editor answered `cancelled`, or went away).
    Cancelled,
    /// No answer in time.
    TimedOut,
}

/// Ask the editor and wait, on the session's thread, for its answer, the prompt's cancel, or
/// the end of the wait.
pub(crate) fn ask(
    out: &mpsc::UnboundedSender<Out>,
    call: ToolCallUpdate,
    options: Vec<PermissionOption>,
    token: &CancelToken,
    timeout: Duration,
) -> Asked {
    let (answer, mut answered) = oneshot::channel();
    if out
        .send(Out::Ask {
            call,
            options,
            answer,
        })
        .is_err()
    {
        return Asked::Cancelled;
    }
    let deadline = Instant::now() + timeout;
    loop {
        match answered.try_recv() {
            Ok(Some(id)) => return Asked::Chose(id),
            Ok(None) | Err(oneshot::error::TryRecvError::Closed) => return Asked::Cancelled,
            Err(oneshot::error::TryRecvError::Empty) => {}
        }
        if token.is_cancelled() {
            return Asked::Cancelled;
        }
        if Instant::now() >= deadline {
            return Asked::TimedOut;
        }
        std::thread::sleep(POLL);
    }
}

/// The question for `call`: what it is, what requires asking and what it would change (an
/// edit's diff, a command, what an escalation grants), with its choices.
fn question(
    mapper: &Mapper,
    call: &ToolCall,
    why: &AskWhy,
) -> (ToolCallUpdate, Vec<PermissionOption>) {
    let mut content: Vec<ToolCallContent> =
        vec![ToolCallContent::from(format!("{}.", why.requirement()))];
    if let Some(diff) = mapper.proposed(&call.arguments) {
        content.push(diff);
    } else if let Some(command) = call.arguments.get("command").and_then(Value::as_str) {
        content.push(ToolCallContent::from(format!("```sh\n{command}\n```")));
    }
    let fields = ToolCallUpdateFields::new()
        .title(title(call))
        .kind(kind(&call.name))
        .status(ToolCallStatus::Pending)
        .raw_input(call.arguments.clone())
        .content(content);
    let mut options = vec![PermissionOption::new(
        ALLOW_ONCE,
        "Allow once",
        PermissionOptionKind::AllowOnce,
    )];
    // An interceptor's or an escalation's question is asked every time.
    if !matches!(why, AskWhy::Interceptor { .. } | AskWhy::Escalation(_)) {
        options.push(PermissionOption::new(
            ALLOW_ALWAYS,
            format!("Always allow {} in this session", call.name),
            PermissionOptionKind::AllowAlways,
        ));
    }
    options.push(PermissionOption::new(
        REJECT,
        "Reject",
        PermissionOptionKind::RejectOnce,
    ));
    (ToolCallUpdate::new(call.id.clone(), fields), options)
}
