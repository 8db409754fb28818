//! A program other than the `shell` tool's command, confined by the launcher with the grants
//! its entry names: an MCP stdio server, a command hook. The workspace roots are hidden
//! (`fs = "none"`), readable (`read`) or writable (`read-write`, `.warden` and `.git` still
//! read-only, with placeholders where a root has none); the network only with `network`
//! (every host) or, with `allowed_hosts`, only those hosts through warden's filtering proxy
//! ([`HostProxy`], started here and owned with the process); the user's secret paths, the deny
//! globs' files and warden's own state and configuration hidden; the sandbox's harmless
//! environment plus the entry's `env` names.

use std::path::{Path, PathBuf};

use crate::config::FsGrant;
use crate::sandbox::env::command_env;
use crate::sandbox::hidden::hidden_and_repos;
use crate::sandbox::own::{cover_around_roots, own_paths};
use crate::sandbox::placeholder::Placeholders;
use crate::sandbox::spec::FileGuard;
use crate::sandbox::tool::read_only;
use crate::sandbox::{HostProxy, SandboxSpec};

/// Where a confined program starts, and what it is confined from.
#[derive(Debug, Clone)]
pub struct LaunchContext {
    /// Workspace roots (canonical); the first is the working directory.
    pub roots: Vec<PathBuf>,
    /// The `warden` binary that runs the sandbox launcher.
    pub launcher: PathBuf,
    /// warden's own environment (what the allowlist and `env` pick from).
    pub vars: Vec<(String, String)>,
    /// Paths hidden from the program (`[tools.shell] hide`: `~/.ssh` …).
    pub hide: Vec<String>,
    /// The deny globs, whose files in the roots are hidden too.
    pub deny: Vec<String>,
}

impl LaunchContext {
    /// `HOME`, as warden's environment has it.
    pub fn home(&self) -> Option<PathBuf> {
        self.vars
            .iter()
            .find(|(k, _)| k == "HOME")
            .map(|(_, v)| PathBuf::from(v))
    }
}

/// What one entry grants its program.
#[derive(Debug, Clone, Copy)]
pub struct Grants<'a> {
    /// The key messages about its hosts name (`mcp.NAME.allowed_hosts`).
    pub key: &'a str,
    /// The workspace roots.
    pub fs: FsGrant,
    /// Every host.
    pub network: bool,
    /// Host patterns reachable through the filtering proxy.
    pub allowed_hosts: &'a [String],
    /// Unix socket paths it may connect to although nothing of its sandbox listens there.
    pub unix_sockets: &'a [PathBuf],
    /// Variables passed through besides the harmless ones.
    pub env: &'a [String],
}

/// A confined program, ready for the launcher: its spec (to be written as the first line of
/// the launcher's input), its working directory and environment, and what must live as long
/// as it runs.
pub struct Confined {
    /// The launcher's spec.
    pub spec: SandboxSpec,
    /// The working directory: the first root, or `tmp` without the roots.
    pub cwd: PathBuf,
    /// The environment it gets.
    pub env: Vec<(String, String)>,
    /// The proxy of its granted hosts, already serving.
    pub proxy: Option<HostProxy>,
    /// The empty `.warden`/`.git` made at the roots for a read-write program (removed when
    /// dropped after it ended).
    pub placeholders: Placeholders,
    /// For a read-write program, every `.git` under the roots when it started.
    pub repos_before: Option<Vec<PathBuf>>,
}

impl Confined {
    /// The spec as the launcher reads it: one JSON line.
    pub fn spec_line(&self) -> Result<Vec<u8>, String> {
        let mut line = serde_json::to_vec(&self.spec).map_err(|e| e.to_string())?;
        line.push(b'\n');
        Ok(line)
    }
}

/// The environment and working directory of a program granted `grants`, unconfined or not.
pub fn env_and_cwd(
    grants: &Grants<'_>,
    context: &LaunchContext,
    tmp: &Path,
) -> (Vec<(String, String)>, PathBuf) {
    let env = command_env(context.vars.iter().cloned(), grants.env, tmp);
    let cwd = match (grants.fs, context.roots.first()) {
        (FsGrant::None, _) | (_, None) => tmp.to_owned(),
        (_, Some(root)) => root.clone(),
    };
    (env, cwd)
}

/// Confine `argv` as `grants` say, with `tmp` as its private temporary directory; `stdio`
/// keeps its standard input (after the spec line) and output for the caller.
pub fn confine(
    grants: &Grants<'_>,
    argv: &[String],
    context: &LaunchContext,
    tmp: &Path,
) -> Result<Confined, String> {
    if argv.is_empty() {
        return Err("an empty command".into());
    }
    if let Some(path) = crate::config::inside_roots(grants.unix_sockets, &context.roots) {
        return Err(format!(
            "`unix_sockets` grants {}, inside a workspace root (the program could put its own socket there); refused",
            path.display()
        ));
    }
    let (env, cwd) = env_and_cwd(grants, context, tmp);
    let hidden_roots: &[PathBuf] = if grants.fs == FsGrant::None {
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
    // warden's own state and configuration, whatever the grant.
    hide.extend(cover_around_roots(
        &own_paths(&context.vars),
        &context.roots,
    )?);
    if grants.fs == FsGrant::None {
        // Last, so that nothing is mounted inside a root once it is covered.
        hide.extend(context.roots.iter().cloned());
    }
    let mut placeholders = Placeholders::default();
    let mut repos_before = None;
    let read_only = if grants.fs == FsGrant::ReadWrite {
        placeholders = Placeholders::make(&context.roots)?;
        repos_before = Some(found.names);
        read_only(&context.roots, found.repos)
    } else {
        Vec::new()
    };
    let spec = SandboxSpec {
        command: String::new(),
        cwd: cwd.clone(),
        roots: if grants.fs == FsGrant::ReadWrite {
            context.roots.clone()
        } else {
            Vec::new()
        },
        tmp: tmp.to_owned(),
        caches: Vec::new(),
        hide,
        read_only,
        network: grants.network,
        allowed_hosts: grants.allowed_hosts.to_vec(),
        unix_sockets: grants.unix_sockets.to_vec(),
        env: env.clone(),
        probe: false,
        argv: Some(argv.to_vec()),
        stdio: true,
        guard: (grants.fs != FsGrant::None).then(|| FileGuard {
            roots: context.roots.clone(),
            deny: context.deny.clone(),
        }),
        report: false,
        pinned: Vec::new(),
    };
    let proxy = HostProxy::start_for(&spec, grants.key)
        .map_err(|why| format!("per-host network: {why}"))?;
    Ok(Confined {
        spec,
        cwd,
        env,
        proxy,
        placeholders,
        repos_before,
    })
}

/// A fresh private directory for program `name` (mode 0700, canonical).
pub fn private_tmp(name: &str) -> Result<PathBuf, String> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = std::env::temp_dir().join(format!("warden-{name}-{}", uuid::Uuid::now_v7().simple()));
    std::fs::DirBuilder::new()
        .mode(0o700)
        .create(&dir)
        .map_err(|e| format!("creating {}: {e}", dir.display()))?;
    std::fs::canonicalize(&dir).map_err(|e| format!("{}: {e}", dir.display()))
}

/// Remove a program's private directory.
pub fn remove_tmp(tmp: &Path) {
    if let Err(err) = std::fs::remove_dir_all(tmp) {
        tracing::debug!("removing {}: {err}", tmp.display());
    }
}
