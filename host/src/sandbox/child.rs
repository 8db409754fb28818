//! One running command, seen from warden: waiting for it under a deadline and the turn's
//! cancellation, killing its process group, reading its output under a cap.

use std::io::Read;
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How often a running command is checked on (exit, deadline, cancellation): from the first
/// interval, doubling up to the last (a quick command is seen to end at once, a long one costs
/// little).
const POLL_FIRST: Duration = Duration::from_micros(250);
const POLL_MAX: Duration = Duration::from_millis(20);

/// How a command ended.
pub(super) enum End {
    /// The shell exited: its exit code, or the signal that ended it.
    Exited(Option<i32>, Option<i32>),
    /// Killed at the deadline.
    Deadline,
    /// Killed when the turn was cancelled.
    Cancelled,
    /// Waiting failed (the process group was killed).
    WaitFailed(String),
}

/// Wait for `child` (polling `cancelled` and the deadline); the whole process group is killed
/// in every case once the shell is done.
pub(super) fn wait(child: &mut Child, timeout: Duration, cancelled: &dyn Fn() -> bool) -> End {
    let started = Instant::now();
    let pgid = child.id();
    let mut poll = POLL_FIRST;
    let end = loop {
        match child.try_wait() {
            Ok(Some(status)) => {
                use std::os::unix::process::ExitStatusExt;
                break End::Exited(status.code(), status.signal());
            }
            Ok(None) => {}
            Err(err) => break End::WaitFailed(err.to_string()),
        }
        if started.elapsed() >= timeout {
            break End::Deadline;
        }
        if cancelled() {
            break End::Cancelled;
        }
        std::thread::sleep(poll);
        poll = (poll * 2).min(POLL_MAX);
    };
    kill_group(pgid);
    if !matches!(end, End::Exited(..)) {
        let _ = child.wait();
    }
    end
}

/// SIGKILL to every process of group `pgid` (a launcher's own group, or an unconfined
/// program's).
#[allow(unsafe_code)]
pub fn kill_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: a plain system call; the group is the one the child was started in.
    unsafe {
        libc::kill(-pgid, libc::SIGKILL);
    }
}

/// What was read: the first `cap` bytes, and how many bytes came in all.
pub(super) struct Captured {
    /// The first bytes, up to the cap.
    pub(super) bytes: Vec<u8>,
    /// Every byte read.
    pub(super) total: u64,
}

pub(super) fn spawn_reader(
    mut reader: std::io::PipeReader,
    cap: usize,
) -> mpsc::Receiver<Captured> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        let mut total = 0u64;
        let mut buf = [0u8; 8192];
        loop {
            match reader.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    total += n as u64;
                    let room = cap.saturating_sub(bytes.len());
                    bytes.extend_from_slice(&buf[..n.min(room)]);
                }
            }
        }
        let _ = tx.send(Captured { bytes, total });
    });
    rx
}
