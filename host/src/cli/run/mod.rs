//! `warden run` and `warden preview`: one turn from the command line, and what it would commit.
//!
//! - `args`: the arguments of `run` ([`RunArgs`]), and the model flags `run` and `chat` share
//!   ([`ModelFlags`]).
//! - `turn`: `run`, one turn; the answer goes to stdout, alerts to stderr.
//! - `preview`: `preview`, what a prompt would commit, without a model call or a write.
//! - `prompt`: where a prompt comes from (words, stdin or a file) and its size check.
//! - `sink`: how `run` shows a turn's events (text, or `--json-stream`) and counts denials.
//! - `progress`: the spinner shown while waiting for the model.
//! - `unattended`: `--yes` refused where managed policy forbids unattended approval.

mod args;
mod preview;
mod progress;
mod prompt;
mod sink;
mod turn;
mod unattended;

pub(super) use args::{ModelFlags, RunArgs};
pub(super) use preview::{preview, shown_item};
pub(super) use progress::Countdown;
pub(super) use turn::run;
pub(crate) use unattended::check_unattended;
