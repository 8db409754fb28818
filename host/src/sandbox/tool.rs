//! The built-in `shell` tool: `sh -c COMMAND` in the workspace root, through the sandbox
//! launcher (`warden __sandbox-exec`), its standard output and error interleaved in one pipe
//! and capped, with a deadline; the command's whole process group is killed at the deadline,
//! when the turn is cancelled, and when the command's shell exits (background processes do not
//! outlive the call). The private temporary directory is removed after every call, and so are
//! the placeholders made for a missing `.warden`/`.git` at a root; a repository the command
//! created below a root is moved aside after it ([`planted`](super::planted)).

use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::DirBuilderExt;
use std::os::unix::net::UnixStream;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::build_cache::BuildCaches;
use super::child::{Captured, End, spawn_reader, wait};
use super::git_grant::GitGrant;
use super::git_harden;
use super::git_state::GitState;
use super::hidden::hidden_and_repos;
use super::own::{cover_around_roots, own_paths};
use super::placeholder::Placeholders;
use super::planted::move_aside;
use super::proxy::HostProxy;
use super::report::SandboxReport;
use super::spec::{LAUNCHER_SUBCOMMAND, SETUP_ERROR_PREFIX, SETUP_FAILED, SandboxSpec};
use crate::config::{Config, ShellConfig, ShellSandbox, escalation_kinds};
use crate::domain::builtin::SHELL;
use crate::domain::defaults::PROTECTED_DIRS;
use crate::domain::{Escalation, EscalationKind};
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// How long the output is still read after the process group is gone.
const DRAIN_GRACE: Duration = Duration::from_secs(2);

/// The `shell` tool.
#[derive(Debug, Clone)]
pub struct ShellTool {
    config: ShellConfig,
    roots: Vec<PathBuf>,
    deny: Vec<String>,
    max_output: usize,
    launcher: PathBuf,
    vars: Vec<(String, String)>,
    /// The escalations policy allows (the worker asks first; this refuses the rest again).
    escalations: Vec<EscalationKind>,
}

impl ShellTool {
    /// `shell` for the workspace `roots` (the first is the working directory) under `config`,
    /// launching its sandbox through `launcher` (a `warden` binary), with `vars` as warden's own
    /// environment (what the allowlist picks from).
    pub fn new(
        config: &Config,
        roots: &[PathBuf],
        launcher: PathBuf,
        vars: Vec<(String, String)>,
    ) -> Self {
        let cap = crate::config::output_ceiling_bytes(&config.policy)
            .min(crate::config::plugin_defaults::MAX_OUTPUT_BYTES);
        Self {
            config: config.tools.shell.clone(),
            roots: roots
                .iter()
                .map(|r| std::fs::canonicalize(r).unwrap_or_else(|_| r.clone()))
                .collect(),
            deny: config.fileref.deny.clone(),
            max_output: usize::try_from(cap).unwrap_or(usize::MAX),
            launcher,
            vars,
            escalations: escalation_kinds(config.policy.allow_escalation.as_ref())
                .into_iter()
                .filter(|k| {
                    *k != EscalationKind::Unsandboxed || config.policy.allow_unsandboxed_shell
                })
                .collect(),
        }
    }

    /// `shell` launching through this very executable.
    pub fn for_this_process(config: &Config, roots: &[PathBuf]) -> Self {
        let launcher = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("warden"));
        Self::new(config, roots, launcher, std::env::vars().collect())
    }

    /// What the description says of the network: `network allowed`, `no network`, or the
    /// hosts reachable through the proxy.
    fn network_description(&self) -> String {
        if self.config.network {
            "network allowed".to_owned()
        } else if self.config.allowed_hosts.is_empty() {
            "no network".to_owned()
        } else {
            format!(
                "network: {} only (HTTP and HTTPS through the proxy in $HTTPS_PROXY, which most \
                 tools honour)",
                self.config.allowed_hosts.join(", ")
            )
        }
    }

    /// The network of one call: the configured one, widened by a `network` escalation to
    /// every host (none named) or to the named hosts too (through the proxy).
    fn network_for(&self, escalation: Option<&Escalation>) -> (bool, Vec<String>) {
        let mut hosts = self.config.allowed_hosts.clone();
        match escalation {
            Some(e) if e.kind == EscalationKind::Network && e.hosts.is_empty() => {
                (true, Vec::new())
            }
            Some(e) if e.kind == EscalationKind::Network => {
                for host in &e.hosts {
                    if !hosts.contains(host) {
                        hosts.push(host.clone());
                    }
                }
                (self.config.network, hosts)
            }
            _ => (self.config.network, hosts),
        }
    }

    fn home(&self) -> Option<PathBuf> {
        self.vars
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
    }

    /// Run `command` for at most `timeout`; `cancelled` is polled meanwhile.
    pub fn execute(
        &self,
        command: &str,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> ToolOutput {
        self.execute_escalated(command, None, timeout, cancelled)
    }

    /// Run `command` with `escalation` (already approved) added to the sandbox.
    pub fn execute_escalated(
        &self,
        command: &str,
        escalation: Option<&Escalation>,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
    ) -> ToolOutput {
        if let Some(e) = escalation
            && !self.escalations.contains(&e.kind)
        {
            return ToolOutput::error(format!(
                "shell: escalation `{}` is not allowed by policy; nothing ran",
                e.kind
            ));
        }
        if escalation.is_some_and(|e| e.kind == EscalationKind::Git)
            && let Err(why) = crate::domain::git_only(command)
        {
            return ToolOutput::error(format!("shell: {why}"));
        }
        let Some(cwd) = self.roots.first().cloned() else {
            return ToolOutput::error("shell: no workspace root");
        };
        let tmp = match private_tmp() {
            Ok(tmp) => tmp,
            Err(err) => return ToolOutput::error(format!("shell: {err}")),
        };
        let result = self.execute_in(command, escalation, timeout, cancelled, &cwd, &tmp);
        if let Err(err) = std::fs::remove_dir_all(&tmp) {
            tracing::warn!("shell: removing {}: {err}", tmp.display());
        }
        result
    }

    fn execute_in(
        &self,
        command: &str,
        escalation: Option<&Escalation>,
        timeout: Duration,
        cancelled: &dyn Fn() -> bool,
        cwd: &Path,
        tmp: &Path,
    ) -> ToolOutput {
        let mut env = super::env::command_env(self.vars.iter().cloned(), &self.config.env, tmp);
        let (reader, writer) = match std::io::pipe() {
            Ok(pair) => pair,
            Err(err) => return ToolOutput::error(format!("shell: pipe: {err}")),
        };
        let writer_err = match writer.try_clone() {
            Ok(w) => w,
            Err(err) => return ToolOutput::error(format!("shell: pipe: {err}")),
        };
        let mut cmd;
        let mut spec_input = None;
        let mut proxy = None;
        // Kept until the command has ended, then removed (when still empty).
        let mut _placeholders = None;
        // Every `.git` under the roots before the command (for the sandbox only).
        let mut repos_before = None;
        // The launcher's standard input: the spec out, the report back.
        let mut report_channel: Option<UnixStream> = None;
        let kind = escalation.map(|e| e.kind);
        // What the `git` escalation opened, snapshotted before the command.
        let mut git_state = None;
        if self.config.sandbox == ShellSandbox::None || kind == Some(EscalationKind::Unsandboxed) {
            // The person chose `unsandboxed` for this one command: git runs as theirs would.
            if kind != Some(EscalationKind::Unsandboxed) {
                let repos: Vec<PathBuf> = self.roots.iter().map(|r| r.join(".git")).collect();
                git_harden::apply(
                    &mut env,
                    &git_harden::hardening(&repos, self.home().as_deref()),
                );
            }
            cmd = Command::new("/bin/sh");
            cmd.arg("-c")
                .arg(command)
                .current_dir(cwd)
                .env_clear()
                .envs(env.iter().map(|(k, v)| (k, v)))
                .stdin(Stdio::null());
        } else {
            if let Some(path) = crate::config::inside_roots(&self.config.unix_sockets, &self.roots)
            {
                return ToolOutput::error(format!(
                    "shell: `[tools.shell] unix_sockets` grants {}, inside a workspace root (a command could put its own socket there); refused",
                    path.display()
                ));
            }
            _placeholders = match Placeholders::make(&self.roots) {
                Ok(made) => Some(made),
                Err(err) => return ToolOutput::error(format!("shell: {err}")),
            };
            let found = match hidden_and_repos(
                &self.config.hide,
                self.home().as_deref(),
                &self.roots,
                &self.deny,
            )
            .and_then(|mut found| {
                found
                    .hide
                    .extend(cover_around_roots(&own_paths(&self.vars), &self.roots)?);
                Ok(found)
            }) {
                Ok(found) => found,
                Err(err) => return ToolOutput::error(format!("shell: {err}")),
            };
            repos_before = Some(found.names.clone());
            git_harden::apply(
                &mut env,
                &git_harden::hardening(&found.repos, self.home().as_deref()),
            );
            let mut read_only = read_only(&self.roots, found.repos);
            let mut pinned = Vec::new();
            if kind == Some(EscalationKind::Git) {
                let made = _placeholders
                    .as_ref()
                    .map(|p| p.paths().to_vec())
                    .unwrap_or_default();
                let grant = match GitGrant::open(&self.roots, &made) {
                    Ok(grant) => grant,
                    Err(err) => return ToolOutput::error(format!("shell: {err}")),
                };
                git_state = match GitState::take(&grant.opened) {
                    Ok(state) => Some(state),
                    Err(err) => return ToolOutput::error(format!("shell: {err}; nothing ran")),
                };
                read_only = grant.apply(read_only);
                pinned = grant.opened;
            }
            let (network, allowed_hosts) = self.network_for(escalation);
            let mut caches = Vec::new();
            if self.config.build_caches {
                let offline = !network && allowed_hosts.is_empty();
                match BuildCaches::prepare(&self.vars, cwd, offline) {
                    // Under a hidden path (the home around a workspace kept in warden's state
                    // root) the directory does not exist for the command: the tools keep
                    // their own variables.
                    Ok(Some(made)) if found.hide.iter().any(|h| made.dir.starts_with(h)) => {}
                    Ok(Some(made)) => {
                        set_vars(&mut env, made.env);
                        caches.push(made.dir);
                    }
                    Ok(None) => {}
                    Err(err) => return ToolOutput::error(format!("shell: {err}; nothing ran")),
                }
            }
            let spec = SandboxSpec {
                command: command.to_owned(),
                cwd: cwd.to_owned(),
                roots: self.roots.clone(),
                tmp: tmp.to_owned(),
                caches,
                hide: found.hide,
                read_only,
                pinned,
                network,
                allowed_hosts,
                unix_sockets: self.config.unix_sockets.clone(),
                env,
                probe: false,
                argv: None,
                stdio: false,
                guard: None,
                report: true,
            };
            // Started before the launcher, kept until the command has ended.
            proxy = match HostProxy::start(&spec) {
                Ok(proxy) => proxy,
                Err(err) => return ToolOutput::error(format!("shell: per-host network: {err}")),
            };
            match serde_json::to_vec(&spec) {
                Ok(bytes) => spec_input = Some(bytes),
                Err(err) => return ToolOutput::error(format!("shell: {err}")),
            }
            // The spec goes in, and what the sandbox refused comes back, on one socket.
            let (ours, theirs) = match UnixStream::pair() {
                Ok(pair) => pair,
                Err(err) => return ToolOutput::error(format!("shell: socket pair: {err}")),
            };
            report_channel = Some(ours);
            cmd = Command::new(&self.launcher);
            cmd.arg(LAUNCHER_SUBCOMMAND)
                .current_dir(cwd)
                .env_clear()
                .stdin(Stdio::from(OwnedFd::from(theirs)));
        }
        cmd.stdout(writer).stderr(writer_err).process_group(0);
        let mut child = match cmd.spawn() {
            Ok(child) => child,
            Err(err) => {
                return ToolOutput::error(format!(
                    "shell: cannot start {}: {err}",
                    cmd.get_program().to_string_lossy()
                ));
            }
        };
        if let Some(proxy) = &proxy {
            proxy.admit(child.id());
        }
        // The parent's copies of the pipe's write end are gone with `cmd`.
        drop(cmd);
        if let (Some(mut bytes), Some(channel)) = (spec_input, report_channel.as_mut()) {
            bytes.push(b'\n');
            // A launcher that died early has closed its end; its exit status says why.
            let _ = channel.write_all(&bytes);
        }
        let output = spawn_reader(reader, self.max_output);
        let end = wait(&mut child, timeout, cancelled);
        let captured = output.recv_timeout(DRAIN_GRACE).ok();
        let refused = report_channel.and_then(read_report);
        let mut notes = proxy.as_ref().map(HostProxy::refused).unwrap_or_default();
        drop(proxy);
        if let Some(before) = repos_before {
            notes.extend(move_aside(&before, &self.roots, "the command"));
        }
        if let Some(state) = &git_state {
            notes.extend(state.restore(&|p: &Path| shown(p, &self.roots)));
        }
        let hosts = self.config.network || !self.config.allowed_hosts.is_empty();
        let output = captured
            .as_ref()
            .map(|c| String::from_utf8_lossy(&c.bytes))
            .unwrap_or_default();
        let explained = refused
            .and_then(|r| r.explain(hosts && !self.config.network, &output, &self.escalations));
        report(
            command,
            end,
            captured,
            timeout,
            self.config.sandbox,
            &notes,
            explained,
        )
    }
}

/// `env` with each of `vars` set (replacing a value the allowlist passed).
fn set_vars(env: &mut Vec<(String, String)>, vars: Vec<(String, String)>) {
    env.retain(|(k, _)| !vars.iter().any(|(name, _)| name == k));
    env.extend(vars);
    env.sort();
}

/// `path` as the person reads it: relative to the root holding it.
fn shown(path: &Path, roots: &[PathBuf]) -> String {
    roots
        .iter()
        .find_map(|r| path.strip_prefix(r).ok())
        .unwrap_or(path)
        .display()
        .to_string()
}

/// What the launcher wrote back on `channel` after the command: one JSON line (none when it
/// was killed, or failed before the command ran).
fn read_report(mut channel: UnixStream) -> Option<SandboxReport> {
    use std::io::Read;
    let _ = channel.shutdown(std::net::Shutdown::Write);
    channel.set_read_timeout(Some(DRAIN_GRACE)).ok()?;
    let mut bytes = Vec::new();
    let _ = (&mut channel).take(1 << 20).read_to_end(&mut bytes);
    let line = bytes.split(|b| *b == b'\n').next()?;
    serde_json::from_slice(line).ok()
}

fn report(
    command: &str,
    end: End,
    captured: Option<Captured>,
    timeout: Duration,
    sandbox: ShellSandbox,
    notes: &[String],
    explained: Option<String>,
) -> ToolOutput {
    let (text, note) = match &captured {
        Some(c) => {
            let text = String::from_utf8_lossy(&c.bytes).into_owned();
            let note = (c.total > c.bytes.len() as u64).then(|| {
                format!(
                    "[output cut at {} of {} bytes]\n",
                    c.bytes.len(),
                    c.total
                )
            });
            (text, note)
        }
        None => (
            String::new(),
            Some("[output not read: a process that left the command's process group still holds it open]\n".to_owned()),
        ),
    };
    if sandbox == ShellSandbox::Required
        && matches!(end, End::Exited(Some(code), _) if code == SETUP_FAILED)
        && let Some(reason) = text.trim().strip_prefix(SETUP_ERROR_PREFIX)
    {
        return ToolOutput::error(format!(
            "shell is refused: the sandbox cannot be built on this machine: {reason}. Nothing ran (`warden doctor` shows what the kernel offers; an operator may set `[tools.shell] sandbox = \"none\"` to run commands unconfined)."
        ));
    }
    let mut out = text;
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    if let Some(note) = note {
        out.push_str(&note);
    }
    for line in notes {
        out.push_str(&format!("[{line}]\n"));
    }
    let exit_code = match end {
        End::Exited(Some(code), _) => Some(code),
        End::Exited(None, Some(signal)) => Some(128_i32.saturating_add(signal)),
        _ => None,
    };
    let (status, is_error) = match end {
        End::Exited(Some(code), _) => (format!("exit status: {code}"), false),
        End::Exited(None, Some(signal)) => (format!("killed by signal {signal}"), false),
        End::Exited(None, None) => ("ended".to_owned(), false),
        End::Deadline => (
            format!(
                "killed at the {} s deadline (the whole process group)",
                timeout.as_secs()
            ),
            true,
        ),
        End::Cancelled => (
            "cancelled: the turn was interrupted; the process group was killed".to_owned(),
            true,
        ),
        End::WaitFailed(err) => (format!("waiting for the command failed: {err}"), true),
    };
    out.push_str(&status);
    // A command that failed ends with the sandbox rule it met, if it met one.
    let failed = is_error || exit_code.is_some_and(|c| c != 0);
    if failed && let Some(line) = explained {
        out.push('\n');
        out.push_str(&line);
    }
    tracing::debug!(command, %status, "shell call ended");
    if is_error {
        ToolOutput::error(out)
    } else {
        ToolOutput::ok(out).with_exit_code(exit_code)
    }
}

/// What stays read-only in the sandbox: each root's `.warden` and `.git` (a placeholder where
/// missing), then every repository the walk found under the roots.
pub fn read_only(roots: &[PathBuf], repos: Vec<PathBuf>) -> Vec<PathBuf> {
    let mut out: Vec<PathBuf> = roots
        .iter()
        .flat_map(|root| PROTECTED_DIRS.iter().map(move |d| root.join(d)))
        .collect();
    for repo in repos {
        if !out.contains(&repo) {
            out.push(repo);
        }
    }
    out
}

/// A fresh private directory under the system temporary directory (mode 0700).
fn private_tmp() -> Result<PathBuf, String> {
    let base = std::env::temp_dir();
    let dir = base.join(format!("warden-shell-{}", uuid::Uuid::now_v7().simple()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| {
            format!(
                "creating the private temporary directory {}: {e}",
                dir.display()
            )
        })?;
    std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))
}

impl Tool for ShellTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: SHELL.to_owned(),
            description: format!(
                "Run a command with `sh -c` in the workspace root, in a sandbox: writes only in \
                 the workspace and $TMPDIR, {}, no access to the user's credentials. Returns \
                 standard output and error interleaved, then the exit status. The command is \
                 killed after `timeout_s` seconds (default and maximum {}); background processes \
                 do not outlive it. When a command fails because of the sandbox (the result's \
                 last line says so: no network, `.git` read-only …) and the task needs it, call \
                 it again with `escalate` (`network`, optionally with `hosts`; `git` to write \
                 `.git` for add/commit/stash/checkout, git commands only; `unsandboxed` only as a last resort) and a \
                 one-line `reason`: the person is asked every time and may refuse. Never escalate \
                 a command that does not need it.",
                self.network_description(),
                self.config.timeout_s
            ),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "command": {"type": "string", "description": "The command line, run with `sh -c`"},
                    "timeout_s": {"type": "integer", "minimum": 1, "description": "Deadline in seconds (at most the configured one)"},
                    "escalate": {
                        "type": "object",
                        "description": "Ask the person to run this one command with more than the default sandbox",
                        "properties": {
                            "kind": {"type": "string", "enum": ["network", "git", "unsandboxed"], "description": "network: reach the network (all hosts, or `hosts`); git: write .git, running git alone (every command must be git; hooks, fsmonitor, filters and the other programs git could run are off); unsandboxed: no sandbox"},
                            "hosts": {"type": "array", "items": {"type": "string"}, "description": "For network: the hosts needed (`index.crates.io`, `*.pypi.org`); omit for every host"},
                            "reason": {"type": "string", "description": "One line: why this command needs it"}
                        },
                        "required": ["kind", "reason"],
                        "additionalProperties": false
                    }
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, context: &mut ToolContext<'_>) -> ToolOutput {
        let escalation = match Escalation::from_arguments(arguments) {
            Ok(escalation) => escalation,
            Err(message) => return ToolOutput::error(message),
        };
        match parse(arguments, self.config.timeout_s) {
            Ok((command, timeout_s)) => self.execute_escalated(
                &command,
                escalation.as_ref(),
                Duration::from_secs(timeout_s),
                context.cancelled,
            ),
            Err(message) => ToolOutput::error(message),
        }
    }
}

/// `command` and the deadline in seconds (at most `max_s`).
fn parse(arguments: &Value, max_s: u64) -> Result<(String, u64), String> {
    let map = arguments
        .as_object()
        .ok_or("invalid arguments for shell: expected a JSON object")?;
    if let Some(unknown) = map
        .keys()
        .find(|k| !matches!(k.as_str(), "command" | "timeout_s" | "escalate"))
    {
        return Err(format!(
            "invalid arguments for shell: unknown argument `{unknown}` (allowed: command, timeout_s, escalate)"
        ));
    }
    let command = match map.get("command") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        _ => {
            return Err("invalid arguments for shell: `command` must be a non-empty string".into());
        }
    };
    let timeout_s = match map.get("timeout_s") {
        None | Some(Value::Null) => max_s,
        Some(v) => match v.as_u64() {
            Some(n) if n >= 1 => n.min(max_s),
            _ => {
                return Err(
                    "invalid arguments for shell: `timeout_s` must be a positive integer".into(),
                );
            }
        },
    };
    Ok((command, timeout_s))
}

#[cfg(test)]
#[path = "tool_tests.rs"]
mod tests;
