//! `warden run [-C DIR] [--session ID | --parent ID] [--json] PROMPT`: one turn.

use super::out::{out, outln};
use std::path::Path;

use super::common::{env, home, load_config, print_alert, setup_error, workspace};
use super::exit::{CliError, EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK};
use crate::domain::{Alert, StreamEvent, TurnSink};
use crate::setup;
use crate::worker::TurnOutcome;

/// Exit status after Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// Prints the answer as it streams (unless JSON output was asked for) and alerts as they come.
struct CliSink {
    stream: bool,
    streamed: bool,
    alerts: Vec<Alert>,
}

impl TurnSink for CliSink {
    fn alert(&mut self, alert: &Alert) {
        print_alert(alert);
        self.alerts.push(alert.clone());
    }

    fn model_event(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::TextDelta(text) if self.stream => {
                out!("{text}");
                self.streamed = true;
            }
            StreamEvent::Retrying {
                attempt,
                delay,
                reason,
            } => {
                eprintln!(
                    "warden: {reason}; retry {attempt} in {:.1}s",
                    delay.as_secs_f64()
                );
            }
            _ => {}
        }
    }

    fn tool_started(&mut self, name: &str, arguments: &serde_json::Value) {
        if self.stream {
            if self.streamed {
                outln!();
                self.streamed = false;
            }
            eprintln!("warden: tool {name} {arguments}");
        }
    }
}

/// Which session a turn runs in.
pub(crate) enum Target<'a> {
    /// `--session ID` (created when absent), or a new session.
    Session(Option<&'a str>),
    /// `--parent ID`: a new child session of an existing one.
    ChildOf(&'a str),
}

/// Run one turn and print its answer.
pub(crate) fn run(
    dir: Option<&Path>,
    target: Target<'_>,
    json: bool,
    prompt: &str,
) -> Result<u8, CliError> {
    if prompt.trim().is_empty() {
        return Err(CliError::usage("the prompt is empty"));
    }
    let workspace = workspace(dir)?;
    let loaded = load_config(&workspace)?;
    let home = home()?;
    let mut worker = match target {
        Target::Session(session) => setup::open(&loaded.config, &workspace, session, &home, &env),
        Target::ChildOf(parent) => {
            setup::open_child(&loaded.config, &workspace, parent, &home, &env)
        }
    }
    .map_err(setup_error)?;
    let cancel = worker.cancel_token();
    // First Ctrl-C: cancel the model request (nothing partial is committed). Second: leave at
    // once; every commit group already written is durable.
    let pressed = std::sync::atomic::AtomicBool::new(false);
    if let Err(err) = ctrlc::set_handler(move || {
        if pressed.swap(true, std::sync::atomic::Ordering::SeqCst) {
            std::process::exit(i32::from(EXIT_INTERRUPTED));
        }
        cancel.cancel();
    }) {
        tracing::debug!("no Ctrl-C handler: {err}");
    }
    let mut sink = CliSink {
        stream: !json,
        streamed: false,
        alerts: Vec::new(),
    };
    let result = worker.submit(prompt, &mut sink);
    let session_id = worker.session_id().to_owned();
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(err) => {
            if json {
                print_json(
                    &session_id,
                    "failed",
                    None,
                    Some(&err.to_string()),
                    &sink.alerts,
                );
            }
            return Err(CliError::failure(format!("{err} (session {session_id})")));
        }
    };
    let (code, name, answer, reason) = match &outcome {
        TurnOutcome::Answered { text } => (EXIT_OK, "answered", Some(text.as_str()), None),
        TurnOutcome::Cancelled { reason, .. } => {
            (EXIT_CANCELLED, "cancelled", None, Some(reason.as_str()))
        }
        TurnOutcome::Stopped { reason } => (EXIT_FAILURE, "stopped", None, Some(reason.as_str())),
        TurnOutcome::Interrupted { reason } => {
            (EXIT_INTERRUPTED, "interrupted", None, Some(reason.as_str()))
        }
    };
    if json {
        print_json(&session_id, name, answer, reason, &sink.alerts);
    } else {
        if let Some(text) = answer
            && !sink.streamed
        {
            out!("{text}");
        }
        if answer.is_some() || sink.streamed {
            outln!();
        }
        eprintln!("warden: session {session_id}");
    }
    Ok(code)
}

fn print_json(
    session: &str,
    outcome: &str,
    answer: Option<&str>,
    reason: Option<&str>,
    alerts: &[Alert],
) {
    let value = serde_json::json!({
        "session": session,
        "outcome": outcome,
        "answer": answer,
        "reason": reason,
        "alerts": alerts,
    });
    outln!("{value}");
}
