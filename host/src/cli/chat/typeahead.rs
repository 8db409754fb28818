//! Text typed while a turn runs is kept for the next prompt, key for key. For the length of the
//! turn the terminal:
//!
//! - keeps what was typed when Ctrl-C (which it still turns into SIGINT) cancels the turn
//!   (`NOFLSH`);
//! - passes every key on as typed (no `ICANON`, no `IEXTEN`), and Enter as Enter: without
//!   `ICRNL` it is not turned into a line feed, which the line editor would read as Ctrl-J and
//!   take everything after it along into one submission;
//! - does not echo the keys into the answer being drawn (no `ECHO`): they show at the prompt;
//! - turns Esc into SIGQUIT (its `VQUIT` character), which [`esc_interrupts`] makes cancel
//!   the turn as Ctrl-C does: the terminal driver takes the Esc alone, every other key typed
//!   ahead stays where the line editor reads it. A key that sends an escape sequence (an
//!   arrow) counts as Esc while a turn runs.
//!
//! The line editor reads the keys when the prompt comes back; a prompt sent with Enter during
//! the turn is the next turn. The terminal's settings are put back when the turn ends.
//!
//! Keys typed before an approval question is shown never answer it: [`set_aside_pending`]
//! reads them first and keeps them, as text, for the next prompt ([`take_set_aside`]).

#![allow(unsafe_code)]

use std::os::fd::AsRawFd;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use crate::llm::CancelToken;

/// Text typed ahead of an approval question, kept for the next prompt.
static SET_ASIDE: Mutex<String> = Mutex::new(String::new());

/// SIGQUIT cancels the running turn (set once [`esc_interrupts`] has its handler): only then
/// is Esc made the terminal's quit character, which would otherwise end the process.
static ESC_HANDLED: AtomicBool = AtomicBool::new(false);

/// The Esc key's byte.
const ESC: libc::cc_t = 0x1b;

/// Make SIGQUIT (Esc during a turn) cancel the token `current` holds when it arrives; returns
/// why it cannot (Esc then does nothing during a turn; Ctrl-C still cancels).
pub(crate) fn esc_interrupts(current: Arc<Mutex<CancelToken>>) -> Result<(), String> {
    let mut signals = signal_hook::iterator::Signals::new([signal_hook::consts::SIGQUIT])
        .map_err(|err| format!("no handler for Esc (SIGQUIT): {err}"))?;
    std::thread::Builder::new()
        .name("esc-interrupts".into())
        .spawn(move || {
            for _ in signals.forever() {
                current
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .cancel();
            }
        })
        .map_err(|err| format!("no thread for Esc: {err}"))?;
    ESC_HANDLED.store(true, Ordering::SeqCst);
    Ok(())
}

/// The terminal settings in force before the turn, restored on drop.
pub(crate) struct KeepTypeahead {
    saved: Option<libc::termios>,
}

impl KeepTypeahead {
    /// Set the turn's modes on stdin's terminal; does nothing when stdin is not a terminal.
    pub(crate) fn start() -> Self {
        let fd = std::io::stdin().as_raw_fd();
        let mut saved = std::mem::MaybeUninit::<libc::termios>::uninit();
        // SAFETY: `fd` is this process's stdin, open for its whole life; `tcgetattr` writes a
        // whole `termios` into `saved` when it returns 0, and nothing else.
        let got = unsafe { libc::tcgetattr(fd, saved.as_mut_ptr()) };
        if got != 0 {
            return Self { saved: None };
        }
        // SAFETY: `tcgetattr` returned 0, so `saved` was written in full.
        let saved = unsafe { saved.assume_init() };
        let mut keep = saved;
        keep.c_lflag |= libc::NOFLSH;
        keep.c_lflag &= !(libc::ICANON | libc::IEXTEN | libc::ECHO);
        keep.c_iflag &= !libc::ICRNL;
        keep.c_cc[libc::VMIN] = 1;
        keep.c_cc[libc::VTIME] = 0;
        if ESC_HANDLED.load(Ordering::SeqCst) {
            keep.c_cc[libc::VQUIT] = ESC;
        }
        // SAFETY: `keep` is a valid `termios` read from this terminal with flags changed.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &keep) } != 0 {
            return Self { saved: None };
        }
        Self { saved: Some(saved) }
    }
}

impl Drop for KeepTypeahead {
    fn drop(&mut self) {
        if let Some(saved) = self.saved.take() {
            let fd = std::io::stdin().as_raw_fd();
            // SAFETY: `saved` is the `termios` this terminal had before `start`.
            unsafe {
                libc::tcsetattr(fd, libc::TCSANOW, &saved);
            }
        }
    }
}

/// Read the keys typed and not read yet, and keep them as text for the next prompt; returns
/// the text this call kept. A character is kept as typed, Enter as a line break (the prompt is
/// not sent: the person sees it first), Backspace takes the last character back; other keys
/// are dropped.
pub(crate) fn set_aside_pending() -> String {
    use crossterm::event::{Event, KeyCode, KeyEventKind, KeyModifiers, poll, read};
    let mut text = String::new();
    while matches!(poll(Duration::ZERO), Ok(true)) {
        let Ok(event) = read() else { break };
        let Event::Key(key) = event else { continue };
        if key.kind == KeyEventKind::Release
            || key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
        {
            continue;
        }
        match key.code {
            KeyCode::Char(c) => text.push(c),
            KeyCode::Enter => text.push('\n'),
            KeyCode::Backspace => {
                text.pop();
            }
            _ => {}
        }
    }
    if !text.is_empty() {
        SET_ASIDE
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push_str(&text);
    }
    text
}

/// The text set aside since the last call, line breaks at its end dropped.
pub(crate) fn take_set_aside() -> String {
    let mut text = std::mem::take(&mut *SET_ASIDE.lock().unwrap_or_else(PoisonError::into_inner));
    text.truncate(text.trim_end_matches('\n').len());
    text
}
