//! A call that asks — the permission mode asks about its effect, or its tool plugin says
//! `approve = "ask"` — is asked of the person through the MCP client: `--yes` answers yes for
//! them; a client that declared elicitation gets an `elicitation/create` request (accept runs
//! the call, decline or cancel denies it); any other client's call is refused, saying how to
//! let such calls run.
//!
//! A `shell` call whose command a rule can cover offers, as the chat does, yes (once), no, or
//! always: the elicitation's one field `answer` lists them, its message names the narrowest
//! rule "always" saves (`touch …`) before anything is saved, and the worker then saves that
//! rule to the user layer, limited to the workspace. An accept without `answer` is a yes.

use rmcp::model::{ElicitRequestParams, ElicitationAction};
use rmcp::service::{Peer, RoleServer};

use crate::domain::escape::escape_capped;
use crate::domain::{AlertLevel, Approval, AskWhy, ToolCall, TurnEvent, TurnSink};

/// Longest "always" rule text shown in the question.
const MAX_ALWAYS: usize = 200;

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

/// What "always" would save for `call`, as shown (`touch …`): `None` for a call other than
/// `shell`, or a command no rule can cover (then only yes or no is offered).
fn always_offer(call: &ToolCall) -> Option<String> {
    if call.name != crate::domain::builtin::SHELL {
        return None;
    }
    let command = call.arguments.get("command")?.as_str()?;
    let saved = crate::domain::rules::narrowest(command)?;
    if saved.is_empty() {
        return None;
    }
    let shown: Vec<String> = saved
        .iter()
        .map(crate::domain::rules::Saved::shown)
        .collect();
    Some(escape_capped(&shown.join("`, `"), MAX_ALWAYS))
}

/// The question put to the person, with the "always" on offer.
fn question(call: &ToolCall, why: &AskWhy, always: Option<&str>) -> String {
    let asked = format!(
        "warden: run tool `{}` with {}? ({})",
        call.name,
        call.arguments,
        why.requirement()
    );
    match always {
        Some(shown) => format!(
            "{asked}; answer yes (once), no, or always for `{shown}` in this workspace (saved to your config)"
        ),
        None => asked,
    }
}

/// The form asked for: one `answer` among yes / no / always when "always" is on offer, else
/// nothing (accept is yes).
fn schema(always: bool) -> serde_json::Value {
    if !always {
        return serde_json::json!({"type": "object", "properties": {}});
    }
    serde_json::json!({
        "type": "object",
        "properties": {
            "answer": {
                "type": "string",
                "title": "Run it?",
                "description": "yes: run it once; no: do not run it; always: run it and save the rule shown",
                "enum": ["yes", "no", "always"],
                "default": "yes",
            }
        },
    })
}

/// The approval an accepted form gives: `answer` always (when offered) or no; else yes.
fn accepted(content: Option<&serde_json::Value>, always: bool, why: &AskWhy) -> Approval {
    let answer = content
        .and_then(|c| c.get("answer"))
        .and_then(serde_json::Value::as_str);
    match answer {
        Some("always") if always => Approval::Always,
        Some("no") => Approval::No(format!(
            "{}; the person answered no through the MCP client",
            why.requirement()
        )),
        _ => Approval::Yes,
    }
}

fn elicit_answer(
    peer: &Peer<RoleServer>,
    runtime: &tokio::runtime::Handle,
    call: &ToolCall,
    why: &AskWhy,
) -> Approval {
    // An escalation is granted for one call only: no "always".
    let always = if matches!(why, AskWhy::Escalation(_)) {
        None
    } else {
        always_offer(call)
    };
    let params = serde_json::json!({
        "mode": "form",
        "message": question(call, why, always.as_deref()),
        "requestedSchema": schema(always.is_some()),
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
            ElicitationAction::Accept => accepted(result.content.as_ref(), always.is_some(), why),
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::Mode;
    use crate::domain::builtin::ToolEffect;

    fn shell(command: &str) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "shell".into(),
            arguments: serde_json::json!({ "command": command }),
        }
    }

    #[test]
    fn a_coverable_command_offers_always_with_its_rule_shown() {
        let why = AskWhy::Mode {
            mode: Mode::Ask,
            effect: ToolEffect::Shell,
        };
        let always = always_offer(&shell("cargo test -p x && ls"));
        assert_eq!(always.as_deref(), Some("cargo test …`, `ls …"));
        let shown = question(&shell("ls"), &why, always_offer(&shell("ls")).as_deref());
        assert!(shown.contains("always for `ls …`"), "{shown}");
        // The form is one the MCP types accept.
        let params = serde_json::json!({
            "mode": "form",
            "message": shown,
            "requestedSchema": schema(true),
        });
        assert!(serde_json::from_value::<ElicitRequestParams>(params).is_ok());
        // Nothing a rule can cover, or not a command: yes or no only.
        assert_eq!(always_offer(&shell("curl x | sh")), None);
        let write = ToolCall {
            name: "write_file".into(),
            ..shell("ls")
        };
        assert_eq!(always_offer(&write), None);
    }

    #[test]
    fn the_answer_decides() {
        let why = AskWhy::Mode {
            mode: Mode::Ask,
            effect: ToolEffect::Shell,
        };
        let of = |v: serde_json::Value| Some(v);
        assert_eq!(
            accepted(
                of(serde_json::json!({"answer": "always"})).as_ref(),
                true,
                &why
            ),
            Approval::Always
        );
        // "always" where it was not offered is a yes, once.
        assert_eq!(
            accepted(
                of(serde_json::json!({"answer": "always"})).as_ref(),
                false,
                &why
            ),
            Approval::Yes
        );
        assert!(matches!(
            accepted(of(serde_json::json!({"answer": "no"})).as_ref(), true, &why),
            Approval::No(_)
        ));
        assert_eq!(accepted(None, true, &why), Approval::Yes);
        assert_eq!(
            accepted(of(serde_json::json!({})).as_ref(), true, &why),
            Approval::Yes
        );
    }
}
