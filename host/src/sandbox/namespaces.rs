//! The namespaces of one sandboxed command, entered by the single-threaded launcher before it
//! runs `sh`: a user namespace (the caller's own uid and gid mapped, nothing else), a mount
//! namespace where the hidden paths are covered (an empty read-only tmpfs over a directory,
//! `/dev/null` over a file) and `.warden`/`.git` are bound read-only, and, unless the network
//! is granted, a network namespace with nothing but a loopback that is down.
//!
//! Each function's error names the piece that failed and the kernel's reason, so that a refusal
//! tells the operator what is missing.

#![allow(unsafe_code)]

use std::ffi::CString;
use std::io;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// A path as the kernel takes it.
fn c_path(path: &Path) -> Result<CString, String> {
    CString::new(path.as_os_str().as_bytes())
        .map_err(|_| format!("path {} holds a NUL byte", path.display()))
}

fn os_error(what: &str) -> String {
    format!("{what}: {}", io::Error::last_os_error())
}

/// Enter new user and mount namespaces, and a network namespace unless `network`; the caller's
/// uid and gid stay its own inside. Mounts made afterwards never propagate back.
pub(crate) fn unshare(network: bool) -> Result<(), String> {
    enter_user()?;
    enter_mount()?;
    if !network {
        enter_network()?;
    }
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )
    .map_err(|e| format!("mount namespace (making / private): {e}"))
}

/// A new user namespace with the caller's own uid and gid mapped (and nothing else).
pub(crate) fn enter_user() -> Result<(), String> {
    // SAFETY: plain system calls on this (single-threaded) process; no memory is shared.
    let (uid, gid) = unsafe { (libc::getuid(), libc::getgid()) };
    // SAFETY: as above.
    if unsafe { libc::unshare(libc::CLONE_NEWUSER) } != 0 {
        return Err(os_error("user namespace (unshare CLONE_NEWUSER)"));
    }
    std::fs::write("/proc/self/setgroups", "deny")
        .or_else(|e| {
            // Kernels before 3.19 have no setgroups file; nothing to deny there.
            if e.kind() == io::ErrorKind::NotFound {
                Ok(())
            } else {
                Err(e)
            }
        })
        .map_err(|e| format!("user namespace (/proc/self/setgroups): {e}"))?;
    std::fs::write("/proc/self/uid_map", format!("{uid} {uid} 1\n"))
        .map_err(|e| format!("user namespace (uid_map): {e}"))?;
    std::fs::write("/proc/self/gid_map", format!("{gid} {gid} 1\n"))
        .map_err(|e| format!("user namespace (gid_map): {e}"))
}

/// A new mount namespace (after [`enter_user`]).
pub(crate) fn enter_mount() -> Result<(), String> {
    // SAFETY: a plain system call on this single-threaded process.
    if unsafe { libc::unshare(libc::CLONE_NEWNS) } != 0 {
        return Err(os_error("mount namespace (unshare CLONE_NEWNS)"));
    }
    Ok(())
}

/// A new network namespace: only a loopback interface, down.
pub(crate) fn enter_network() -> Result<(), String> {
    // SAFETY: a plain system call on this single-threaded process.
    if unsafe { libc::unshare(libc::CLONE_NEWNET) } != 0 {
        return Err(os_error("network namespace (unshare CLONE_NEWNET)"));
    }
    Ok(())
}

pub(super) fn mount(
    source: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), String> {
    let source = source.map(c_path).transpose()?;
    let target_c = c_path(target)?;
    let fstype = fstype
        .map(|s| CString::new(s).map_err(|_| "bad fs type".to_owned()))
        .transpose()?;
    let data = data
        .map(|s| CString::new(s).map_err(|_| "bad mount data".to_owned()))
        .transpose()?;
    let ptr = |c: &Option<CString>| c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr());
    // SAFETY: every pointer is a NUL-terminated string that outlives the call, or null.
    let rc = unsafe {
        libc::mount(
            ptr(&source),
            target_c.as_ptr(),
            ptr(&fstype),
            flags,
            ptr(&data).cast(),
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(format!(
            "{}: {}",
            target.display(),
            io::Error::last_os_error()
        ))
    }
}

/// Cover `path` so nothing of it can be read: an empty read-only tmpfs over a directory,
/// `/dev/null` bound over anything else. A path that does not exist is left alone.
pub(crate) fn hide(path: &Path) -> Result<(), String> {
    let Ok(meta) = std::fs::metadata(path) else {
        return Ok(());
    };
    let hidden = if meta.is_dir() {
        mount(
            Some(Path::new("tmpfs")),
            path,
            Some("tmpfs"),
            libc::MS_RDONLY | libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
            Some("size=4k,mode=0555"),
        )
    } else {
        mount(
            Some(Path::new("/dev/null")),
            path,
            None,
            libc::MS_BIND,
            None,
        )
    };
    hidden.map_err(|e| format!("hiding a path (mount): {e}"))
}

/// Bind `path` over itself read-only (keeping the flags the kernel locks in a user namespace).
/// A path that does not exist is left alone.
pub(crate) fn read_only(path: &Path) -> Result<(), String> {
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    let fail = |e: String| format!("read-only bind mount: {e}");
    mount(Some(path), path, None, libc::MS_BIND | libc::MS_REC, None).map_err(fail)?;
    let flags = locked_flags(path).map_err(fail)?;
    mount(
        None,
        path,
        None,
        libc::MS_REMOUNT | libc::MS_BIND | libc::MS_RDONLY | flags,
        None,
    )
    .map_err(fail)
}

/// The mount flags of the mount holding `path` that a remount must keep.
fn locked_flags(path: &Path) -> Result<libc::c_ulong, String> {
    let c = c_path(path)?;
    // SAFETY: `stat` is a plain C struct the call fills; `c` is NUL-terminated.
    let mut stat: libc::statvfs = unsafe { std::mem::zeroed() };
    // SAFETY: as above.
    if unsafe { libc::statvfs(c.as_ptr(), &mut stat) } != 0 {
        return Err(os_error(&format!("statvfs {}", path.display())));
    }
    let pairs = [
        (libc::ST_NOSUID, libc::MS_NOSUID),
        (libc::ST_NODEV, libc::MS_NODEV),
        (libc::ST_NOEXEC, libc::MS_NOEXEC),
        (libc::ST_NOATIME, libc::MS_NOATIME),
        (libc::ST_NODIRATIME, libc::MS_NODIRATIME),
        (libc::ST_RELATIME, libc::MS_RELATIME),
    ];
    Ok(pairs
        .iter()
        .filter(|(st, _)| stat.f_flag & st == *st)
        .fold(0, |acc, (_, ms)| acc | ms))
}

/// Lock every mount of this process for good: a second user namespace (the same uid and gid
/// mapped) owning a new mount namespace. The kernel copies every mount into it marked
/// `MNT_LOCKED`, with its flags (read-only, `nosuid`, …) locked too, because the namespace
/// that made them is more privileged than the new one: from here on, no cover can be
/// unmounted, no read-only bind made writable and no subtree cloned without its covers, even
/// with every capability of the new namespace. Called by PID 1 once its mounts (and `/proc`)
/// are in place.
pub(crate) fn lock_mounts() -> Result<(), String> {
    let fail = |e: String| format!("locking the mounts: {e}");
    enter_user().map_err(fail)?;
    enter_mount().map_err(fail)
}

/// A new PID namespace for the children of this process: the next child forked is its PID 1,
/// and when that process ends the kernel kills every process left in the namespace.
pub(crate) fn enter_pid() -> Result<(), String> {
    // SAFETY: a plain system call on this single-threaded process.
    if unsafe { libc::unshare(libc::CLONE_NEWPID) } != 0 {
        return Err(os_error("PID namespace (unshare CLONE_NEWPID)"));
    }
    Ok(())
}

/// Fork this single-threaded process: `Ok(None)` in the child, `Ok(Some(pid))` in the parent.
pub(crate) fn fork() -> Result<Option<libc::pid_t>, String> {
    // SAFETY: the launcher has one thread, so the child may run any code (no lock can be held
    // by a thread that does not exist there).
    match unsafe { libc::fork() } {
        -1 => Err(os_error("fork")),
        0 => Ok(None),
        pid => Ok(Some(pid)),
    }
}

/// Wait for `pid`; its exit status, or 128 + the signal that ended it (as a shell reports).
pub(crate) fn wait_for(pid: libc::pid_t) -> i32 {
    let mut status = 0;
    loop {
        // SAFETY: `status` is a plain int the call fills.
        let rc = unsafe { libc::waitpid(pid, &mut status, 0) };
        if rc == pid {
            break;
        }
        if rc == -1 && io::Error::last_os_error().kind() != io::ErrorKind::Interrupted {
            return 1;
        }
    }
    status_code(status)
}

/// The exit status of a `waitpid` status, or 128 + the signal that ended the process.
pub(crate) fn status_code(status: libc::c_int) -> i32 {
    if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        1
    }
}

/// A `/proc` of the new PID namespace over the old one, so that a command sees only its own
/// processes. Best effort: a kernel that refuses (a container whose `/proc` is partly masked)
/// leaves the old `/proc`, where Landlock still keeps other processes' memory and environment
/// out of reach.
pub(crate) fn mount_proc() -> bool {
    mount(
        Some(Path::new("proc")),
        Path::new("/proc"),
        Some("proc"),
        libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC,
        None,
    )
    .is_ok()
}

/// Ask the kernel to kill this process when the thread that started it ends (warden gone, the
/// command goes too).
pub(crate) fn die_with_parent() {
    // SAFETY: a plain prctl on this process.
    unsafe {
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL, 0, 0, 0);
    }
}

/// Leave the caller's session and process group for a new session: no controlling terminal.
pub(crate) fn new_session() -> Result<(), String> {
    // SAFETY: a plain system call on this process (PID 1 of its namespace, never a group
    // leader in the caller's session).
    if unsafe { libc::setsid() } < 0 {
        return Err(os_error("new session (setsid)"));
    }
    Ok(())
}

#[cfg(test)]
#[path = "namespaces_tests.rs"]
mod tests;
