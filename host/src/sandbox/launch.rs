//! The launcher: `warden __sandbox-exec`, a fresh single-threaded process that reads a
//! [`SandboxSpec`] as JSON on its standard input, enters the namespaces, covers the hidden
//! paths, binds `.warden`/`.git` read-only, restricts itself with Landlock and then replaces
//! itself with `sh -c COMMAND` (standard input `/dev/null`, the spec's environment only). The
//! command runs as PID 1 of a new PID namespace (a fork of the launcher, which waits for it and
//! exits with its status), with a `/proc` of its own where the kernel allows one.
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

use super::forward::{self, Forwarder};
use super::spec::{PROXY_SOCKET, SETUP_ERROR_PREFIX, SETUP_FAILED, SandboxSpec};
use super::{landlock, namespaces, probe};

/// Run the launcher; returns only on failure (the exit status to use).
pub fn launcher_main() -> i32 {
    let mut input = String::new();
    if let Err(err) = std::io::stdin().read_to_string(&mut input) {
        return setup_error(&format!("reading the sandbox spec: {err}"));
    }
    let spec: SandboxSpec = match serde_json::from_str(&input) {
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
    // The command runs as PID 1 of a new PID namespace: when it ends (or is killed with the
    // launcher's process group) every process it left, even one that left the group, goes too.
    match namespaces::enter_pid().and_then(|()| namespaces::fork()) {
        Err(err) => return setup_error(&err),
        Ok(Some(child)) => {
            return match forwarder {
                Some(forwarder) => forwarder.run(child),
                None => namespaces::wait_for(child),
            };
        }
        Ok(None) => {}
    }
    drop(forwarder);
    namespaces::die_with_parent();
    namespaces::mount_proc();
    if let Err(err) = confine(&spec, port) {
        return setup_error(&err);
    }
    let env = match port {
        Some(port) => forward::proxy_env(&spec.env, port),
        None => spec.env.clone(),
    };
    let err = Command::new("/bin/sh")
        .arg("-c")
        .arg(&spec.command)
        .env_clear()
        .envs(env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .exec();
    setup_error(&format!("running /bin/sh: {err}"))
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
    for path in &spec.read_only {
        namespaces::read_only(path)?;
    }
    Ok(())
}

/// Restrict with Landlock and enter the working directory (in PID 1, before the `exec`).
fn confine(spec: &SandboxSpec, proxy_port: Option<u16>) -> Result<(), String> {
    landlock::restrict(spec, proxy_port)?;
    std::env::set_current_dir(&spec.cwd)
        .map_err(|e| format!("working directory {}: {e}", spec.cwd.display()))
}

fn setup_error(message: &str) -> i32 {
    let mut stderr = std::io::stderr().lock();
    let _ = writeln!(stderr, "{SETUP_ERROR_PREFIX}{message}");
    SETUP_FAILED
}
