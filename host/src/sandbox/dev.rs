//! The sandbox's own `/dev`: a small tmpfs over the caller's, holding only the harmless
//! devices (`null`, `zero`, `full`, `random`, `urandom`, each the caller's node bound back)
//! and the names of the process's own descriptors (`fd`, `stdin`, `stdout`, `stderr`, links
//! into `/proc/self`), then made read-only. No virtual console (`tty0`–`tty63`), system
//! console, screen memory (`vcs*`), kernel log, disk or pseudo-terminal is reachable, even by a
//! process that is root of its namespace.

#![allow(unsafe_code)]

use std::ffi::CString;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use super::namespaces::mount;

/// The devices the sandbox's `/dev` offers.
pub(crate) const DEVICES: &[&str] = &["null", "zero", "full", "random", "urandom"];

/// The links to the process's own descriptors.
const LINKS: &[(&str, &str)] = &[
    ("fd", "/proc/self/fd"),
    ("stdin", "/proc/self/fd/0"),
    ("stdout", "/proc/self/fd/1"),
    ("stderr", "/proc/self/fd/2"),
];

const FLAGS: libc::c_ulong = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;

/// Cover `/dev` with the sandbox's own (in the launcher, in its mount namespace).
pub(crate) fn private_dev() -> Result<(), String> {
    let dev = Path::new("/dev");
    let fail = |e: String| format!("the sandbox's /dev: {e}");
    // The caller's nodes, opened before the cover and bound back by descriptor.
    let mut kept = Vec::new();
    for name in DEVICES {
        let path = CString::new(format!("/dev/{name}")).map_err(|e| fail(e.to_string()))?;
        // SAFETY: a NUL-terminated path; the call returns a new descriptor or -1.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_PATH | libc::O_CLOEXEC) };
        if fd >= 0 {
            // SAFETY: a fresh descriptor nothing else owns.
            kept.push((*name, unsafe { OwnedFd::from_raw_fd(fd) }));
        }
    }
    mount(
        Some(Path::new("tmpfs")),
        dev,
        Some("tmpfs"),
        FLAGS,
        Some("size=64k,mode=0755"),
    )
    .map_err(fail)?;
    for (name, fd) in &kept {
        let target = dev.join(name);
        std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o666)
            .open(&target)
            .map_err(|e| fail(format!("{}: {e}", target.display())))?;
        let source = format!("/proc/self/fd/{}", fd.as_raw_fd());
        mount(Some(Path::new(&source)), &target, None, libc::MS_BIND, None).map_err(fail)?;
    }
    for (name, to) in LINKS {
        std::os::unix::fs::symlink(to, dev.join(name))
            .map_err(|e| fail(format!("/dev/{name}: {e}")))?;
    }
    mount(
        None,
        dev,
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | FLAGS,
        None,
    )
    .map_err(fail)
}
