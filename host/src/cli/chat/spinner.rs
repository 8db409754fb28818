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
                    let line = fit_width(&format!("{glyph} {line}"), terminal_columns());
                    let mut err = std::io::stderr().lock();
                    let _ = write!(err, "\r\x1b[2K{line}");
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

/// The terminal's width in columns (80 when it cannot be read).
pub(crate) fn terminal_columns() -> usize {
    crossterm::terminal::size().map_or(80, |(columns, _)| usize::from(columns))
}

/// `line` cut to fit in fewer than `columns` columns (ending in `…` when cut): a line that
/// wrapped would leave its first rows behind when the spinner erases its own.
pub(crate) fn fit_width(line: &str, columns: usize) -> String {
    use unicode_width::UnicodeWidthChar;
    let room = columns.saturating_sub(1).max(1);
    if unicode_width::UnicodeWidthStr::width(line) <= room {
        return line.to_owned();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in line.chars() {
        let w = c.width().unwrap_or(0);
        if used + w + 1 > room {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_line_is_cut_to_the_width_and_a_short_one_kept() {
        assert_eq!(fit_width("⠋ running ls", 80), "⠋ running ls");
        let long = format!("⠋ running shell {}", "x".repeat(300));
        let cut = fit_width(&long, 80);
        assert_eq!(unicode_width::UnicodeWidthStr::width(cut.as_str()), 79);
        assert!(cut.ends_with('…'));
        // Wide characters count twice.
        let cut = fit_width(&"界".repeat(50), 21);
        assert_eq!(cut, format!("{}…", "界".repeat(9)));
        assert_eq!(fit_width("abc", 0), "…");
    }
}
