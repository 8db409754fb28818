//! Who is on the other end of a Unix socket: the process id the kernel recorded when the
//! peer connected (`SO_PEERCRED`), as this process's PID namespace numbers it. The filtering
//! proxy uses it to serve only the launcher it was started for.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::net::UnixStream;

/// The process id of the peer of `stream` (the process that connected).
pub(crate) fn peer_pid(stream: &UnixStream) -> io::Result<u32> {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = std::mem::size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` is a `ucred` the call fills, `len` its size; the descriptor is borrowed
    // from `stream`, open for the call's duration.
    let rc = unsafe {
        libc::getsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    u32::try_from(cred.pid)
        .ok()
        .filter(|pid| *pid > 0)
        .ok_or_else(|| io::Error::other("the peer's process is not visible here"))
}
