//! How `warden run` watches a turn: the answer as it streams to stdout (or, with
//! `--json-stream`, every [`TurnEvent`] as one JSON line on stdout), alerts on stderr, one line
//! per tool call that failed or was denied (every call with `-v`), with a command's last output
//! lines and a change's diff folded.

use crate::cli::common::print_alert;
use crate::cli::out::{out, outln};
use crate::domain::builtin::{ToolEffect, UPDATE_PLAN};
use crate::domain::escape::{escape, terminal};
use crate::domain::{Alert, AlertLevel, Approval, AskWhy, ToolCall, TurnEvent, TurnSink};
use crate::front::transcript::{
    DIFF_LINES, TAIL_LINES, denied_line, diff_head, folded, plan_lines, ran_line, tail,
};

use super::progress::{Countdown, Progress};

/// What `run` prints on stdout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Output {
    /// The answer as text.
    Text,
    /// One JSON object at the end.
    Json,
    /// One JSON line per event.
    Stream,
}

/// Prints a turn as `run` shows it, and counts what it needs for the exit status.
pub(super) struct CliSink {
    pub(super) output: Output,
    /// `--yes`: approve every call that would ask (a plugin's `approve = "ask"`, the mode).
    pub(super) yes: bool,
    /// `-v`: one line per tool call's outcome on stderr.
    pub(super) verbose: bool,
    /// Some of the answer was printed on stdout (it is not printed again at the end).
    pub(super) streamed: bool,
    /// The answer's last line on stdout is not ended yet.
    line_open: bool,
    pub(super) alerts: Vec<Alert>,
    pub(super) progress: Progress,
    /// Writes and commands denied, and those that ran.
    pub(super) acts_denied: usize,
    pub(super) acts_ran: usize,
}

impl CliSink {
    /// A sink for `output`, its spinner not started.
    pub(super) fn new(output: Output, yes: bool, verbose: bool) -> Self {
        Self {
            output,
            yes,
            verbose,
            streamed: false,
            line_open: false,
            alerts: Vec::new(),
            progress: Progress::new("waiting for the model"),
            acts_denied: 0,
            acts_ran: 0,
        }
    }

    /// Every write and command the turn asked for was denied (and there was at least one).
    pub(super) fn all_acts_denied(&self) -> bool {
        self.acts_denied > 0 && self.acts_ran == 0
    }

    fn text(&self) -> bool {
        self.output == Output::Text
    }

    /// End the answer's line on stdout, if one is open, before something goes to stderr.
    fn end_line(&mut self) {
        if self.line_open {
            outln!();
            self.line_open = false;
        }
    }

    /// Whether the answer's last line on stdout is still open (it needs its newline).
    pub(super) fn line_open(&self) -> bool {
        self.line_open
    }

    /// A line on stderr about a tool call, after the answer's line is ended.
    fn note(&mut self, line: &str) {
        self.progress.stop();
        self.end_line();
        eprintln!("warden: {line}");
    }

    fn alert(&mut self, alert: &Alert) {
        self.progress.stop();
        // A failed model request is said once, by the final error line.
        if !(alert.source == "provider" && alert.level == AlertLevel::Error) {
            print_alert(alert);
        }
        self.alerts.push(alert.clone());
    }

    fn ran(&mut self, call: &ToolCall, is_error: bool, exit_code: Option<i32>, output: &str) {
        let failed = TurnEvent::ran_failed(is_error, exit_code);
        // A plan that was set shows as its checklist (`-v`), not as a call line.
        if !(failed || self.verbose) || (call.name == UPDATE_PLAN && !is_error) {
            return;
        }
        self.note(&ran_line(call, is_error, exit_code));
        if exit_code.is_some() || failed {
            let (hidden, lines) = tail(output, TAIL_LINES);
            if let Some(fold) = folded(hidden, "above") {
                eprintln!("warden:   {fold}");
            }
            for line in lines {
                eprintln!("warden:   │ {line}");
            }
        }
    }
}

impl TurnSink for CliSink {
    fn event(&mut self, event: &TurnEvent) {
        if self.output == Output::Stream {
            match serde_json::to_string(event) {
                Ok(line) => outln!("{line}"),
                Err(err) => tracing::warn!("an event could not be written: {err}"),
            }
        }
        match event {
            TurnEvent::Alert(alert) => self.alert(alert),
            TurnEvent::TextDelta { text } => {
                self.progress.stop();
                if self.text() {
                    self.progress.clear_countdown();
                    out!("{}", terminal(text));
                    self.streamed = true;
                    if !text.is_empty() {
                        self.line_open = !text.ends_with('\n');
                    }
                }
            }
            TurnEvent::Waiting {
                provider,
                attempt,
                attempts,
                left_ms,
            } => {
                self.progress.stop();
                let left = std::time::Duration::from_millis(*left_ms);
                self.progress
                    .count_down(Countdown::new(provider, left, *attempt, *attempts));
            }
            TurnEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.progress.stop();
                eprintln!(
                    "warden: {reason}; retry {attempt} in {:.1}s",
                    *delay_ms as f64 / 1000.0
                );
                self.progress.start();
            }
            // Said once it ran (failed, or every call with `-v`), or when it was denied.
            TurnEvent::ToolCallStarted { .. } => {
                self.progress.stop();
                self.progress.clear_countdown();
                self.progress.start();
            }
            TurnEvent::ToolCallDecided {
                call,
                effect,
                allowed,
                by,
                reason,
            } => {
                if *effect != ToolEffect::Read {
                    if *allowed {
                        self.acts_ran += 1;
                    } else {
                        self.acts_denied += 1;
                    }
                }
                if let (false, Some(reason)) = (*allowed, reason) {
                    self.note(&denied_line(call, by, reason));
                    self.progress.start();
                }
            }
            TurnEvent::ToolCallRan {
                call,
                is_error,
                exit_code,
                output,
            } => {
                self.ran(call, *is_error, *exit_code, output);
                self.progress.start();
            }
            TurnEvent::PlanUpdated {
                steps, explanation, ..
            } if self.verbose => {
                let mut lines = plan_lines(steps, explanation.as_deref()).into_iter();
                if let Some(head) = lines.next() {
                    self.note(&head);
                }
                for line in lines {
                    eprintln!("warden: {line}");
                }
                self.progress.start();
            }
            TurnEvent::FileChanged(change) if self.verbose => {
                self.note(&format!(
                    "  {} {} (+{} −{})",
                    escape(&change.tool),
                    change.shown(),
                    change.added,
                    change.removed
                ));
                let (lines, more) = diff_head(&change.diff, DIFF_LINES);
                for line in lines {
                    eprintln!("warden:   {line}");
                }
                if let Some(fold) = folded(more, "more") {
                    eprintln!("warden:   {fold}");
                }
            }
            TurnEvent::TurnEnded { changes, .. } if !changes.is_empty() => {
                self.progress.stop();
                let (added, removed) = changes
                    .iter()
                    .fold((0, 0), |(a, r), c| (a + c.added, r + c.removed));
                let s = if changes.len() == 1 { "" } else { "s" };
                if self.text() || self.verbose {
                    self.end_line();
                    eprintln!(
                        "warden: changed {} file{s} (+{added} −{removed}): {}",
                        changes.len(),
                        changes
                            .iter()
                            .map(|c| c.shown())
                            .collect::<Vec<_>>()
                            .join(", ")
                    );
                }
            }
            _ => {}
        }
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        if self.yes {
            if let AskWhy::Escalation(e) = why {
                // Approved unattended: the person still reads what it was granted.
                self.event(&TurnEvent::Alert(Alert::warn(
                    "approval",
                    format!(
                        "tool call `{}` escalated by --yes: {} ({})",
                        escape(&call.name),
                        escape(&e.grants()),
                        escape(&e.reason)
                    ),
                )));
            }
            return Approval::Yes;
        }
        let hint = match why {
            AskWhy::Plugin(_) | AskWhy::Host { .. } => "",
            AskWhy::Mode { .. } => " (or a --mode that lets such calls run)",
            AskWhy::Rule { .. } | AskWhy::Interceptor { .. } => "",
            AskWhy::Escalation(_) => {
                " (with --yes it runs when `policy.allow_escalation` allows its kind)"
            }
        };
        let reason = format!(
            "{}; `warden run` does not ask and denies such calls unless --yes is given{hint}",
            why.requirement()
        );
        // The model is told through the call's result; the person through this warning.
        self.event(&TurnEvent::Alert(Alert::warn(
            "approval",
            format!("tool call `{}` denied: {reason}", escape(&call.name)),
        )));
        Approval::No(reason)
    }
}
