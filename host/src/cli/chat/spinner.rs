//! The spinner shown on stderr, with the elapsed time, while waiting for the model's first
//! token, or with the countdown of the request's wait budget. Only on a terminal; stopping it
//! erases its line.

use std::io::{IsTerminal, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cli::run::Countdown;

const FRAMES: &[char] = &['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
const TICK: Duration = Duration::from_millis(100);

/// A running spinner; [`Spinner::stop`] (or drop) ends it.
pub(crate) struct Spinner {
    stop: Arc<AtomicBool>,
    thread: Option<JoinHandle<()>>,
}

impl Spinner {
    /// Start a spinner labelled `label` (nothing happens when stderr is not a terminal).
    pub(crate) fn start(label: &str) -> Self {
        Self::spawn(label, None)
    }

    /// Start a spinner counting down a model request's wait budget.
    pub(crate) fn counting(countdown: Countdown) -> Self {
        Self::spawn("", Some(countdown))
    }

    fn spawn(label: &str, countdown: Option<Countdown>) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        if !std::io::stderr().is_terminal() {
            return Self { stop, thread: None };
        }
        let theirs = Arc::clone(&stop);
        let label = label.to_owned();
        let thread = std::thread::Builder::new()
            .name("warden-spinner".into())
            .spawn(move || {
                let started = Instant::now();
                let mut frame = 0usize;
                while !theirs.load(Ordering::SeqCst) {
                    let glyph = FRAMES.get(frame % FRAMES.len()).copied().unwrap_or('*');
                    let line = match &countdown {
                        Some(c) => c.label(),
                        None => format!("{label} {:.1}s", started.elapsed().as_secs_f64()),
                    };
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{glyph} {line}");
                    let _ = err.flush();
                    drop(err);
                    frame += 1;
                    std::thread::sleep(TICK);
                }
                let mut err = std::io::stderr().lock();
                let _ = write!(err, "\r\x1b[2K");
                let _ = err.flush();
            })
            .ok();
        Self { stop, thread }
    }

    /// Stop and erase the spinner; returns once its line is gone.
    pub(crate) fn stop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}
