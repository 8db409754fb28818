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

use std::path::{Path, PathBuf};
use std::process::Stdio;

use crate::config::{McpEntry, ShellSandbox};
use crate::sandbox::confined::{Grants, confine, env_and_cwd};
use crate::sandbox::placeholder::Placeholders;
use crate::sandbox::{HostProxy, LAUNCHER_SUBCOMMAND};

pub use crate::sandbox::confined::LaunchContext;

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
    let key = format!("mcp.{}.allowed_hosts", entry.name);
    let grants = Grants {
        key: &key,
        fs: entry.fs,
        network: entry.network,
        allowed_hosts: &entry.allowed_hosts,
        unix_sockets: &entry.unix_sockets,
        env: &entry.env,
    };
    let mut spec_line = None;
    let mut proxy = None;
    let mut placeholders = Placeholders::default();
    let mut repos_before = None;
    let (env, cwd, mut command) = if entry.sandbox == ShellSandbox::None {
        let (env, cwd) = env_and_cwd(&grants, context, tmp);
        let mut command = tokio::process::Command::new(program);
        command.args(args);
        (env, cwd, command)
    } else {
        let confined = confine(&grants, argv, context, tmp)?;
        spec_line = Some(confined.spec_line()?);
        proxy = confined.proxy;
        placeholders = confined.placeholders;
        repos_before = confined.repos_before;
        let mut command = tokio::process::Command::new(&context.launcher);
        command.arg(LAUNCHER_SUBCOMMAND);
        (confined.env, confined.cwd, command)
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

pub(super) use crate::sandbox::confined::{private_tmp, remove_tmp};
pub(super) use crate::sandbox::kill_group;

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::config::{Approve, FailurePolicy, FsGrant, McpTransport};
    use crate::sandbox::PROXY_SOCKET;
    use crate::sandbox::SandboxSpec;

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
