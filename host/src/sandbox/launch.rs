//! The launcher: `warden __sandbox-exec`, a fresh single-threaded process that reads a
//! [`SandboxSpec`] as JSON on its standard input, enters the namespaces, covers the hidden
//! paths and `/dev` ([`dev`](super::dev)), binds `.warden`/`.git` read-only, restricts itself with Landlock and then replaces
//! itself with `sh -c COMMAND` (standard input `/dev/null`, the spec's environment only), or
//! with the spec's `argv` (an MCP server; with `stdio`, its standard input and output are the
//! launcher's, the spec's line having been read off the input first). The
//! command runs as PID 1 of a new PID namespace (a fork of the launcher, which waits for it and
//! exits with its status), with a `/proc` of its own where the kernel allows one, in a session
//! of its own (no controlling terminal), its mounts locked by a second user namespace
//! ([`namespaces::lock_mounts`]), with no capability left ([`caps`](super::caps)), under a
//! [`seccomp`](super::seccomp) filter whose
//! notification listener PID 1 hands to the launcher's parent half: that half answers every
//! `connect` of the command ([`notify`](super::notify)) while it waits
//! ([`watch`](super::watch)).
//!
//! With `allowed_hosts` (and no full network) the launcher also brings the namespace's
//! loopback up and listens on `127.0.0.1:<port>`; its parent half relays those connections to
//! warden's filtering proxy ([`forward`](super::forward)) while it waits for the command, which
//! gets the `*_PROXY` variables and may connect to that port only.
//!
//! Nothing here runs in warden's own (multi-threaded) process: the namespaces and the ruleset
//! are set up by system calls in this process before `exec`, never between `fork` and `exec`.
//! When a piece cannot be built the launcher prints one line naming it (starting with
//! [`SETUP_ERROR_PREFIX`]) and exits with [`SETUP_FAILED`]; it never runs the command
//! unconfined.

use std::io::{Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use super::fd_pass;
use super::files::Files;
use super::forward::{self, Forwarder};
use super::notify::{self, Policy, Supervisor};
use super::report::{Places, SandboxReport};
use super::spec::{PROXY_SOCKET, SETUP_ERROR_PREFIX, SETUP_FAILED, SandboxSpec};
use super::{caps, dev, landlock, namespaces, probe, seccomp, watch};

/// Run the launcher; returns only on failure (the exit status to use).
pub fn launcher_main() -> i32 {
    let input = match read_spec_line() {
        Ok(input) => input,
        Err(err) => return setup_error(&format!("reading the sandbox spec: {err}")),
    };
    let spec: SandboxSpec = match serde_json::from_slice(&input) {
        Ok(spec) => spec,
        Err(err) => return setup_error(&format!("invalid sandbox spec: {err}")),
    };
    if spec.probe {
        return probe::launcher_probe();
    }
    if let Err(err) = build(&spec) {
        return setup_error(&err);
    }
    let forwarder = if spec.proxied() {
        match Forwarder::bind(&spec.tmp.join(PROXY_SOCKET)) {
            Ok(f) => Some(f),
            Err(err) => return setup_error(&format!("per-host network: {err}")),
        }
    } else {
        None
    };
    let port = forwarder.as_ref().map(Forwarder::port);
    let files = match &spec.guard {
        Some(guard) => {
            let writable = spec.writable();
            match Files::new(guard, &writable) {
                Ok(files) => Some(files),
                Err(err) => return setup_error(&err),
            }
        }
        None => None,
    };
    // Made before the fork: PID 1 covers `/proc` with its own, and hands its seccomp listener
    // over the channel.
    let (proc_dir, (parent_end, child_end)) = match notify::open_proc()
        .and_then(|proc_dir| fd_pass::channel().map(|channel| (proc_dir, channel)))
    {
        Ok(pair) => pair,
        Err(err) => return setup_error(&err),
    };
    // The command runs as PID 1 of a new PID namespace: when it ends (or is killed with the
    // launcher's process group) every process it left, even one that left the group, goes too.
    match namespaces::enter_pid().and_then(|()| namespaces::fork()) {
        Err(err) => return setup_error(&err),
        Ok(Some(child)) => {
            drop(child_end);
            let listener = match fd_pass::recv_fd(&parent_end) {
                Ok(Some(listener)) => listener,
                // PID 1 failed before its filter was in place (it said why) and runs nothing.
                Ok(None) => return namespaces::wait_for(child),
                Err(err) => {
                    let _ = setup_error(&err);
                    return namespaces::wait_for(child);
                }
            };
            drop(parent_end);
            let places = spec.report.then(|| Places {
                read_only: spec.read_only.clone(),
                hidden: spec.hide.clone(),
                writable: spec.writable(),
            });
            let policy = Policy {
                network: spec.network,
                relay_port: port,
                grants: spec.unix_sockets.clone(),
                places,
            };
            let supervisor = Supervisor::new(listener, proc_dir, policy, files);
            let status = watch::watch(child, &supervisor, forwarder);
            if spec.report {
                send_report(&supervisor.report());
            }
            return status;
        }
        Ok(None) => {}
    }
    drop(forwarder);
    drop(files);
    drop(parent_end);
    drop(proc_dir);
    namespaces::die_with_parent();
    namespaces::mount_proc();
    let observe = spec.report && spec.guard.is_none();
    // The mounts locked, Landlock, every capability dropped, then the filter: the order
    // matters (each step needs what the next one takes away).
    if let Err(err) = namespaces::lock_mounts()
        .and_then(|()| confine(&spec, port))
        .and_then(|()| caps::drop_all())
        .and_then(|()| filter(&child_end, spec.guard.is_some(), observe))
    {
        return setup_error(&err);
    }
    drop(child_end);
    let env = match port {
        Some(port) => forward::proxy_env(&spec.env, port),
        None => spec.env.clone(),
    };
    let (program, args): (&str, Vec<&str>) = match &spec.argv {
        Some(argv) => match argv.split_first() {
            Some((program, args)) => (program, args.iter().map(String::as_str).collect()),
            None => return setup_error("an empty program to run"),
        },
        None => ("/bin/sh", vec!["-c", &spec.command]),
    };
    let mut command = Command::new(program);
    command
        .args(args)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)));
    if !spec.stdio {
        command.stdin(Stdio::null());
    }
    let err = command.exec();
    setup_error(&format!("running {program}: {err}"))
}

/// The spec: its standard input up to the first newline, read a byte at a time so that nothing
/// after it (an MCP server's JSON-RPC stream) is consumed.
fn read_spec_line() -> std::io::Result<Vec<u8>> {
    use std::os::fd::AsFd;
    let mut input = std::fs::File::from(std::io::stdin().as_fd().try_clone_to_owned()?);
    let mut line = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        match input.read(&mut byte) {
            Ok(0) => break,
            Ok(_) if byte[0] == b'\n' => break,
            Ok(_) => line.push(byte[0]),
            Err(err) if err.kind() == std::io::ErrorKind::Interrupted => {}
            Err(err) => return Err(err),
        }
        if line.len() > 16 << 20 {
            return Err(std::io::Error::other("longer than 16 MiB"));
        }
    }
    Ok(line)
}

/// Enter the namespaces and mount the covers (in the launcher, before the fork).
fn build(spec: &SandboxSpec) -> Result<(), String> {
    namespaces::die_with_parent();
    if spec.proxied() {
        landlock::check_net_rules()?;
    }
    namespaces::unshare(spec.network)?;
    for path in &spec.hide {
        namespaces::hide(path)?;
    }
    // Only the harmless devices: no terminal of the user's sessions, console or disk.
    dev::private_dev()?;
    // Before the read-only binds, which go on top of it.
    for path in &spec.pinned {
        super::git_pin::pin(path)?;
    }
    for path in &spec.read_only {
        namespaces::read_only(path)?;
    }
    Ok(())
}

/// Restrict with Landlock, enter the working directory and leave the caller's session, so
/// that no terminal is the command's controlling one (in PID 1, before the `exec`).
fn confine(spec: &SandboxSpec, proxy_port: Option<u16>) -> Result<(), String> {
    landlock::restrict(spec, proxy_port)?;
    std::env::set_current_dir(&spec.cwd)
        .map_err(|e| format!("working directory {}: {e}", spec.cwd.display()))?;
    namespaces::new_session()
}

/// Install the seccomp filter and hand its listener to the parent half (in PID 1, last
/// before the `exec`: from here on, every `connect` waits for the parent's answer).
fn filter(channel: &std::os::fd::OwnedFd, files: bool, observe: bool) -> Result<(), String> {
    let listener = seccomp::install(files, observe)?;
    fd_pass::send_fd(channel, &listener)
}

/// Write `report` as one JSON line on the standard input (a socket the tool holds).
fn send_report(report: &SandboxReport) {
    use std::os::fd::AsFd;
    let Ok(fd) = std::io::stdin().as_fd().try_clone_to_owned() else {
        return;
    };
    let mut out = std::fs::File::from(fd);
    if let Ok(mut line) = serde_json::to_vec(report) {
        line.push(b'\n');
        // The tool may be gone (the call cancelled): nothing to tell then.
        let _ = out.write_all(&line);
    }
}

fn setup_error(message: &str) -> i32 {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{SETUP_ERROR_PREFIX}{message}");
    SETUP_FAILED
}
