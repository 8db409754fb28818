//! The Landlock ruleset of one sandboxed command: everything readable and executable, writes
//! only under the workspace roots, the call's private temporary directory and three harmless
//! devices (`/dev/null`, `/dev/zero`, `/dev/full`; never `/dev/tty`: the user's terminal); no TCP bind or connect unless the
//! network is granted, but a connect to the proxy's loopback port under `allowed_hosts`;
//! no signals to, and no abstract Unix sockets of, processes outside the sandbox (where the
//! kernel's Landlock has those scopes).

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, NetPort, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::spec::SandboxSpec;

/// Devices a command may write to (and query with ioctl).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full"];

/// The newest ABI this ruleset is written for; older kernels enforce what they can.
const ABI_USED: ABI = ABI::V6;

fn fail(what: &str, err: impl std::fmt::Display) -> String {
    format!("Landlock ({what}): {err}")
}

/// The first Landlock ABI with TCP port rules.
pub(crate) const NET_RULES_ABI: i64 = 4;

/// An error naming what is missing unless this kernel's Landlock has TCP port rules (what
/// per-host network needs: without them the command could connect to any loopback port).
pub(crate) fn check_net_rules() -> Result<(), String> {
    let abi = abi_version()?;
    if abi < NET_RULES_ABI {
        return Err(format!(
            "per-host network (`[tools.shell] allowed_hosts`) needs Landlock ABI {NET_RULES_ABI} or later (TCP port rules, Linux 6.7); this kernel offers ABI {abi}"
        ));
    }
    Ok(())
}

/// Restrict this process (and what it runs) to `spec`'s rules; with `proxy_port`, TCP connect
/// to that port stays allowed. An error when the kernel enforces no Landlock at all.
pub(crate) fn restrict(spec: &SandboxSpec, proxy_port: Option<u16>) -> Result<(), String> {
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI_USED))
        .map_err(|e| fail("file-system rights", e))?;
    if !spec.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI_USED))
            .map_err(|e| fail("network rights", e))?;
    }
    let mut created = ruleset
        .scope(Scope::from_all(ABI_USED))
        .map_err(|e| fail("scopes", e))?
        .create()
        .map_err(|e| fail("creating the ruleset", e))?;
    let rule = |path: &Path, access| -> Result<PathBeneath<PathFd>, String> {
        let fd = PathFd::new(path).map_err(|e| fail(&format!("opening {}", path.display()), e))?;
        Ok(PathBeneath::new(fd, access))
    };
    created = created
        .add_rule(rule(Path::new("/"), AccessFs::from_read(ABI_USED))?)
        .map_err(|e| fail("read rule on /", e))?;
    if let Some(port) = proxy_port {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(|e| fail("connect rule on the proxy port", e))?;
    }
    // Only the harmless character devices are writable: never a disk (`/dev/sda` is the
    // caller's to write when warden runs as root) nor another process's `/dev/shm` segment.
    let devices = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    for device in WRITABLE_DEVICES {
        let path = Path::new(device);
        if path.exists() {
            created = created
                .add_rule(rule(path, devices)?)
                .map_err(|e| fail(&format!("rule on {device}"), e))?;
        }
    }
    for dir in &spec.writable() {
        created = created
            .add_rule(rule(dir, AccessFs::from_all(ABI_USED))?)
            .map_err(|e| fail(&format!("write rule on {}", dir.display()), e))?;
    }
    let status = created
        .restrict_self()
        .map_err(|e| fail("restricting the process", e))?;
    if status.ruleset == RulesetStatus::NotEnforced {
        return Err(
            "Landlock: not enforced by this kernel (not built in, or not in the `lsm=` list)"
                .to_owned(),
        );
    }
    Ok(())
}

/// The Landlock ABI version the kernel offers, or why none.
pub(crate) fn abi_version() -> Result<i64, String> {
    // The version query of landlock_create_ruleset(2): no ruleset is created.
    #[allow(unsafe_code)]
    // SAFETY: with a null attribute pointer, size 0 and the version flag the call only returns
    // a number.
    let version = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            1u32,
        )
    };
    if version > 0 {
        Ok(version)
    } else {
        Err(format!(
            "Landlock is unavailable: {}",
            std::io::Error::last_os_error()
        ))
    }
}
