//! Handing a descriptor from the command's PID 1 to the launcher's parent half: the seccomp
//! listener crosses a socket pair made before the fork (`SCM_RIGHTS`).

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};

fn os_error(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

fn owned(fd: RawFd) -> Option<OwnedFd> {
    // SAFETY: a fresh descriptor nothing else owns.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}

/// The socket pair the listener passes over: `(parent's end, child's end)`.
pub(crate) fn channel() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: `fds` is a two-int array the call fills.
    let rc = unsafe {
        libc::socketpair(
            libc::AF_UNIX,
            libc::SOCK_STREAM | libc::SOCK_CLOEXEC,
            0,
            fds.as_mut_ptr(),
        )
    };
    if rc != 0 {
        return Err(os_error("seccomp listener channel (socketpair)"));
    }
    match (owned(fds[0]), owned(fds[1])) {
        (Some(a), Some(b)) => Ok((a, b)),
        _ => Err("seccomp listener channel: bad descriptors".to_owned()),
    }
}

/// Send `fd` over the channel end `sock`.
pub(crate) fn send_fd(sock: &OwnedFd, fd: &OwnedFd) -> Result<(), String> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    // SAFETY: an all-zero msghdr is valid; the pointers set below outlive the call.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &raw mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr().cast();
    msg.msg_controllen = space as _;
    // SAFETY: the control buffer holds one header and one descriptor (CMSG_SPACE above).
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(size_of::<RawFd>() as u32) as _;
        std::ptr::write_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>(), fd.as_raw_fd());
    }
    // SAFETY: `msg` is fully set up above.
    if unsafe { libc::sendmsg(sock.as_raw_fd(), &msg, libc::MSG_NOSIGNAL) } != 1 {
        return Err(os_error("seccomp listener (sending it to the supervisor)"));
    }
    Ok(())
}

/// Receive a descriptor from the channel end `sock`; `None` when the other end closed
/// without sending one (the child failed before its filter was in place).
pub(crate) fn recv_fd(sock: &OwnedFd) -> Result<Option<OwnedFd>, String> {
    let mut byte = [0u8; 1];
    let mut iov = libc::iovec {
        iov_base: byte.as_mut_ptr().cast(),
        iov_len: 1,
    };
    // SAFETY: CMSG_SPACE is a pure size computation.
    let space = unsafe { libc::CMSG_SPACE(size_of::<RawFd>() as u32) } as usize;
    let mut control = vec![0u64; space.div_ceil(8)];
    loop {
        // SAFETY: an all-zero msghdr is valid; the pointers set below outlive the call.
        let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
        msg.msg_iov = &raw mut iov;
        msg.msg_iovlen = 1;
        msg.msg_control = control.as_mut_ptr().cast();
        msg.msg_controllen = space as _;
        // SAFETY: `msg` points at live buffers of the given sizes.
        let n = unsafe { libc::recvmsg(sock.as_raw_fd(), &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        if n < 0 {
            return Err(os_error("seccomp listener (receiving it)"));
        }
        if n == 0 {
            return Ok(None);
        }
        // SAFETY: the kernel filled the control buffer; CMSG_FIRSTHDR checks its length.
        let cmsg = unsafe { libc::CMSG_FIRSTHDR(&msg) };
        if cmsg.is_null() {
            return Err("seccomp listener: the message carried no descriptor".to_owned());
        }
        // SAFETY: `cmsg` is a header inside the control buffer.
        let (level, kind) = unsafe { ((*cmsg).cmsg_level, (*cmsg).cmsg_type) };
        if level != libc::SOL_SOCKET || kind != libc::SCM_RIGHTS {
            return Err("seccomp listener: an unexpected control message".to_owned());
        }
        // SAFETY: an SCM_RIGHTS message holds at least one descriptor.
        let fd = unsafe { std::ptr::read_unaligned(libc::CMSG_DATA(cmsg).cast::<RawFd>()) };
        return Ok(owned(fd));
    }
}
