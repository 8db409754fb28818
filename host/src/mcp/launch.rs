//! A stdio server's process: by default in the shell's sandbox (`warden __sandbox-exec` with
//! the entry's argv, its standard input and output kept for JSON-RPC), granted what its entry
//! says: the workspace roots hidden (`fs = "none"`), readable (`read`) or writable
//! (`read-write`, `.warden` and `.git` still read-only); the network only with
//! `network = true` (every host) or, with `allowed_hosts`, only the hosts listed, through
//! warden's filtering HTTP proxy ([`HostProxy`], started here and owned with the process, so
//! that it lives exactly as long as the server); the user's secret paths (`[tools.shell]
//! hide`), the deny globs' files and warden's own state and configuration ([`own_paths`])
//! hidden; the sandbox's harmless environment plus the entry's `env` names. A read-write
//! server gets the `shell` tool's protections of `.warden` and `.git` (placeholders where a
//! root has none, every repository below the roots read-only). With `sandbox = "none"` the
//! argv runs unconfined, with the same reduced environment.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::config::{FsGrant, McpEntry, ShellSandbox};
use crate::sandbox::env::command_env;
use crate::sandbox::hidden::hidden_and_repos;
use crate::sandbox::own::{cover_around_roots, own_paths};
use crate::sandbox::placeholder::Placeholders;
use crate::sandbox::spec::FileGuard;
use crate::sandbox::tool::read_only;
use crate::sandbox::{HostProxy, LAUNCHER_SUBCOMMAND, SandboxSpec};

/// What a stdio server is started with.
#[derive(Debug, Clone)]
pub struct LaunchContext {
    /// Workspace roots (canonical); the first is the working directory.
    pub roots: Vec<PathBuf>,
    /// The `warden` binary that runs the sandbox launcher.
    pub launcher: PathBuf,
    /// warden's own environment (what the allowlist and `env` pick from).
    pub vars: Vec<(String, String)>,
    /// Paths hidden from the server (`[tools.shell] hide`: `~/.ssh` …).
    pub hide: Vec<String>,
    /// The deny globs, whose files in the roots are hidden too.
    pub deny: Vec<String>,
}

/// A process ready to spawn, what to write on its input before the JSON-RPC stream, and the
/// proxy of its granted hosts (already serving; to be kept until the process has ended).
pub(super) struct Prepared {
    pub(super) command: tokio::process::Command,
    pub(super) spec_line: Option<Vec<u8>>,
    pub(super) proxy: Option<HostProxy>,
    /// The empty `.warden`/`.git` made at the roots for a read-write server (to be kept until
    /// the process has ended, then removed).
    pub(super) placeholders: Placeholders,
    /// For a read-write server, every `.git` under the roots when it started: one found later
    /// was created by the server and is moved aside ([`planted`](crate::sandbox::planted)).
    pub(super) repos_before: Option<Vec<PathBuf>>,
}

impl LaunchContext {
    fn home(&self) -> Option<PathBuf> {
        self.vars
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
    }
}

/// The process for `entry` running `argv`, with `tmp` as its private temporary directory.
pub(super) fn prepare(
    entry: &McpEntry,
    argv: &[String],
    context: &LaunchContext,
    tmp: &Path,
) -> Result<Prepared, String> {
    let Some((program, args)) = argv.split_first() else {
        return Err("an empty command".into());
    };
    let tmp = tmp.to_owned();
    let env = command_env(context.vars.iter().cloned(), &entry.env, &tmp);
    let cwd = match (entry.fs, context.roots.first()) {
        (FsGrant::None, _) | (_, None) => tmp.clone(),
        (_, Some(root)) => root.clone(),
    };
    let mut spec_line = None;
    let mut proxy = None;
    let mut placeholders = Placeholders::default();
    let mut repos_before = None;
    let mut command = if entry.sandbox == ShellSandbox::None {
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        command
    } else {
        if let Some(path) = crate::config::inside_roots(&entry.unix_sockets, &context.roots) {
            return Err(format!(
                "`unix_sockets` grants {}, inside a workspace root (the server could put its own socket there); refused",
                path.display()
            ));
        }
        let hidden_roots: &[PathBuf] = if entry.fs == FsGrant::None {
            &[]
        } else {
            &context.roots
        };
        let found = hidden_and_repos(
            &context.hide,
            context.home().as_deref(),
            hidden_roots,
            &context.deny,
        )?;
        let mut hide = found.hide;
        // warden's own state and configuration, for every server whatever its grant.
        hide.extend(cover_around_roots(
            &own_paths(&context.vars),
            &context.roots,
        )?);
        if entry.fs == FsGrant::None {
            // Last, so that nothing is mounted inside a root once it is covered.
            hide.extend(context.roots.iter().cloned());
        }
        let spec = SandboxSpec {
            command: String::new(),
            cwd: cwd.clone(),
            roots: if entry.fs == FsGrant::ReadWrite {
                context.roots.clone()
            } else {
                Vec::new()
            },
            tmp: tmp.clone(),
            caches: Vec::new(),
            hide,
            read_only: if entry.fs == FsGrant::ReadWrite {
                placeholders = Placeholders::make(&context.roots)?;
                repos_before = Some(found.names);
                read_only(&context.roots, found.repos)
            } else {
                Vec::new()
            },
            network: entry.network,
            allowed_hosts: entry.allowed_hosts.clone(),
            unix_sockets: entry.unix_sockets.clone(),
            env: env.clone(),
            probe: false,
            argv: Some(argv.to_vec()),
            stdio: true,
            guard: (entry.fs != FsGrant::None).then(|| FileGuard {
                roots: context.roots.clone(),
                deny: context.deny.clone(),
            }),
            report: false,
            pinned: Vec::new(),
        };
        proxy = HostProxy::start_for(&spec, &format!("mcp.{}.allowed_hosts", entry.name))
            .map_err(|why| format!("per-host network: {why}"))?;
        let mut line = serde_json::to_vec(&spec).map_err(|e| e.to_string())?;
        line.push(b'\n');
        spec_line = Some(line);
        let mut command = tokio::process::Command::new(&context.launcher);
        command.arg(LAUNCHER_SUBCOMMAND);
        command
    };
    command
        .current_dir(&cwd)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if entry.sandbox == ShellSandbox::None {
        command.envs(env.iter().map(|(k, v)| (k, v)));
    }
    Ok(Prepared {
        command,
        spec_line,
        proxy,
        placeholders,
        repos_before,
    })
}

/// A fresh private directory for server `name` (mode 0700).
pub(super) fn private_tmp(name: &str) -> Result<PathBuf, String> {
    let dir = std::env::temp_dir().join(format!(
        "warden-mcp-{name}-{}",
        uuid::Uuid::now_v7().simple()
    ));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
    std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))
}

pub(super) use crate::sandbox::kill_group;

/// Remove a server's private directory.
pub(super) fn remove_tmp(tmp: &Path) {
    if let Err(err) = std::fs::remove_dir_all(tmp) {
        tracing::debug!("removing {}: {err}", tmp.display());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::config::{Approve, FailurePolicy, McpTransport};
    use crate::sandbox::PROXY_SOCKET;

    fn entry(network: bool, allowed_hosts: &[&str]) -> McpEntry {
        McpEntry {
            name: "s".into(),
            transport: McpTransport::Stdio {
                command: vec!["server".into()],
            },
            headers: Vec::new(),
            env: Vec::new(),
            approve: Approve::Never,
            timeout_s: 30,
            start_timeout_s: 30,
            max_output_bytes: 1024,
            failure: FailurePolicy::Open,
            fs: FsGrant::None,
            network,
            unix_sockets: Vec::new(),
            allowed_hosts: allowed_hosts.iter().map(|h| (*h).to_owned()).collect(),
            sandbox: ShellSandbox::Required,
            trust_files: Vec::new(),
            origin: "user".into(),
            declared_in: None,
        }
    }

    fn context() -> LaunchContext {
        LaunchContext {
            roots: Vec::new(),
            launcher: PathBuf::from("/nonexistent/warden"),
            vars: Vec::new(),
            hide: Vec::new(),
            deny: Vec::new(),
        }
    }

    #[test]
    fn granted_hosts_get_a_proxy_that_lives_as_long_as_the_prepared_process() {
        let tmp = tempfile::tempdir().unwrap();
        let socket = tmp.path().join(PROXY_SOCKET);
        let argv = ["server".to_owned()];
        let prepared = prepare(
            &entry(false, &["api.example.com:443"]),
            &argv,
            &context(),
            tmp.path(),
        )
        .unwrap();
        assert!(prepared.proxy.is_some());
        assert!(
            socket.exists(),
            "the proxy serves before the launcher starts"
        );
        let line = prepared.spec_line.clone().unwrap();
        let spec: SandboxSpec = serde_json::from_slice(&line).unwrap();
        assert!(!spec.network && spec.proxied());
        assert_eq!(spec.allowed_hosts, ["api.example.com:443"]);
        drop(prepared);
        assert!(
            !socket.exists(),
            "dropping the process's owner stops the proxy"
        );
        for (network, hosts) in [(false, &[][..]), (true, &[][..])] {
            let prepared = prepare(&entry(network, hosts), &argv, &context(), tmp.path()).unwrap();
            assert!(prepared.proxy.is_none() && !socket.exists(), "{network}");
        }
    }
}
