//! A one-line spinner with elapsed seconds on stderr, shown while nothing has arrived (e.g.
//! waiting for a model's first byte). Only on a terminal; elsewhere it does nothing. It is
//! cleared before anything else is printed: call [`Progress::stop`] first.

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
    enabled: bool,
}

impl Progress {
    /// A spinner showing `label` on stderr, when stderr is a terminal.
    pub(crate) fn new(label: &str) -> Self {
        Self {
            running: None,
            label: label.to_owned(),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    /// Start (or restart) the spinner; the elapsed time counts from now.
    pub(crate) fn start(&mut self) {
        if !self.enabled || self.running.is_some() {
            return;
        }
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let label = self.label.clone();
        let spawned = std::thread::Builder::new()
            .name("progress".into())
            .spawn(move || {
                let started = Instant::now();
                let mut tick = 0usize;
                while !flag.load(Ordering::Relaxed) {
                    let line = frame(&label, tick, started.elapsed());
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r{line}");
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
    fn off_a_terminal_it_does_nothing() {
        let mut p = Progress {
            running: None,
            label: "x".into(),
            enabled: false,
        };
        p.start();
        assert!(p.running.is_none());
        p.stop();
    }
}
