//! The launcher's parent half after the fork: one `poll(2)` loop (the kernel refuses new
//! threads in a process that has entered a new PID namespace) over a pidfd of the command's
//! PID 1, the seccomp listener ([`Supervisor`]) and, with `allowed_hosts`, the proxy relay
//! ([`Forwarder`]); it reaps the supervisor's helpers and returns PID 1's exit status.

#![allow(unsafe_code)]

use std::io::{self, ErrorKind};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

use super::forward::{Forwarder, poll_fd};
use super::namespaces::status_code;
use super::notify::Supervisor;

/// How often, at the most, the loop looks for ended helpers and PID 1, in milliseconds: a
/// wake-up 200 times a second of a process that otherwise sleeps.
const REAP_MS: i32 = 5;

/// Serve `supervisor` and `forwarder` until `child` ends; its exit status.
pub(crate) fn watch(
    child: libc::pid_t,
    supervisor: &Supervisor,
    mut forwarder: Option<Forwarder>,
) -> i32 {
    // SAFETY: pidfd_open(2) returns a new descriptor or -1.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, child, 0) };
    let pidfd = RawFd::try_from(raw)
        .ok()
        .filter(|fd| *fd >= 0)
        // SAFETY: a fresh descriptor nothing else owns.
        .map(|fd| unsafe { OwnedFd::from_raw_fd(fd) });
    let mut listening = true;
    loop {
        if let Some(status) = reap(child) {
            return status;
        }
        let mut fds = vec![
            poll_fd(pidfd.as_ref().map(AsRawFd::as_raw_fd), libc::POLLIN),
            poll_fd(listening.then_some(supervisor.fd()), libc::POLLIN),
        ];
        if let Some(forwarder) = &forwarder {
            forwarder.interest(&mut fds);
        }
        // Never wait without end: a supervisor's helper runs in the command's PID namespace,
        // and PID 1 cannot finish exiting (so its pidfd never becomes readable) until that
        // helper is reaped here; every REAP_MS the loop reaps what ended (and, without a pidfd,
        // on kernels before 5.3, looks for PID 1's end). A short command that started a helper
        // ends that much later: a hook run on every tool call felt 50 ms (25 on average).
        let timeout = REAP_MS;
        // SAFETY: `fds` is a live array of `pollfd` of the given length.
        let rc = unsafe { libc::poll(fds.as_mut_ptr(), fds.len() as libc::nfds_t, timeout) };
        if rc < 0 && io::Error::last_os_error().kind() != ErrorKind::Interrupted {
            return super::namespaces::wait_for(child);
        }
        let notified = fds[1].revents;
        if notified & libc::POLLIN != 0 {
            supervisor.handle();
        } else if notified & (libc::POLLHUP | libc::POLLERR | libc::POLLNVAL) != 0 {
            // Every process under the filter is gone.
            listening = false;
        }
        if let Some(forwarder) = &mut forwarder {
            forwarder.service();
        }
    }
}

/// Reap every ended child (PID 1, or a supervisor's helper); PID 1's exit status once it
/// has ended.
fn reap(child: libc::pid_t) -> Option<i32> {
    loop {
        let mut status = 0;
        // SAFETY: `status` is a plain int the call fills.
        let rc = unsafe { libc::waitpid(-1, &mut status, libc::WNOHANG) };
        if rc == child {
            return Some(status_code(status));
        }
        if rc > 0 {
            continue;
        }
        if rc == -1 && io::Error::last_os_error().kind() == ErrorKind::Interrupted {
            continue;
        }
        if rc == -1 {
            return Some(1);
        }
        return None;
    }
}
