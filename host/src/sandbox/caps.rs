//! The capabilities of one sandboxed command: none. PID 1 drops every capability it holds in
//! its user namespace right before the seccomp filter and `exec`, so that the command (uid 0
//! of its namespace when warden runs as root) can neither change its mounts nor regain a
//! capability:
//!
//! - the bounding set, every capability up to `/proc/sys/kernel/cap_last_cap`;
//! - the ambient set, cleared;
//! - the securebits, locked: `SECBIT_NOROOT` (uid 0 gains nothing at `exec`),
//!   `SECBIT_NO_SETUID_FIXUP`, `SECBIT_NO_CAP_AMBIENT_RAISE`, `SECBIT_KEEP_CAPS` off;
//! - the inheritable, permitted and effective sets, emptied with `capset`.
//!
//! The result is read back; anything but empty sets is an error naming what is left.

#![allow(unsafe_code)]

use std::io;

/// `_LINUX_CAPABILITY_VERSION_3`: two 32-bit words per set.
const CAPABILITY_VERSION_3: u32 = 0x2008_0522;

/// The securebits set and locked: no root privilege at `exec`, no capability kept or fixed
/// up across a uid change, no ambient capability raised; each with its lock.
const SECUREBITS: libc::c_int = libc::SECBIT_NOROOT
    | libc::SECBIT_NOROOT_LOCKED
    | libc::SECBIT_NO_SETUID_FIXUP
    | libc::SECBIT_NO_SETUID_FIXUP_LOCKED
    | libc::SECBIT_KEEP_CAPS_LOCKED
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE
    | libc::SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

#[repr(C)]
struct Header {
    version: u32,
    pid: libc::c_int,
}

#[repr(C)]
#[derive(Default, Clone, Copy)]
struct Data {
    effective: u32,
    permitted: u32,
    inheritable: u32,
}

fn os_error(what: &str) -> String {
    format!(
        "dropping capabilities ({what}): {}",
        io::Error::last_os_error()
    )
}

/// The highest capability number this kernel knows.
fn last_cap() -> Result<libc::c_int, String> {
    let text = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .map_err(|e| format!("dropping capabilities (/proc/sys/kernel/cap_last_cap): {e}"))?;
    text.trim().parse().map_err(|_| {
        format!(
            "dropping capabilities: /proc/sys/kernel/cap_last_cap holds {:?}, not a number",
            text.trim()
        )
    })
}

fn prctl(option: libc::c_int, arg: libc::c_ulong) -> libc::c_int {
    // SAFETY: the prctl options used here take plain integers and touch only this process.
    unsafe {
        libc::prctl(
            option,
            arg,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
            0 as libc::c_ulong,
        )
    }
}

/// Drop every capability of this process for good (see the module's documentation).
pub(crate) fn drop_all() -> Result<(), String> {
    let last = last_cap()?;
    if prctl(libc::PR_SET_SECUREBITS, SECUREBITS as libc::c_ulong) != 0 {
        return Err(os_error("locking the securebits"));
    }
    for cap in 0..=last {
        if prctl(libc::PR_CAPBSET_DROP, cap as libc::c_ulong) != 0 {
            return Err(os_error(&format!("bounding set, capability {cap}")));
        }
    }
    if prctl(
        libc::PR_CAP_AMBIENT,
        libc::PR_CAP_AMBIENT_CLEAR_ALL as libc::c_ulong,
    ) != 0
    {
        return Err(os_error("clearing the ambient set"));
    }
    let header = Header {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let empty = [Data::default(); 2];
    // SAFETY: the header and the two data words are the layout capset(2) reads for version 3.
    if unsafe { libc::syscall(libc::SYS_capset, &raw const header, empty.as_ptr()) } != 0 {
        return Err(os_error("capset"));
    }
    check(last)
}

/// An error naming what is left unless every set is empty and the securebits locked.
fn check(last: libc::c_int) -> Result<(), String> {
    let mut header = Header {
        version: CAPABILITY_VERSION_3,
        pid: 0,
    };
    let mut sets = [Data::default(); 2];
    // SAFETY: as in `drop_all`; capget fills the two data words.
    if unsafe { libc::syscall(libc::SYS_capget, &raw mut header, sets.as_mut_ptr()) } != 0 {
        return Err(os_error("capget"));
    }
    if sets
        .iter()
        .any(|d| d.effective != 0 || d.permitted != 0 || d.inheritable != 0)
    {
        return Err("dropping capabilities: the kernel left some in place".to_owned());
    }
    if let Some(cap) =
        (0..=last).find(|cap| prctl(libc::PR_CAPBSET_READ, *cap as libc::c_ulong) != 0)
    {
        return Err(format!(
            "dropping capabilities: capability {cap} is still in the bounding set"
        ));
    }
    let bits = prctl(libc::PR_GET_SECUREBITS, 0);
    if bits < 0 || bits & SECUREBITS != SECUREBITS {
        return Err(format!(
            "dropping capabilities: the securebits are {bits:#x}, not locked"
        ));
    }
    Ok(())
}
