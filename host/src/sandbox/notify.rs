//! The supervisor of a sandboxed command's `connect` calls, in the launcher's parent half
//! (unconfined, in the command's mount and network namespaces): the command's PID 1 installs
//! the [`seccomp`](super::seccomp) filter and hands its notification listener over a socket
//! pair made before the fork; each `connect` then waits here and is answered by connecting
//! on the command's behalf, never by letting the call go on (which would read the address
//! again, after the check).
//!
//! For one notification the supervisor takes the command's socket (`pidfd_getfd`), reads the
//! address once (`process_vm_readv`, the notification still valid afterwards), decides, and
//! a helper process forked for it connects that same socket with the supervisor's own copy of
//! the address and sends the answer (so that a slow connect stalls nothing; the launcher can
//! start no thread in a new PID namespace):
//!
//! - a Unix socket address (a path or an abstract name) is allowed when the socket's PEER is
//!   a process of the sandbox: the helper runs in the command's PID namespace, where
//!   `SO_PEERCRED` names any process outside as pid 0; such a connection is shut down before
//!   a byte passes and refused with `EACCES`. A path that a grant names exactly
//!   (`unix_sockets`) is connected without that check;
//! - a TCP socket, when the network is not granted, may connect only to the proxy relay's
//!   port (the rule Landlock keeps for the command itself);
//! - anything else is connected as asked (the network namespace decides).
//!
//! For a program granted the workspace, its file calls wait here too and are answered by
//! [`files`](super::files).
//!
//! The listener reaches the parent half through [`fd_pass`](super::fd_pass).

#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::PathBuf;

use std::cell::RefCell;
use std::ffi::OsStr;

use super::files::{Answer, Caller, Files, read_path};
use super::report::{Places, SandboxReport, Seen};

/// `pidfd_open` flag for a thread's pidfd (Linux 6.9; `O_EXCL`).
const PIDFD_THREAD: libc::c_uint = libc::O_EXCL as libc::c_uint;

fn os_error(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

fn owned(fd: libc::c_long) -> Option<OwnedFd> {
    let fd = RawFd::try_from(fd).ok().filter(|fd| *fd >= 0)?;
    // SAFETY: a fresh descriptor nothing else owns.
    Some(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// What the supervisor enforces for one command.
#[derive(Debug, Clone, Default)]
pub(crate) struct Policy {
    /// Whether the network is granted (TCP connects unchecked).
    pub(crate) network: bool,
    /// The proxy relay's loopback port, the only TCP port reachable without the network.
    pub(crate) relay_port: Option<u16>,
    /// Socket paths granted by configuration: connected without the peer check.
    pub(crate) grants: Vec<PathBuf>,
    /// With a report asked for: where written names fall (the write calls are observed).
    pub(crate) places: Option<Places>,
}

/// The parent half's answerer of `connect` notifications.
pub(crate) struct Supervisor {
    listener: OwnedFd,
    /// `/proc` as it was before the command's PID 1 mounted its own over it.
    proc_dir: OwnedFd,
    policy: Policy,
    /// The file calls' rules, for a program granted the workspace.
    files: Option<Files>,
    notif_size: usize,
    resp_size: usize,
    /// What the sandbox refused so far.
    report: RefCell<SandboxReport>,
    /// The state of each reported name when its write was seen.
    seen: RefCell<Seen>,
}

/// One `connect` to make on the command's behalf.
struct Job {
    socket: OwnedFd,
    address: Vec<u8>,
    /// The command's working directory, for a relative socket path.
    cwd: Option<OwnedFd>,
    check_peer: bool,
}

enum Decision {
    Refuse(i32),
    Connect(Job),
}

/// Open `/proc` (before the command's PID 1 covers it).
pub(crate) fn open_proc() -> Result<OwnedFd, String> {
    // SAFETY: a NUL-terminated literal path.
    let fd = unsafe {
        libc::open(
            c"/proc".as_ptr(),
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
        )
    };
    owned(fd.into()).ok_or_else(|| os_error("seccomp supervisor (opening /proc)"))
}

impl Supervisor {
    pub(crate) fn new(
        listener: OwnedFd,
        proc_dir: OwnedFd,
        policy: Policy,
        files: Option<Files>,
    ) -> Self {
        let mut sizes = libc::seccomp_notif_sizes {
            seccomp_notif: 0,
            seccomp_notif_resp: 0,
            seccomp_data: 0,
        };
        // SAFETY: the call fills `sizes`.
        unsafe {
            libc::syscall(
                libc::SYS_seccomp,
                libc::SECCOMP_GET_NOTIF_SIZES,
                0,
                &raw mut sizes,
            );
        }
        Self {
            listener,
            proc_dir,
            policy,
            files,
            notif_size: usize::from(sizes.seccomp_notif).max(size_of::<libc::seccomp_notif>()),
            resp_size: usize::from(sizes.seccomp_notif_resp)
                .max(size_of::<libc::seccomp_notif_resp>()),
            report: RefCell::new(SandboxReport::default()),
            seen: RefCell::new(Seen::default()),
        }
    }

    /// What the sandbox refused the command (after it ended: a write that changed its
    /// target was not refused, and is left out).
    pub(crate) fn report(&self) -> SandboxReport {
        let mut report = self.report.borrow().clone();
        report.keep_refused(&self.seen.borrow());
        report
    }

    /// The listener, to poll for readability.
    pub(crate) fn fd(&self) -> RawFd {
        self.listener.as_raw_fd()
    }

    /// Receive and answer one notification (a helper process connects when one is needed).
    pub(crate) fn handle(&self) {
        let mut buf = vec![0u64; self.notif_size.div_ceil(8)];
        // SAFETY: `buf` is zeroed and at least as large as the kernel's `seccomp_notif`.
        let rc = unsafe {
            libc::ioctl(
                self.listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_RECV,
                buf.as_mut_ptr(),
            )
        };
        if rc != 0 {
            // ENOENT: the caller is gone (killed) before the notification was read.
            return;
        }
        // SAFETY: the buffer now starts with a `seccomp_notif`.
        let notif = unsafe { std::ptr::read(buf.as_ptr().cast::<libc::seccomp_notif>()) };
        if notif.data.nr != libc::SYS_connect as i32
            && let Some(files) = &self.files
        {
            let valid = || self.valid(notif.id);
            let caller = Caller {
                pid: notif.pid as libc::pid_t,
                args: notif.data.args,
                nr: libc::c_long::from(notif.data.nr),
                proc_dir: self.proc_dir.as_raw_fd(),
                valid: &valid,
            };
            match files.answer(&caller) {
                Answer::Errno(errno) => self.respond(notif.id, errno),
                Answer::Done => self.respond(notif.id, 0),
                Answer::Fd(fd, cloexec) => self.send_fd(notif.id, &fd, cloexec),
            }
            return;
        }
        if notif.data.nr != libc::SYS_connect as i32
            && let Some(places) = &self.policy.places
        {
            self.observe(&notif, places);
            self.respond_flags(notif.id, 0, libc::SECCOMP_USER_NOTIF_FLAG_CONTINUE as u32);
            return;
        }
        match self.decide(&notif) {
            Decision::Refuse(errno) => self.respond(notif.id, errno),
            Decision::Connect(job) => self.spawn(notif.id, job),
        }
    }

    fn valid(&self, id: u64) -> bool {
        // SAFETY: the call reads the u64 id.
        unsafe {
            libc::ioctl(
                self.listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_ID_VALID,
                &raw const id,
            ) == 0
        }
    }

    fn respond(&self, id: u64, errno: i32) {
        self.respond_flags(id, errno, 0);
    }

    /// Answer `id` with `errno`, or (`flags` = continue) let the call go on as made.
    fn respond_flags(&self, id: u64, errno: i32, flags: u32) {
        let mut buf = vec![0u64; self.resp_size.div_ceil(8)];
        let resp = libc::seccomp_notif_resp {
            id,
            val: 0,
            error: -errno,
            flags,
        };
        // SAFETY: the buffer is at least as large as a `seccomp_notif_resp`, and aligned.
        unsafe {
            std::ptr::write(buf.as_mut_ptr().cast::<libc::seccomp_notif_resp>(), resp);
            libc::ioctl(
                self.listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_SEND,
                buf.as_mut_ptr(),
            );
        }
    }

    /// Install `fd` in the caller of notification `id` and answer with its number.
    fn send_fd(&self, id: u64, fd: &OwnedFd, cloexec: bool) {
        let add = libc::seccomp_notif_addfd {
            id,
            flags: libc::SECCOMP_ADDFD_FLAG_SEND as u32,
            srcfd: fd.as_raw_fd() as u32,
            newfd: 0,
            newfd_flags: if cloexec { libc::O_CLOEXEC as u32 } else { 0 },
        };
        // SAFETY: the call reads the live structure.
        let rc = unsafe {
            libc::ioctl(
                self.listener.as_raw_fd(),
                libc::SECCOMP_IOCTL_NOTIF_ADDFD,
                &raw const add,
            )
        };
        if rc < 0 {
            self.respond(id, errno());
        }
    }

    /// Look at one observed write by name (the kernel then makes the call as asked, and the
    /// mounts and Landlock decide): where the name falls is recorded. The name is read once;
    /// a caller changing it meanwhile changes only what the report says.
    fn observe(&self, notif: &libc::seccomp_notif, places: &Places) {
        let nr = libc::c_long::from(notif.data.nr);
        let args = notif.data.args;
        let at = libc::AT_FDCWD as u64;
        #[cfg(target_arch = "x86_64")]
        let (dirfd, addr) = match nr {
            libc::SYS_open | libc::SYS_creat | libc::SYS_mkdir | libc::SYS_unlink => (at, args[0]),
            libc::SYS_rename => (at, args[1]),
            libc::SYS_renameat | libc::SYS_renameat2 => (args[2], args[3]),
            _ => (args[0], args[1]),
        };
        #[cfg(not(target_arch = "x86_64"))]
        let (dirfd, addr) = match nr {
            libc::SYS_renameat | libc::SYS_renameat2 => (args[2], args[3]),
            _ => (args[0], args[1]),
        };
        let pid = notif.pid as libc::pid_t;
        let Ok(name) = read_path(pid, addr) else {
            return;
        };
        let name = PathBuf::from(OsStr::from_bytes(name.to_bytes()));
        let path = if name.is_absolute() {
            name
        } else {
            let dirfd = dirfd as i32;
            let link = if dirfd == libc::AT_FDCWD {
                format!("{pid}/cwd")
            } else {
                format!("{pid}/fd/{dirfd}")
            };
            match self.read_link(&link) {
                Some(base) => base.join(name),
                None => return,
            }
        };
        let place = places.place(&path);
        self.seen.borrow_mut().note(&path, place);
        self.report.borrow_mut().wrote(path, place);
    }

    /// Where `/proc/<link>` points, in the supervisor's `/proc`.
    fn read_link(&self, link: &str) -> Option<PathBuf> {
        let link = CString::new(link).ok()?;
        let mut buf = vec![0u8; libc::PATH_MAX as usize + 1];
        // SAFETY: `buf` holds the length given; `link` is NUL-terminated.
        let n = unsafe {
            libc::readlinkat(
                self.proc_dir.as_raw_fd(),
                link.as_ptr(),
                buf.as_mut_ptr().cast(),
                buf.len(),
            )
        };
        let n = usize::try_from(n).ok().filter(|n| *n < buf.len())?;
        buf.truncate(n);
        Some(PathBuf::from(OsStr::from_bytes(&buf)))
    }

    /// The decision for one `connect(fd, address, length)` of process `notif.pid`.
    fn decide(&self, notif: &libc::seccomp_notif) -> Decision {
        if notif.data.nr != libc::SYS_connect as i32 {
            return Decision::Refuse(libc::ENOSYS);
        }
        let pid = notif.pid as libc::pid_t;
        let Some(pidfd) = pidfd(pid) else {
            return Decision::Refuse(libc::EACCES);
        };
        if !self.valid(notif.id) {
            return Decision::Refuse(libc::EACCES);
        }
        let target_fd = notif.data.args[0] as libc::c_int;
        // SAFETY: pidfd_getfd(2) returns a new descriptor or -1.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), target_fd, 0) };
        let Some(socket) = owned(raw) else {
            let err = errno();
            return Decision::Refuse(if err == libc::EBADF {
                libc::EBADF
            } else {
                libc::EACCES
            });
        };
        let len = notif.data.args[2] as u32 as usize;
        if len > size_of::<libc::sockaddr_storage>() {
            return Decision::Refuse(libc::EINVAL);
        }
        let mut address = vec![0u8; len];
        if len > 0 {
            let local = libc::iovec {
                iov_base: address.as_mut_ptr().cast(),
                iov_len: len,
            };
            let remote = libc::iovec {
                iov_base: notif.data.args[1] as usize as *mut libc::c_void,
                iov_len: len,
            };
            // SAFETY: the local buffer holds `len` bytes; the remote one is only read.
            let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
            if n != len as isize {
                return Decision::Refuse(libc::EFAULT);
            }
        }
        // The address read was the caller's, still waiting in this very call.
        if !self.valid(notif.id) {
            return Decision::Refuse(libc::EACCES);
        }
        let domain = sock_opt(&socket, libc::SO_DOMAIN);
        let family = address
            .get(..2)
            .map(|b| libc::sa_family_t::from_ne_bytes([b[0], b[1]]));
        if domain == Some(libc::AF_UNIX) {
            let path = address.get(2..).unwrap_or_default();
            let path = &path[..path.iter().position(|b| *b == 0).unwrap_or(path.len())];
            let abstract_name = address.get(2) == Some(&0);
            let granted = !abstract_name
                && !path.is_empty()
                && self
                    .policy
                    .grants
                    .iter()
                    .any(|g| g.as_os_str().as_bytes() == path);
            let cwd = if !abstract_name && path.first().is_some_and(|b| *b != b'/') {
                match self.open_cwd(pid) {
                    Some(cwd) => Some(cwd),
                    None => return Decision::Refuse(libc::EACCES),
                }
            } else {
                None
            };
            return Decision::Connect(Job {
                socket,
                address,
                cwd,
                check_peer: !granted,
            });
        }
        let inet = matches!(domain, Some(libc::AF_INET | libc::AF_INET6));
        let tcp = inet && sock_opt(&socket, libc::SO_TYPE) == Some(libc::SOCK_STREAM);
        let unspec = family == Some(libc::AF_UNSPEC as libc::sa_family_t);
        let port = address.get(2..4).map(|b| u16::from_be_bytes([b[0], b[1]]));
        if inet && !self.policy.network && !unspec {
            let destination = destination(&address);
            if tcp && (port.is_none() || port != self.policy.relay_port) {
                if let Some(shown) = destination {
                    self.report
                        .borrow_mut()
                        .connected(shown.0, port == Some(53));
                }
                return Decision::Refuse(libc::EACCES);
            }
            // A datagram connect goes on (the empty namespace has no route off loopback); a
            // name lookup or one off loopback is recorded.
            if let Some((shown, loopback)) = destination
                && (port == Some(53) || !loopback)
            {
                self.report.borrow_mut().connected(shown, port == Some(53));
            }
        }
        Decision::Connect(Job {
            socket,
            address,
            cwd: None,
            check_peer: false,
        })
    }

    fn open_cwd(&self, pid: libc::pid_t) -> Option<OwnedFd> {
        let path = CString::new(format!("{pid}/cwd")).ok()?;
        // SAFETY: a NUL-terminated path relative to a directory descriptor this owns.
        let fd = unsafe {
            libc::openat(
                self.proc_dir.as_raw_fd(),
                path.as_ptr(),
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            )
        };
        owned(fd.into())
    }

    /// Connect in a helper process, which answers and exits; refused with `EAGAIN` when no
    /// helper can be started.
    fn spawn(&self, id: u64, job: Job) {
        // SAFETY: the launcher's parent half is single-threaded; the child only makes system
        // calls and leaves with `_exit`.
        match unsafe { libc::fork() } {
            -1 => self.respond(id, libc::EAGAIN),
            0 => {
                let errno = connect(&job);
                self.respond(id, errno);
                // SAFETY: leaving the helper without running the parent's destructors.
                unsafe { libc::_exit(0) }
            }
            _ => drop(job),
        }
    }
}

/// A pidfd of thread `pid` (of its process on kernels before 6.9, which know no thread
/// pidfds).
pub(crate) fn pidfd(pid: libc::pid_t) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(2) returns a new descriptor or -1.
    owned(unsafe { libc::syscall(libc::SYS_pidfd_open, pid, PIDFD_THREAD) })
        // SAFETY: as above.
        .or_else(|| owned(unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) }))
}

/// An integer socket option of `socket`.
fn sock_opt(socket: &OwnedFd, option: libc::c_int) -> Option<libc::c_int> {
    let mut value: libc::c_int = 0;
    let mut len = size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: `value` and `len` are live and sized for an int option.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            option,
            (&raw mut value).cast(),
            &mut len,
        )
    };
    (rc == 0).then_some(value)
}

/// An IPv4 or IPv6 socket address as `address:port`, and whether it is a loopback one.
fn destination(address: &[u8]) -> Option<(String, bool)> {
    let family = libc::sa_family_t::from_ne_bytes([*address.first()?, *address.get(1)?]);
    let port = u16::from_be_bytes([*address.get(2)?, *address.get(3)?]);
    if family == libc::AF_INET as libc::sa_family_t {
        let ip = std::net::Ipv4Addr::from(<[u8; 4]>::try_from(address.get(4..8)?).ok()?);
        return Some((format!("{ip}:{port}"), ip.is_loopback()));
    }
    if family == libc::AF_INET6 as libc::sa_family_t {
        let ip = std::net::Ipv6Addr::from(<[u8; 16]>::try_from(address.get(8..24)?).ok()?);
        let loopback = ip.is_loopback() || ip.to_ipv4_mapped().is_some_and(|v4| v4.is_loopback());
        return Some((format!("[{ip}]:{port}"), loopback));
    }
    None
}

/// In the helper: make the connection; 0 or the errno to answer.
fn connect(job: &Job) -> i32 {
    if let Some(cwd) = &job.cwd {
        // SAFETY: a plain call on this helper process.
        if unsafe { libc::fchdir(cwd.as_raw_fd()) } != 0 {
            return libc::EACCES;
        }
    }
    // SAFETY: `address` holds the bytes read from the caller, of the length it gave.
    let rc = unsafe {
        libc::connect(
            job.socket.as_raw_fd(),
            job.address.as_ptr().cast(),
            job.address.len() as libc::socklen_t,
        )
    };
    if rc != 0 {
        return errno();
    }
    if job.check_peer && !peer_in_sandbox(&job.socket) {
        // SAFETY: a plain shutdown of the socket just connected.
        unsafe { libc::shutdown(job.socket.as_raw_fd(), libc::SHUT_RDWR) };
        return libc::EACCES;
    }
    0
}

/// Whether the peer of `socket` is a process of this (the command's) PID namespace: a
/// process outside it has no pid here and `SO_PEERCRED` gives 0.
fn peer_in_sandbox(socket: &OwnedFd) -> bool {
    let mut cred = libc::ucred {
        pid: 0,
        uid: 0,
        gid: 0,
    };
    let mut len = size_of::<libc::ucred>() as libc::socklen_t;
    // SAFETY: `cred` and `len` are live and sized for the option.
    let rc = unsafe {
        libc::getsockopt(
            socket.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_PEERCRED,
            (&raw mut cred).cast(),
            &mut len,
        )
    };
    rc == 0 && cred.pid > 0
}
