//! A one-line spinner with elapsed seconds on stderr, shown while nothing has arrived (e.g.
//! waiting for a model's first byte), or, while a model request waits, the countdown of its
//! wait budget (`waiting for openai — 42 s left, attempt 2/5`). Only on a terminal; elsewhere
//! it does nothing. It is cleared before anything else is printed: call [`Progress::stop`]
//! first.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

const FRAMES: [char; 4] = ['|', '/', '-', '\\'];
const TICK: Duration = Duration::from_millis(120);

/// A running spinner (or nothing, off a terminal); stopped and cleared on drop.
pub(crate) struct Progress {
    running: Option<(Arc<AtomicBool>, JoinHandle<()>)>,
    label: String,
    countdown: Option<Countdown>,
    enabled: bool,
}

/// The wait budget of a model request, counted down on the spinner line.
#[derive(Debug, Clone)]
pub(crate) struct Countdown {
    provider: String,
    deadline: Instant,
    attempt: u32,
    attempts: u32,
}

impl Countdown {
    /// From a [`TurnEvent::Waiting`](crate::domain::TurnEvent::Waiting) just received.
    pub(crate) fn new(provider: &str, left: Duration, attempt: u32, attempts: u32) -> Self {
        Self {
            provider: provider.to_owned(),
            deadline: Instant::now() + left,
            attempt,
            attempts,
        }
    }

    /// `waiting for openai — 42 s left, attempt 2/5`.
    pub(crate) fn label(&self) -> String {
        let left = self.deadline.saturating_duration_since(Instant::now());
        // Round up: "0 s left" only once it has run out.
        let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
        format!(
            "waiting for {} — {secs} s left, attempt {}/{}",
            self.provider, self.attempt, self.attempts
        )
    }
}

impl Progress {
    /// A spinner showing `label` on stderr, when stderr is a terminal.
    pub(crate) fn new(label: &str) -> Self {
        Self {
            running: None,
            label: label.to_owned(),
            countdown: None,
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// Show the countdown of a model request's wait budget from now on (restarting the
    /// spinner); [`clear_countdown`](Self::clear_countdown) goes back to the plain label.
    pub(crate) fn count_down(&mut self, countdown: Countdown) {
        self.stop();
        self.countdown = Some(countdown);
        self.start();
    }

    /// Back to the plain label (the model answered, or a tool runs).
    pub(crate) fn clear_countdown(&mut self) {
        self.countdown = None;
    }

    /// Start (or restart) the spinner; the elapsed time counts from now.
    pub(crate) fn start(&mut self) {
        if !self.enabled || self.running.is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let label = self.label.clone();
        let countdown = self.countdown.clone();
        let spawned = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                let started = Instant::now();
                let mut tick = 0usize;
                while !flag.load(Ordering::Relaxed) {
                    let line = match &countdown {
                        Some(c) => format!("{} {}", FRAMES[tick % FRAMES.len()], c.label()),
                        None => frame(&label, tick, started.elapsed()),
                    };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{line}");
                    let _ = err.flush();
                    drop(err);
                    tick += 1;
                    std::thread::sleep(TICK);
                }
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K");
                let _ = err.flush();
            });
        if let Ok(handle) = spawned {
            self.running = Some((stop, handle));
        }
    }

    /// Stop and clear the line; nothing is shown until [`start`](Self::start) again.
    pub(crate) fn stop(&mut self) {
        if let Some((stop, handle)) = self.running.take() {
            stop.store(true, Ordering::Relaxed);
            let _ = handle.join();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.stop();
    }
}

/// One frame: spinner, label and whole seconds elapsed.
fn frame(label: &str, tick: usize, elapsed: Duration) -> String {
    format!(
        "{} {label} {}s",
        FRAMES[tick % FRAMES.len()],
        elapsed.as_secs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_show_label_and_elapsed_seconds() {
        assert_eq!(
            frame("waiting", 0, Duration::from_millis(2500)),
            "| waiting 2s"
        );
        assert_eq!(frame("waiting", 5, Duration::ZERO), "/ waiting 0s");
    }

    #[test]
    fn a_countdown_names_provider_seconds_left_and_attempt() {
        let c = Countdown::new("openai", Duration::from_secs(3600), 2, 5);
        let label = c.label();
        assert!(label.starts_with("waiting for openai — "), "{label}");
        assert!(label.ends_with(" s left, attempt 2/5"), "{label}");
        let spent = Countdown::new("openai", Duration::ZERO, 1, 1);
        assert_eq!(spent.label(), "waiting for openai — 0 s left, attempt 1/1");
    }

    #[test]
    fn off_a_terminal_it_does_nothing() {
        let mut p = Progress {
            running: None,
            label: "x".into(),
            countdown: None,
            enabled: false,
        };
        p.start();
        assert!(p.running.is_none());
        p.stop();
    }
}
