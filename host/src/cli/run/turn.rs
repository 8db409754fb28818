//! `warden run [-C DIR] [--session ID | --new-session NAME | --continue | --parent ID] [--json]
//! [--yes] PROMPT|-`: one turn.

use crate::cli::out::{out, outln};
use crate::domain::escape::terminal;

use super::args::RunArgs;
use super::sink::{CliSink, Output};
use crate::cli::common::{env, home, print_alert, setup_error};
use crate::cli::exit::{
    CliError, EXIT_ALL_DENIED, EXIT_CANCELLED, EXIT_FAILURE, EXIT_LIMIT, EXIT_OK,
};
use crate::cli::session::{SessionChoice, target};
use crate::cli::trust::{WhenWaiting, load_config_trusted};
use crate::domain::{Alert, Usage};
use crate::fileref;
use crate::setup;
use crate::worker::TurnOutcome;

/// Exit status after Ctrl-C (128 + SIGINT).
const EXIT_INTERRUPTED: u8 = 130;

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
    let telemetry = crate::cli::common::start_telemetry(&loaded.config.telemetry, &home);
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
    let _session = crate::telemetry::enter_session(worker.session_id(), worker.parent_session());
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
    let output = match (json, args.json_stream) {
        (_, true) => Output::Stream,
        (true, false) => Output::Json,
        (false, false) => Output::Text,
    };
    let mut sink = CliSink::new(output, args.yes, args.verbose);
    sink.progress.start();
    let committed_before = worker.records().len();
    let dev_builds = crate::cli::dev_writes::DevBuildFiles::of(&loaded.config, &workspace.root);
    let result = worker.submit_segments(&segments, &mut dev_builds.watching(&mut sink));
    let usage = turn_usage(worker.records(), committed_before);
    sink.progress.stop();
    let session_id = worker.session_id().to_owned();
    worker.end_session("other");
    // The session ends with the run: its audit head is signed when `[audit] sign_key` says so.
    if let Some(signed) =
        crate::worker::audit_sign::end_session(&home, &session_id, &loaded.config.audit)
    {
        match crate::worker::audit_sign::describe(&session_id, &signed) {
            Ok(line) if args.verbose => eprintln!("warden: {line}"),
            Ok(_) => {}
            Err(problem) => {
                let alert = Alert::warn("audit", problem);
                if output != Output::Json {
                    print_alert(&alert);
                }
                sink.alerts.push(alert);
            }
        }
    }
    let outcome = match result {
        Ok(outcome) => outcome,
        Err(err) => {
            if output == Output::Json {
                print_json(
                    &root,
                    &session_id,
                    "failed",
                    None,
                    Some(&err.to_string()),
                    &sink.alerts,
                    usage,
                );
            }
            drop(telemetry);
            return Err(CliError::failure(format!("{err} (session {session_id})")));
        }
    };
    let (code, name, answer, reason) = match &outcome {
        TurnOutcome::Answered { text } if sink.all_acts_denied() => {
            (EXIT_ALL_DENIED, "answered", Some(text.as_str()), None)
        }
        TurnOutcome::Answered { text } => (EXIT_OK, "answered", Some(text.as_str()), None),
        TurnOutcome::Cancelled { reason, .. } => {
            (EXIT_CANCELLED, "cancelled", None, Some(reason.as_str()))
        }
        TurnOutcome::Stopped { reason } => (EXIT_FAILURE, "stopped", None, Some(reason.as_str())),
        TurnOutcome::Limited { reason } => (EXIT_LIMIT, "limited", None, Some(reason.as_str())),
        TurnOutcome::Interrupted { reason } => {
            (EXIT_INTERRUPTED, "interrupted", None, Some(reason.as_str()))
        }
    };
    if output == Output::Stream {
        // Everything was said by the events.
    } else if json {
        print_json(
            &root,
            &session_id,
            name,
            answer,
            reason,
            &sink.alerts,
            usage,
        );
    } else {
        // A streamed answer was printed as it came; its last line may still need its newline.
        match answer {
            Some(text) if !sink.streamed => {
                out!("{}", terminal(text));
                if !text.ends_with('\n') {
                    outln!();
                }
            }
            _ if sink.line_open() => outln!(),
            _ => {}
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
    usage: Option<Usage>,
) {
    let value = serde_json::json!({
        "session": session,
        "workspace": workspace,
        "outcome": outcome,
        "answer": answer,
        "reason": reason,
        "alerts": alerts,
        "usage": usage,
    });
    outln!("{value}");
}

/// The tokens of the answers committed after the first `before` records (this turn's), or
/// `None` when none of them carries a count.
fn turn_usage(records: &[crate::store::Record], before: usize) -> Option<Usage> {
    let (sum, answers) = crate::front::usage::session_totals(records.get(before..)?);
    (answers > 0).then_some(sum)
}
