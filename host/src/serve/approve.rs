//! A call that asks — the permission mode asks about its effect, or its tool plugin says
//! `approve = "ask"` — is asked of the person through the MCP client: `--yes` answers yes for
//! them; a client that declared elicitation gets an `elicitation/create` request (accept runs
//! the call, decline or cancel denies it); any other client's call is refused, saying how to
//! let such calls run.

use rmcp::model::{ElicitRequestParams, ElicitationAction};
use rmcp::service::{Peer, RoleServer};

use crate::domain::{AlertLevel, Approval, AskWhy, ToolCall, TurnEvent, TurnSink};

/// Answers for the person, on the worker's thread.
pub(crate) type Asker = Box<dyn FnMut(&ToolCall, &AskWhy) -> Approval + Send>;

/// The front end of one served call: alerts go to the log (stderr), approval to the asker.
pub(crate) struct ServeSink {
    asker: Asker,
}

impl ServeSink {
    pub(crate) fn new(asker: Asker) -> Self {
        Self { asker }
    }
}

impl TurnSink for ServeSink {
    fn event(&mut self, event: &TurnEvent) {
        let TurnEvent::Alert(alert) = event else {
            return;
        };
        let message = crate::domain::escape::escape(&alert.message);
        match alert.level {
            AlertLevel::Info => tracing::info!("[{}]: {message}", alert.source),
            AlertLevel::Warn => tracing::warn!("[{}]: {message}", alert.source),
            AlertLevel::Error => tracing::error!("[{}]: {message}", alert.source),
        }
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        (self.asker)(call, why)
    }
}

/// The asker for one call: `yes` approves; else the client is asked through `peer` when it
/// supports form elicitation (the request runs on `runtime` while this thread waits).
pub(crate) fn asker(
    yes: bool,
    elicit: Option<(Peer<RoleServer>, tokio::runtime::Handle)>,
) -> Asker {
    if yes {
        return Box::new(|_, _| Approval::Yes);
    }
    match elicit {
        Some((peer, runtime)) => {
            Box::new(move |call, why| elicit_answer(&peer, &runtime, call, why))
        }
        None => Box::new(|_, why| {
            Approval::No(format!(
                "{}; this MCP client cannot be asked (it does not support elicitation): start `warden mcp serve` with --yes, or with a --mode that lets such calls run",
                why.requirement()
            ))
        }),
    }
}

/// The question put to the person.
fn question(call: &ToolCall, why: &AskWhy) -> String {
    format!(
        "warden: run tool `{}` with {}? ({})",
        call.name,
        call.arguments,
        why.requirement()
    )
}

fn elicit_answer(
    peer: &Peer<RoleServer>,
    runtime: &tokio::runtime::Handle,
    call: &ToolCall,
    why: &AskWhy,
) -> Approval {
    let params = serde_json::json!({
        "mode": "form",
        "message": question(call, why),
        "requestedSchema": {"type": "object", "properties": {}},
    });
    let params: ElicitRequestParams = match serde_json::from_value(params) {
        Ok(params) => params,
        Err(err) => {
            return Approval::No(format!("the elicitation request could not be made: {err}"));
        }
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let peer = peer.clone();
    runtime.spawn(async move {
        let _ = tx.send(peer.create_elicitation(params).await);
    });
    match rx.recv() {
        Ok(Ok(result)) => match result.action {
            ElicitationAction::Accept => Approval::Yes,
            ElicitationAction::Decline => Approval::No(format!(
                "{}; the person declined it through the MCP client",
                why.requirement()
            )),
            _ => Approval::No(format!(
                "{}; the person cancelled it through the MCP client",
                why.requirement()
            )),
        },
        Ok(Err(err)) => Approval::No(format!(
            "{}; asking through the MCP client failed: {err}",
            why.requirement()
        )),
        Err(_) => Approval::No(format!(
            "{}; the MCP client went away before answering",
            why.requirement()
        )),
    }
}
