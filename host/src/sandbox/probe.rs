//! What the kernel offers for the sandbox, piece by piece, for `warden doctor` and for a clear
//! refusal: the launcher tries each piece in a throw-away process (`probe: true`) and prints
//! one JSON array.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::spec::{LAUNCHER_SUBCOMMAND, SandboxSpec};
use super::{caps, forward, landlock, namespaces, seccomp};

/// The name of the optional piece per-host network (`allowed_hosts`) needs.
pub const PER_HOST_NETWORK: &str = "per-host network";

/// One piece of the sandbox and whether this kernel gives it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Piece {
    /// `user namespace`, `mount namespace`, `network namespace`, `PID namespace`,
    /// `locked mounts`, `Landlock`, `seccomp`, `capability drop`, or the optional
    /// [`PER_HOST_NETWORK`].
    pub name: String,
    /// Whether it can be built.
    pub ok: bool,
    /// The Landlock ABI, or why the piece is missing.
    pub detail: String,
    /// Only some settings need it (`shell` runs without it unless they are set).
    #[serde(default)]
    pub optional: bool,
}

/// In the launcher: try every piece, print them, exit status 0.
pub(crate) fn launcher_probe() -> i32 {
    let mut pieces = Vec::new();
    let mut push = |name: &str, result: Result<String, String>| {
        let ok = result.is_ok();
        pieces.push(Piece {
            name: name.to_owned(),
            ok,
            detail: result.unwrap_or_else(|e| e),
            optional: name == PER_HOST_NETWORK,
        });
        ok
    };
    let user = push(
        "user namespace",
        namespaces::enter_user().map(|()| String::new()),
    );
    let needs_user = || Err("not tried: needs a user namespace".to_owned());
    if user {
        push(
            "mount namespace",
            namespaces::enter_mount().map(|()| String::new()),
        );
        let network = push(
            "network namespace",
            namespaces::enter_network().map(|()| String::new()),
        );
        // What `allowed_hosts` adds: the namespace's loopback brought up (for the relay) and
        // Landlock's TCP port rules (so that the command reaches no other port).
        push(
            PER_HOST_NETWORK,
            if network {
                forward::loopback_up()
                    .and_then(|()| landlock::check_net_rules())
                    .map(|()| {
                        "loopback relay and Landlock TCP port rules (`[tools.shell] allowed_hosts`)"
                            .to_owned()
                    })
            } else {
                Err("not tried: needs a network namespace".to_owned())
            },
        );
        push(
            "PID namespace",
            namespaces::enter_pid().map(|()| String::new()),
        );
        push(
            "locked mounts",
            namespaces::lock_mounts()
                .map(|()| "a second user namespace locks every mount".to_owned()),
        );
    } else {
        push("mount namespace", needs_user());
        push("network namespace", needs_user());
        push(PER_HOST_NETWORK, needs_user());
        push("PID namespace", needs_user());
        push("locked mounts", needs_user());
    }
    push(
        "Landlock",
        landlock::abi_version().map(|v| format!("ABI {v}")),
    );
    push("seccomp", seccomp::check());
    // Last: nothing after it may need a capability.
    push(
        "capability drop",
        caps::drop_all().map(|()| {
            "bounding, ambient, inheritable, permitted and effective sets emptied; securebits locked"
                .to_owned()
        }),
    );
    let text = serde_json::to_string(&pieces).unwrap_or_else(|_| "[]".to_owned());
    let _ = writeln!(std::io::stdout().lock(), "{text}");
    0
}

/// Run the probe through `launcher`: every piece, or why the launcher could not be run.
pub fn probe(launcher: &Path) -> Result<Vec<Piece>, String> {
    let spec = SandboxSpec {
        probe: true,
        ..SandboxSpec::default()
    };
    let input = serde_json::to_vec(&spec).map_err(|e| e.to_string())?;
    let mut child = Command::new(launcher)
        .arg(LAUNCHER_SUBCOMMAND)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| {
            format!(
                "cannot run the sandbox launcher {}: {e}",
                launcher.display()
            )
        })?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(&input)
            .map_err(|e| format!("sandbox launcher: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("sandbox launcher: {e}"))?;
    serde_json::from_slice(&out.stdout).map_err(|e| {
        format!(
            "sandbox launcher gave no probe report ({e}): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
    })
}

/// The missing required pieces of `pieces`, as one sentence; `None` when every piece is there.
pub fn missing(pieces: &[Piece]) -> Option<String> {
    let missing: Vec<String> = pieces
        .iter()
        .filter(|p| !p.ok && !p.optional)
        .map(|p| format!("{} ({})", p.name, p.detail))
        .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}
