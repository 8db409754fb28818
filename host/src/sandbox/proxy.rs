//! The host's filtering HTTP proxy for one sandboxed process granted `allowed_hosts`: it
//! listens on a Unix socket in the call's private temporary directory
//! ([`PROXY_SOCKET`](super::spec::PROXY_SOCKET)), which the launcher's relay reaches from inside
//! the network namespace, and serves `CONNECT host:port` tunnels and absolute-URI plain HTTP
//! requests to the hosts the patterns allow, resolving names here, on the host. Anything else
//! gets `403` with a one-line body naming the host and the key that grants hosts (the
//! `[tools.shell] allowed_hosts` key, or the caller's: [`HostProxy::start_for`]); each refusal
//! is kept (capped) for the call's result.
//!
//! A caller other than `shell` starts a sandboxed process with per-host network so: build a
//! [`SandboxSpec`] with `network: false`, `allowed_hosts` and its private `tmp`, call
//! [`HostProxy::start`] with it, spawn `warden __sandbox-exec` (writing the spec's JSON to its
//! standard input), tell the proxy the launcher's process id ([`HostProxy::admit`]) and keep
//! the returned proxy alive until the process has ended; then [`HostProxy::refused`] lists
//! what was refused.
//!
//! Each proxy serves only its own launcher: the socket is the owner's alone (mode 0600, in a
//! directory of mode 0700), and every connection's peer process (`SO_PEERCRED`) must be the
//! launcher named by [`HostProxy::admit`] — a connection from any other process (another
//! sandboxed command that found the socket) is refused, logged and listed, so that no call
//! borrows another's `allowed_hosts`. A connection made before the launcher is named waits
//! for it ([`ADMIT_WAIT`]). Dropping the proxy stops it and closes every
//! connection it still holds.

use std::collections::HashMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpStream, ToSocketAddrs};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::proxy_request::{self, Target};
use super::spec::{PROXY_SOCKET, SandboxSpec};
use crate::config::{HostPattern, host_allowed, parse_host_patterns};

/// Refusals kept for the call's result; more are only counted.
const MAX_REFUSALS: usize = 20;
/// How long a client has to send its request head.
const HEAD_TIMEOUT: Duration = Duration::from_secs(30);
/// How long connecting to one address of an allowed host may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long a connection waits for the launcher's process id to be known.
pub const ADMIT_WAIT: Duration = Duration::from_secs(10);

/// The running proxy of one call (stopped when dropped).
pub struct HostProxy {
    socket: PathBuf,
    state: Arc<State>,
    accept: Option<JoinHandle<()>>,
}

struct State {
    hosts: Vec<HostPattern>,
    /// The configuration key a refusal names.
    key: String,
    stop: AtomicBool,
    refused: Mutex<(Vec<String>, usize)>,
    /// Every open connection's sockets, so that stopping closes them.
    live: Mutex<HashMap<u64, (UnixStream, Option<TcpStream>)>>,
    next: AtomicU64,
    /// The one process served: the launcher, once spawned.
    launcher: Mutex<Option<u32>>,
    admitted: Condvar,
}

impl HostProxy {
    /// Start the proxy `spec` needs: `None` when it needs none (full network, or no hosts).
    /// An error when a pattern is malformed or the socket cannot be bound.
    pub fn start(spec: &SandboxSpec) -> Result<Option<Self>, String> {
        Self::start_for(spec, "[tools.shell] allowed_hosts")
    }

    /// As [`start`](Self::start), its refusals naming `key` (`mcp.<name>.allowed_hosts`).
    pub fn start_for(spec: &SandboxSpec, key: &str) -> Result<Option<Self>, String> {
        if !spec.proxied() {
            return Ok(None);
        }
        let hosts = parse_host_patterns(&spec.allowed_hosts)
            .map_err(|why| format!("`allowed_hosts`: {why}"))?;
        Self::serve_for(&spec.tmp.join(PROXY_SOCKET), hosts, key).map(Some)
    }

    /// Serve `hosts` on a new Unix socket at `socket`.
    pub fn serve(socket: &Path, hosts: Vec<HostPattern>) -> Result<Self, String> {
        Self::serve_for(socket, hosts, "[tools.shell] allowed_hosts")
    }

    fn serve_for(socket: &Path, hosts: Vec<HostPattern>, key: &str) -> Result<Self, String> {
        let listener = UnixListener::bind(socket)
            .map_err(|e| format!("the proxy socket {}: {e}", socket.display()))?;
        std::fs::set_permissions(socket, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| format!("the proxy socket {}: {e}", socket.display()))?;
        let state = Arc::new(State {
            hosts,
            key: key.to_owned(),
            stop: AtomicBool::new(false),
            refused: Mutex::new((Vec::new(), 0)),
            live: Mutex::new(HashMap::new()),
            next: AtomicU64::new(0),
            launcher: Mutex::new(None),
            admitted: Condvar::new(),
        });
        let accept_state = Arc::clone(&state);
        let accept = std::thread::Builder::new()
            .name("shell-proxy".into())
            .spawn(move || {
                for client in listener.incoming() {
                    if accept_state.stop.load(Ordering::SeqCst) {
                        break;
                    }
                    let Ok(client) = client else { continue };
                    let state = Arc::clone(&accept_state);
                    let _ = std::thread::Builder::new()
                        .name("shell-proxy-conn".into())
                        .spawn(move || state.handle(client));
                }
            })
            .map_err(|e| format!("starting the proxy: {e}"))?;
        Ok(Self {
            socket: socket.to_owned(),
            state,
            accept: Some(accept),
        })
    }

    /// Serve the process `pid` (the launcher just spawned, as this process numbers it), and
    /// no other.
    pub fn admit(&self, pid: u32) {
        *self
            .state
            .launcher
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(pid);
        self.state.admitted.notify_all();
    }

    /// What was refused (one line each, at most [`MAX_REFUSALS`], then how many more).
    pub fn refused(&self) -> Vec<String> {
        let guard = self
            .state
            .refused
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let (lines, total) = &*guard;
        let mut out = lines.clone();
        if *total > lines.len() {
            out.push(format!("... and {} more", total - lines.len()));
        }
        out
    }
}

impl Drop for HostProxy {
    fn drop(&mut self) {
        self.state.stop.store(true, Ordering::SeqCst);
        self.state.admitted.notify_all();
        // Wake the accept loop, which then sees the stop.
        let _ = UnixStream::connect(&self.socket);
        if let Some(accept) = self.accept.take() {
            let _ = accept.join();
        }
        let live = std::mem::take(
            &mut *self
                .state
                .live
                .lock()
                .unwrap_or_else(PoisonError::into_inner),
        );
        for (client, upstream) in live.values() {
            let _ = client.shutdown(Shutdown::Both);
            if let Some(upstream) = upstream {
                let _ = upstream.shutdown(Shutdown::Both);
            }
        }
        let _ = std::fs::remove_file(&self.socket);
    }
}

impl State {
    fn handle(&self, mut client: UnixStream) {
        let id = self.next.fetch_add(1, Ordering::SeqCst);
        if let Ok(clone) = client.try_clone() {
            self.live_set(id, Some((clone, None)));
        }
        if let Err(why) = self.check_peer(&client) {
            tracing::warn!("proxy for `{}`: {why}", self.key);
            self.refuse(format!("network: {why}"));
            // Take what was sent first, so that the answer is read rather than reset.
            let _ = client.set_read_timeout(Some(Duration::from_millis(200)));
            let _ = proxy_request::read_head(&mut client);
            answer(
                &mut client,
                "403 Forbidden",
                &format!("warden proxy: {why}"),
            );
            return self.live_set(id, None);
        }
        let _ = client.set_read_timeout(Some(HEAD_TIMEOUT));
        let parsed = proxy_request::read_head(&mut client)
            .and_then(|(head, rest)| proxy_request::parse(&head).map(|t| (t, rest)));
        let (target, rest) = match parsed {
            Ok(ok) => ok,
            Err(why) => {
                self.refuse(format!("network: refused a malformed request: {why}"));
                answer(
                    &mut client,
                    "400 Bad Request",
                    &format!("warden proxy: refused: {why}"),
                );
                return self.live_set(id, None);
            }
        };
        let what = if target.tunnel { "CONNECT" } else { "HTTP" };
        if !host_allowed(&self.hosts, &target.host, target.port) {
            let authority = target.authority();
            self.refuse(format!(
                "network: refused {what} {authority}: not in `{}`",
                self.key
            ));
            answer(
                &mut client,
                "403 Forbidden",
                &format!("warden: {authority} is not in `{}`; refused", self.key),
            );
            return self.live_set(id, None);
        }
        let upstream = match connect(&target) {
            Ok(upstream) => upstream,
            Err(why) => {
                self.refuse(format!("network: {what} {}: {why}", target.authority()));
                answer(
                    &mut client,
                    "502 Bad Gateway",
                    &format!("warden proxy: {why}"),
                );
                return self.live_set(id, None);
            }
        };
        if let (Ok(c), Ok(u)) = (client.try_clone(), upstream.try_clone()) {
            self.live_set(id, Some((c, Some(u))));
        }
        // Checked after registering: a stop that came before has already emptied the list.
        if self.stop.load(Ordering::SeqCst) {
            let _ = upstream.shutdown(Shutdown::Both);
            return self.live_set(id, None);
        }
        let _ = client.set_read_timeout(None);
        let opened = if target.tunnel {
            client.write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
        } else {
            (&upstream).write_all(&target.head)
        };
        if opened.and_then(|()| (&upstream).write_all(&rest)).is_ok() {
            relay(client, upstream);
        }
        self.live_set(id, None);
    }

    /// Whether `client` was opened by the launcher this proxy serves (waiting, a while, for
    /// its process id to be known); the error names the process refused.
    fn check_peer(&self, client: &UnixStream) -> Result<(), String> {
        let pid = super::peer::peer_pid(client)
            .map_err(|e| format!("refused a connection whose process is unknown: {e}"))?;
        let guard = self.launcher.lock().unwrap_or_else(PoisonError::into_inner);
        let (guard, _) = self
            .admitted
            .wait_timeout_while(guard, ADMIT_WAIT, |launcher| {
                launcher.is_none() && !self.stop.load(Ordering::SeqCst)
            })
            .unwrap_or_else(PoisonError::into_inner);
        match *guard {
            Some(launcher) if launcher == pid => Ok(()),
            Some(launcher) => Err(format!(
                "refused a connection from process {pid}: this proxy serves only its own sandbox (process {launcher})"
            )),
            None => Err(format!(
                "refused a connection from process {pid}: the sandbox this proxy serves has not started"
            )),
        }
    }

    fn live_set(&self, id: u64, entry: Option<(UnixStream, Option<TcpStream>)>) {
        let mut live = self.live.lock().unwrap_or_else(PoisonError::into_inner);
        match entry {
            Some(entry) => live.insert(id, entry),
            None => live.remove(&id),
        };
    }

    fn refuse(&self, line: String) {
        tracing::debug!("{line}");
        let mut guard = self.refused.lock().unwrap_or_else(PoisonError::into_inner);
        guard.1 += 1;
        if guard.0.len() < MAX_REFUSALS {
            guard.0.push(line);
        }
    }
}

/// A short plain-text answer, then the connection closes.
fn answer(client: &mut UnixStream, status: &str, body: &str) {
    let body = format!("{body}\n");
    let _ = write!(
        client,
        "HTTP/1.1 {status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = client.shutdown(Shutdown::Both);
}

/// Resolve the target here, on the host, and connect to the first address that answers.
fn connect(target: &Target) -> Result<TcpStream, String> {
    let host = target
        .host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(&target.host);
    let addrs = (host, target.port)
        .to_socket_addrs()
        .map_err(|e| format!("cannot resolve {host}: {e}"))?;
    let mut last = format!("{host} has no address");
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(stream) => return Ok(stream),
            Err(e) => last = format!("cannot connect to {addr}: {e}"),
        }
    }
    Err(last)
}

/// Copy both ways until both sides are done; a broken side closes both.
fn relay(client: UnixStream, upstream: TcpStream) {
    let (Ok(client2), Ok(upstream2)) = (client.try_clone(), upstream.try_clone()) else {
        return;
    };
    let up = std::thread::spawn(move || {
        copy_half(
            client2,
            upstream2,
            |s, how| s.shutdown(how),
            |s, how| s.shutdown(how),
        );
    });
    copy_half(
        upstream,
        client,
        |s, how| s.shutdown(how),
        |s, how| s.shutdown(how),
    );
    let _ = up.join();
}

/// Copy `from` into `to` until `from` ends, then close `to` for writing; on an error, close
/// both sides whole.
fn copy_half<R: Read, W: Write>(
    mut from: R,
    mut to: W,
    shut_from: impl Fn(&R, Shutdown) -> std::io::Result<()>,
    shut_to: impl Fn(&W, Shutdown) -> std::io::Result<()>,
) {
    let done = std::io::copy(&mut from, &mut to);
    let _ = shut_to(
        &to,
        if done.is_ok() {
            Shutdown::Write
        } else {
            Shutdown::Both
        },
    );
    if done.is_err() {
        let _ = shut_from(&from, Shutdown::Both);
    }
}

#[cfg(test)]
#[path = "proxy_tests.rs"]
mod tests;
