//! What the launcher is asked to build: the JSON it reads on its standard input, up to the
//! first newline or the end of the input (a stdio program's stream follows that line).

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// One sandboxed command, as the `shell` tool hands it to `warden __sandbox-exec`. Every path
/// is absolute and already resolved by the tool.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SandboxSpec {
    /// What `sh -c` runs.
    pub command: String,
    /// The working directory (the primary workspace root).
    pub cwd: PathBuf,
    /// Directories where writes are allowed: the workspace roots.
    pub roots: Vec<PathBuf>,
    /// The call's private temporary directory (writable; `TMPDIR`).
    pub tmp: PathBuf,
    /// Directories outside the roots where writes are allowed too: the workspace's private
    /// build caches ([`BuildCaches`](super::build_cache::BuildCaches)).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caches: Vec<PathBuf>,
    /// Files and directories made unreadable (an empty file or directory mounted over them).
    pub hide: Vec<PathBuf>,
    /// Files and directories inside the roots that stay read-only (`.warden`, `.git`).
    pub read_only: Vec<PathBuf>,
    /// Directories inside the roots bound onto themselves, writable, before the read-only
    /// binds: they cannot be renamed or removed during the command (the `.git` a `git`
    /// escalation opened).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pinned: Vec<PathBuf>,
    /// Whether the network stays reachable (otherwise: a new, empty network namespace).
    pub network: bool,
    /// Host patterns the command may reach through warden's filtering HTTP proxy when
    /// `network` is false (empty: none; see `config::HostPattern`). The host side serves the
    /// proxy on [`PROXY_SOCKET`] in `tmp` ([`HostProxy::start`](super::HostProxy::start)); the
    /// launcher relays `127.0.0.1:<port>` inside the namespace to it and sets the `*_PROXY`
    /// variables.
    #[serde(default)]
    pub allowed_hosts: Vec<String>,
    /// Unix socket paths the command may connect to although no process of the sandbox
    /// listens there (`unix_sockets`; absolute, outside the workspace roots).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unix_sockets: Vec<PathBuf>,
    /// The command's whole environment.
    pub env: Vec<(String, String)>,
    /// Only check which pieces the kernel offers, print them and exit (for `warden doctor`).
    #[serde(default)]
    pub probe: bool,
    /// A program and its arguments to run instead of `sh -c COMMAND` (an MCP server).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub argv: Option<Vec<String>>,
    /// Keep the launcher's standard input and output for the program (a JSON-RPC stream after
    /// the spec's line) instead of `/dev/null`.
    #[serde(default)]
    pub stdio: bool,
    /// For a program granted the workspace (an MCP server with `fs = "read"` or
    /// `"read-write"`): every open, link and rename it makes is answered by the launcher's
    /// parent half, which refuses a path the deny globs deny below these roots, whenever the
    /// file appeared (see `files`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guard: Option<FileGuard>,
    /// The launcher's standard input is a socket: after the command it writes back one JSON
    /// line of what the sandbox refused ([`SandboxReport`](super::report::SandboxReport)),
    /// watching the command's writes by name for it.
    #[serde(default)]
    pub report: bool,
}

/// The roots whose denied paths a guarded program never opens, and the deny globs.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileGuard {
    /// The workspace roots (canonical).
    pub roots: Vec<PathBuf>,
    /// The deny globs (root-relative, as configured).
    pub deny: Vec<String>,
}

impl SandboxSpec {
    /// Every directory where writes are allowed: the roots, the temporary directory and the
    /// build caches.
    pub fn writable(&self) -> Vec<PathBuf> {
        self.roots
            .iter()
            .chain([&self.tmp])
            .chain(&self.caches)
            .cloned()
            .collect()
    }

    /// Whether the command reaches the network through the filtering proxy (hosts granted,
    /// full network not).
    pub fn proxied(&self) -> bool {
        !self.network && !self.allowed_hosts.is_empty()
    }
}

/// The file name, in the call's private temporary directory, of the proxy's Unix socket.
pub const PROXY_SOCKET: &str = "warden-proxy.sock";

/// Exit status of the launcher when the sandbox could not be built; its standard error then
/// holds one line starting with [`SETUP_ERROR_PREFIX`].
pub const SETUP_FAILED: i32 = 125;

/// How the launcher's line naming a missing piece begins.
pub const SETUP_ERROR_PREFIX: &str = "warden-sandbox: ";

/// The hidden subcommand that runs the launcher.
pub const LAUNCHER_SUBCOMMAND: &str = "__sandbox-exec";
