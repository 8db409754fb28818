//! `warden run [-C DIR] [--session ID | --new-session NAME | --continue | --parent ID] [--json]
//! [--yes] PROMPT|-`: one turn.

use crate::cli::out::{out, outln};
use crate::domain::escape::{escape, terminal};

use super::args::RunArgs;
use super::progress::{Countdown, Progress};
use crate::cli::common::{env, home, print_alert, setup_error};
use crate::cli::exit::{CliError, EXIT_CANCELLED, EXIT_FAILURE, EXIT_OK};
use crate::cli::session::{SessionChoice, target};
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::domain::{
    Alert, AlertLevel, Approval, AskWhy, Settled, StreamEvent, ToolCall, TurnSink,
};
use crate::fileref;
use crate::setup;
use crate::worker::TurnOutcome;

/// Exit status after Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

/// Prints the answer as it streams (unless JSON output was asked for) and alerts as they come.
struct CliSink {
    stream: bool,
    /// `--yes`: approve every call that would ask (a plugin's `approve = "ask"`, the mode).
    yes: bool,
    /// `-v`: one line per tool call's outcome on stderr.
    verbose: bool,
    streamed: bool,
    alerts: Vec<Alert>,
    progress: Progress,
}

impl TurnSink for CliSink {
    fn alert(&mut self, alert: &Alert) {
        self.progress.stop();
        // A failed model request is said once, by the final error line.
        if !(alert.source == "provider" && alert.level == AlertLevel::Error) {
            print_alert(alert);
        }
        self.alerts.push(alert.clone());
    }

    fn model_event(&mut self, event: &StreamEvent) {
        self.progress.stop();
        match event {
            StreamEvent::TextDelta(text) if self.stream => {
                self.progress.clear_countdown();
                out!("{}", terminal(text));
                self.streamed = true;
            }
            StreamEvent::Waiting {
                provider,
                attempt,
                attempts,
                left,
            } => {
                self.progress
                    .count_down(Countdown::new(provider, *left, *attempt, *attempts));
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
                self.progress.start();
            }
            _ => {}
        }
    }

    fn tool_started(&mut self, name: &str, arguments: &serde_json::Value) {
        self.progress.stop();
        self.progress.clear_countdown();
        if self.stream {
            if self.streamed {
                outln!();
                self.streamed = false;
            }
            eprintln!(
                "warden: tool {} {}",
                escape(name),
                escape(&arguments.to_string())
            );
        }
        self.progress.start();
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        if self.yes {
            return Approval::Yes;
        }
        let hint = match why {
            AskWhy::Plugin(_) => "",
            AskWhy::Mode { .. } => " (or a --mode that lets such calls run)",
            AskWhy::Rule { .. } => "",
        };
        let reason = format!(
            "{}; `warden run` does not ask and denies such calls unless --yes is given{hint}",
            why.requirement()
        );
        // The model is told through the call's result; the person through this warning.
        self.alert(&Alert::warn(
            "approval",
            format!("tool call `{}` denied: {reason}", escape(&call.name)),
        ));
        Approval::No(reason)
    }

    fn tool_settled(&mut self, call: &ToolCall, settled: &Settled) {
        if self.verbose {
            self.progress.stop();
            eprintln!(
                "warden: {}",
                crate::cli::transcript::outcome_line(call, settled)
            );
            self.progress.start();
        }
    }
}

/// Run one turn and print its answer.
pub(crate) fn run(args: RunArgs) -> Result<u8, CliError> {
    let json = args.json;
    let home = home()?;
    let choice = match (&args.session, &args.new_session) {
        (Some(id), _) => SessionChoice::Existing(id),
        (None, Some(name)) => SessionChoice::Named(name),
        (None, None) => SessionChoice::Fresh,
    };
    let (workspace, session) = target(&home, args.dir.as_deref(), choice)?;
    let parent = (args.parent.as_deref())
        .map(|asked| crate::cli::session::resolve(&home, asked))
        .transpose()?;
    let mut loaded = load_config_trusted(&workspace.root, &home, WhenWaiting::Refuse)?;
    super::check_unattended(args.yes, &loaded)?;
    crate::cli::tracked_denied::warn_tracked_denied(&workspace.root, &loaded.config.fileref.deny);
    for warning in args.model.apply(&mut loaded.config)? {
        print_alert(&Alert::warn("config", warning));
    }
    args.mode.apply(&mut loaded)?;
    let prompt = super::prompt::read(
        &args.prompt,
        args.file.as_deref(),
        loaded.config.worker.max_prompt_bytes,
    )?;
    if args.verbose {
        eprintln!("warden: workspace {}", workspace.root.display());
        eprintln!("warden: mode {}", loaded.config.tools.mode);
    }
    let mut worker = match parent.as_deref() {
        Some(parent) => setup::open_child(&loaded.config, &workspace.root, parent, &home, &env),
        None => setup::open(
            &loaded.config,
            &workspace.root,
            session.as_deref(),
            &home,
            &env,
        ),
    }
    .map_err(setup_error)?;
    let root = workspace.root.display().to_string();
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
    let mut segments = fileref::parse(&prompt).segments;
    workspace.rebase(&mut segments);
    let mut sink = CliSink {
        stream: !json,
        yes: args.yes,
        verbose: args.verbose,
        streamed: false,
        alerts: Vec::new(),
        progress: Progress::new("waiting for the model"),
    };
    sink.progress.start();
    let result = worker.submit_segments(&segments, &mut sink);
    sink.progress.stop();
    let session_id = worker.session_id().to_owned();
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(err) => {
            if json {
                print_json(
                    &root,
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
        print_json(&root, &session_id, name, answer, reason, &sink.alerts);
    } else {
        if let Some(text) = answer
            && !sink.streamed
        {
            out!("{}", terminal(text));
        }
        if answer.is_some() || sink.streamed {
            outln!();
        }
        eprintln!("warden: session {session_id}");
    }
    Ok(code)
}

fn print_json(
    workspace: &str,
    session: &str,
    outcome: &str,
    answer: Option<&str>,
    reason: Option<&str>,
    alerts: &[Alert],
) {
    let value = serde_json::json!({
        "session": session,
        "workspace": workspace,
        "outcome": outcome,
        "answer": answer,
        "reason": reason,
        "alerts": alerts,
    });
    outln!("{value}");
}
