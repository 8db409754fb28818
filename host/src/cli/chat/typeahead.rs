//! Text typed while a turn runs is kept for the next prompt: for the length of the turn the
//! terminal's `NOFLSH` flag is set, so that Ctrl-C (which the terminal turns into SIGINT) no
//! longer discards what was typed; the line editor reads it when the prompt comes back. The
//! terminal's settings are put back when the turn ends.

#![allow(unsafe_code)]

use std::os::fd::AsRawFd;

/// The terminal settings in force before the turn, restored on drop.
pub(crate) struct KeepTypeahead {
    saved: Option<libc::termios>,
}

impl KeepTypeahead {
    /// Set `NOFLSH` on stdin's terminal; does nothing when stdin is not a terminal.
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
        // SAFETY: `keep` is a valid `termios` read from this terminal with one flag added.
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
