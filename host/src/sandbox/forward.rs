//! The launcher's side of per-host network (`allowed_hosts`): inside the command's own network
//! namespace it brings the loopback up, listens on `127.0.0.1:<port>` and relays every
//! connection to the host's filtering proxy through the Unix socket in the call's private
//! temporary directory ([`PROXY_SOCKET`](super::spec::PROXY_SOCKET)); the command gets the
//! `*_PROXY` variables naming that port, and Landlock lets it connect to that port only.
//!
//! The relay runs in the launcher's parent process after the fork (the PID 1 child runs the
//! command), with no thread: after `unshare(CLONE_NEWPID)` the kernel refuses new threads, so
//! it is part of one `poll(2)` loop ([`watch`](super::watch)) over the listener, the
//! connections, the seccomp listener and a pidfd of the child.

#![allow(unsafe_code)]

use std::io::{self, ErrorKind, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};

/// Bytes held per direction of one connection before reading from it pauses.
const BUFFER: usize = 64 << 10;

/// The variables that name the proxy (set to `http://127.0.0.1:<port>`).
const PROXY_VARS: &[&str] = &[
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];
/// The variables removed, so that no host bypasses the proxy.
const NO_PROXY_VARS: &[&str] = &["NO_PROXY", "no_proxy"];

/// Bring the loopback interface of the current network namespace up.
pub(crate) fn loopback_up() -> Result<(), String> {
    #[repr(C)]
    struct IfReq {
        name: [libc::c_char; libc::IFNAMSIZ],
        flags: libc::c_short,
        pad: [u8; 22],
    }
    let fail = |what: &str| {
        format!(
            "loopback in the network namespace ({what}): {}",
            io::Error::last_os_error()
        )
    };
    // SAFETY: a plain socket call; the descriptor is owned right after.
    let fd = unsafe { libc::socket(libc::AF_INET, libc::SOCK_DGRAM | libc::SOCK_CLOEXEC, 0) };
    if fd < 0 {
        return Err(fail("socket"));
    }
    // SAFETY: `fd` is a fresh descriptor nothing else owns.
    let fd = unsafe { OwnedFd::from_raw_fd(fd) };
    let mut req = IfReq {
        name: [0; libc::IFNAMSIZ],
        flags: 0,
        pad: [0; 22],
    };
    for (slot, byte) in req.name.iter_mut().zip(b"lo") {
        *slot = *byte as libc::c_char;
    }
    // SAFETY: `req` is an `ifreq` (name, then the flags of its union) the call reads and fills.
    if unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCGIFFLAGS as _, &mut req) } != 0 {
        return Err(fail("SIOCGIFFLAGS"));
    }
    req.flags |= libc::IFF_UP as libc::c_short;
    // SAFETY: as above.
    if unsafe { libc::ioctl(fd.as_raw_fd(), libc::SIOCSIFFLAGS as _, &req) } != 0 {
        return Err(fail("SIOCSIFFLAGS"));
    }
    Ok(())
}

/// `env` with the proxy variables naming `port` and no `NO_PROXY`.
pub(crate) fn proxy_env(env: &[(String, String)], port: u16) -> Vec<(String, String)> {
    let url = format!("http://127.0.0.1:{port}");
    let mut out: Vec<(String, String)> = env
        .iter()
        .filter(|(k, _)| !PROXY_VARS.contains(&k.as_str()) && !NO_PROXY_VARS.contains(&k.as_str()))
        .cloned()
        .collect();
    out.extend(PROXY_VARS.iter().map(|k| ((*k).to_owned(), url.clone())));
    out
}

/// The listening end inside the namespace.
pub(crate) struct Forwarder {
    listener: TcpListener,
    port: u16,
    socket: PathBuf,
    conns: Vec<Conn>,
}

impl Forwarder {
    /// In the command's network namespace: loopback up, a listener on `127.0.0.1:0`; each
    /// connection will be relayed to the Unix socket `socket`.
    pub(crate) fn bind(socket: &Path) -> Result<Self, String> {
        loopback_up()?;
        let listener = TcpListener::bind(("127.0.0.1", 0))
            .map_err(|e| format!("proxy listener on the loopback: {e}"))?;
        let port = listener
            .local_addr()
            .map_err(|e| format!("proxy listener on the loopback: {e}"))?
            .port();
        listener
            .set_nonblocking(true)
            .map_err(|e| format!("proxy listener on the loopback: {e}"))?;
        Ok(Self {
            listener,
            port,
            socket: socket.to_owned(),
            conns: Vec::new(),
        })
    }

    /// The loopback port the command connects to.
    pub(crate) fn port(&self) -> u16 {
        self.port
    }

    /// The `pollfd` entries the relay waits on: the listener and every connection.
    pub(crate) fn interest(&self, fds: &mut Vec<libc::pollfd>) {
        fds.push(poll_fd(Some(self.listener.as_raw_fd()), libc::POLLIN));
        for conn in &self.conns {
            conn.interest(fds);
        }
    }

    /// Accept what is waiting and move what can be moved, without blocking.
    pub(crate) fn service(&mut self) {
        while let Ok((tcp, _)) = self.listener.accept() {
            if let Some(conn) = Conn::open(tcp, &self.socket) {
                self.conns.push(conn);
            }
        }
        self.conns.retain_mut(Conn::pump);
    }
}

pub(crate) fn poll_fd(fd: Option<RawFd>, events: libc::c_short) -> libc::pollfd {
    libc::pollfd {
        fd: fd.unwrap_or(-1),
        events,
        revents: 0,
    }
}

/// One direction of a connection: bytes read and not yet written.
#[derive(Default)]
struct Flow {
    buf: Vec<u8>,
    eof: bool,
    shut: bool,
}

impl Flow {
    /// Move what can be moved from `src` to `dst` without blocking; `Err` on a broken socket.
    fn pump(&mut self, mut src: impl Read, mut dst: impl Write, dst_fd: RawFd) -> io::Result<()> {
        loop {
            let mut progress = false;
            if !self.eof && self.buf.len() < BUFFER {
                let start = self.buf.len();
                self.buf.resize(BUFFER, 0);
                match src.read(&mut self.buf[start..]) {
                    Ok(0) => {
                        self.eof = true;
                        self.buf.truncate(start);
                    }
                    Ok(n) => {
                        self.buf.truncate(start + n);
                        progress = true;
                    }
                    Err(e) if would_block(&e) => self.buf.truncate(start),
                    Err(e) => return Err(e),
                }
            }
            if !self.buf.is_empty() {
                match dst.write(&self.buf) {
                    Ok(n) => {
                        self.buf.drain(..n);
                        progress |= n > 0;
                    }
                    Err(e) if would_block(&e) => {}
                    Err(e) => return Err(e),
                }
            }
            if self.eof && self.buf.is_empty() && !self.shut {
                // SAFETY: a plain shutdown of a descriptor this connection owns.
                unsafe { libc::shutdown(dst_fd, libc::SHUT_WR) };
                self.shut = true;
            }
            if !progress {
                return Ok(());
            }
        }
    }
}

fn would_block(e: &io::Error) -> bool {
    matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::Interrupted)
}

/// One connection of the command, relayed to the proxy.
struct Conn {
    tcp: TcpStream,
    unix: UnixStream,
    up: Flow,
    down: Flow,
}

impl Conn {
    /// Connect `tcp` to the proxy's socket; `None` (the command's connection closes) when the
    /// proxy cannot be reached.
    fn open(tcp: TcpStream, socket: &Path) -> Option<Self> {
        let unix = UnixStream::connect(socket).ok()?;
        tcp.set_nonblocking(true).ok()?;
        unix.set_nonblocking(true).ok()?;
        Some(Self {
            tcp,
            unix,
            up: Flow::default(),
            down: Flow::default(),
        })
    }

    /// The `pollfd` entries this connection waits on.
    fn interest(&self, fds: &mut Vec<libc::pollfd>) {
        let (tcp, unix) = (self.tcp.as_raw_fd(), self.unix.as_raw_fd());
        for (flow, src, dst) in [(&self.up, tcp, unix), (&self.down, unix, tcp)] {
            let read = !flow.eof && flow.buf.len() < BUFFER;
            fds.push(poll_fd(read.then_some(src), libc::POLLIN));
            fds.push(poll_fd(
                (!flow.buf.is_empty()).then_some(dst),
                libc::POLLOUT,
            ));
        }
    }

    /// Move what can be moved; false once the connection is over (both directions done, or
    /// a socket broken).
    fn pump(&mut self) -> bool {
        let (tcp, unix) = (self.tcp.as_raw_fd(), self.unix.as_raw_fd());
        let ok = self.up.pump(&self.tcp, &self.unix, unix).is_ok()
            && self.down.pump(&self.unix, &self.tcp, tcp).is_ok();
        if !ok {
            let _ = self.tcp.shutdown(Shutdown::Both);
            let _ = self.unix.shutdown(Shutdown::Both);
        }
        ok && !(self.up.shut && self.down.shut)
    }
}
