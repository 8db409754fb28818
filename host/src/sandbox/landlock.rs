//! The Landlock ruleset of one sandboxed command: everything readable and executable, writes
//! only under the workspace roots, the call's private temporary directory and four harmless
//! devices (`/dev/null`, `/dev/zero`, `/dev/full`, `/dev/tty`); no TCP bind or connect unless the network is granted;
//! no signals to, and no abstract Unix sockets of, processes outside the sandbox (where the
//! kernel's Landlock has those scopes).

use std::path::Path;

use landlock::{
    ABI, Access, AccessFs, AccessNet, PathBeneath, PathFd, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetStatus, Scope,
};

use super::spec::SandboxSpec;

/// Devices a command may write to (and query with ioctl).
const WRITABLE_DEVICES: &[&str] = &["/dev/null", "/dev/zero", "/dev/full", "/dev/tty"];

/// The newest ABI this ruleset is written for; older kernels enforce what they can.
const ABI_USED: ABI = ABI::V6;

fn fail(what: &str, err: impl std::fmt::Display) -> String {
    format!("Landlock ({what}): {err}")
}

/// Restrict this process (and what it runs) to `spec`'s rules. An error when the kernel
/// enforces no Landlock at all.
pub(crate) fn restrict(spec: &SandboxSpec) -> Result<(), String> {
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
    for dir in spec.roots.iter().chain(std::iter::once(&spec.tmp)) {
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
