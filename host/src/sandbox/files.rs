//! The supervisor's answer to the file calls of a program granted the workspace (an MCP server
//! with `fs = "read"` or `"read-write"`): the covers laid when it starts hide only the denied
//! files that existed then, so every `open`, `openat`, `creat`, `link`, `linkat`, `rename`,
//! `renameat` and `renameat2` it makes waits here ([`seccomp`](super::seccomp)) and is made by
//! the supervisor itself, never let go on (the kernel would read the path again, after the
//! check):
//!
//! - an open is made once, from the caller's working directory or directory descriptor
//!   (`pidfd_getfd`); the opened file's real name (`/proc/self/fd/N`) is checked against the
//!   deny globs below the roots, and the descriptor is installed in the caller
//!   (`SECCOMP_IOCTL_NOTIF_ADDFD`) or the call fails with `EACCES`. What is checked is the file
//!   actually opened, so a symbolic link or a swap during the resolution changes nothing;
//! - an open that may write (write access, `O_CREAT`, `O_TRUNC`, `O_TMPFILE`) is made with
//!   `openat2(RESOLVE_BENEATH)` from the writable directory holding its parent (a root of a
//!   read-write program, its private temporary directory), or on `/dev/null`, `/dev/zero`,
//!   `/dev/full`: the supervisor is not under Landlock, so it never writes where the caller's
//!   ruleset would refuse. A device other than the harmless ones is refused;
//! - a link or rename is made between the two parents opened once, both writable, neither
//!   name denied, nor the file a link would name (nor anything denied inside a directory a
//!   rename moves): a denied file cannot be given an allowed name;
//! - `/proc/self`, `/proc/thread-self`, `/dev/fd` and `/dev/std*` name the caller, not the
//!   supervisor: they are opened from the `/proc` the supervisor kept, under the caller's pid.

#![allow(unsafe_code)]

use std::ffi::{CStr, CString, OsStr};
use std::io;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use warden_rules::deny::Deny;

use super::spec::FileGuard;

/// Longest path read from the caller, in bytes (`PATH_MAX`).
const PATH_MAX: usize = 4096;

/// Most entries walked below a directory a rename would move; a larger one is refused.
const MAX_MOVED_ENTRIES: usize = 10_000;

/// The devices an open may reach (major 1): null, zero, full, random, urandom.
const SAFE_DEVICES: &[u32] = &[3, 5, 7, 8, 9];

/// The devices a write may reach, by name in `/dev`.
const WRITABLE_DEVICES: &[&[u8]] = &[b"null", b"zero", b"full"];

/// `struct open_how` of openat2(2).
#[repr(C)]
struct OpenHow {
    flags: u64,
    mode: u64,
    resolve: u64,
}

/// How a file call is answered.
pub(crate) enum Answer {
    /// Fail with this errno.
    Errno(i32),
    /// Return 0.
    Done,
    /// Install the descriptor in the caller (with `O_CLOEXEC` when asked) and return its number.
    Fd(OwnedFd, bool),
}

/// What the caller of one notification is.
pub(crate) struct Caller<'a> {
    pub(crate) pid: libc::pid_t,
    pub(crate) args: [u64; 6],
    pub(crate) nr: libc::c_long,
    /// The supervisor's own `/proc`.
    pub(crate) proc_dir: RawFd,
    /// Whether the notification is still pending (the caller waits in this very call).
    pub(crate) valid: &'a dyn Fn() -> bool,
}

/// The deny globs below the roots and where the caller may write.
pub(crate) struct Files {
    roots: Vec<PathBuf>,
    deny: Deny,
    /// The directories the caller may write below, each opened once.
    writable: Vec<(PathBuf, OwnedFd)>,
}

fn errno() -> i32 {
    io::Error::last_os_error()
        .raw_os_error()
        .unwrap_or(libc::EIO)
}

fn owned(fd: libc::c_long) -> Result<OwnedFd, i32> {
    match RawFd::try_from(fd) {
        // SAFETY: a fresh descriptor nothing else owns.
        Ok(fd) if fd >= 0 => Ok(unsafe { OwnedFd::from_raw_fd(fd) }),
        _ => Err(errno()),
    }
}

fn openat(dir: RawFd, path: &CStr, flags: i32, mode: libc::mode_t) -> Result<OwnedFd, i32> {
    // SAFETY: a NUL-terminated path; the call returns a new descriptor or -1.
    let fd = unsafe { libc::openat(dir, path.as_ptr(), flags, mode) };
    owned(fd.into())
}

fn fstat(fd: &OwnedFd) -> Result<libc::stat, i32> {
    // SAFETY: an all-zero `stat` is valid; the call fills it.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is live and sized for the call.
    if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } != 0 {
        return Err(errno());
    }
    Ok(st)
}

fn cstring(bytes: impl Into<Vec<u8>>) -> Result<CString, i32> {
    CString::new(bytes).map_err(|_| libc::EINVAL)
}

/// The name `/proc/self/...` and its aliases stand for, relative to `/proc`, for process `pid`.
pub(crate) fn proc_relative(path: &[u8], pid: libc::pid_t) -> Option<Vec<u8>> {
    let prefixes = [
        (&b"/proc/self"[..], format!("{pid}")),
        (&b"/proc/thread-self"[..], format!("{pid}/task/{pid}")),
        (&b"/dev/fd"[..], format!("{pid}/fd")),
    ];
    for (prefix, to) in prefixes {
        if let Some(rest) = path.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with(b"/"))
        {
            let mut out = to.into_bytes();
            out.extend_from_slice(rest);
            return Some(out);
        }
    }
    let streams = [
        (&b"/dev/stdin"[..], 0),
        (b"/dev/stdout", 1),
        (b"/dev/stderr", 2),
    ];
    streams
        .iter()
        .find(|(name, _)| *name == path)
        .map(|(_, n)| format!("{pid}/fd/{n}").into_bytes())
}

/// A path to open relative to a directory: the caller's (held here) or the supervisor's
/// `/proc`, or none for an absolute path.
struct At {
    dir: Option<OwnedFd>,
    proc: bool,
    path: CString,
}

impl At {
    fn raw(&self, proc_dir: RawFd) -> RawFd {
        if self.proc {
            return proc_dir;
        }
        self.dir.as_ref().map_or(libc::AT_FDCWD, AsRawFd::as_raw_fd)
    }
}

/// `path` split into its parent and last name; trailing slashes dropped.
fn split(path: &[u8]) -> (&[u8], &[u8]) {
    let mut end = path.len();
    while end > 1 && path[end - 1] == b'/' {
        end -= 1;
    }
    let path = &path[..end];
    match path.iter().rposition(|b| *b == b'/') {
        Some(0) => (b"/", &path[1..]),
        Some(i) => (&path[..i], &path[i + 1..]),
        None => (b".", path),
    }
}

impl Files {
    /// The rules for `guard`, the caller writing below `writable` only.
    pub(crate) fn new(guard: &FileGuard, writable: &[PathBuf]) -> Result<Self, String> {
        let deny = Deny::new(&guard.deny)?;
        let mut dirs = Vec::new();
        for dir in writable {
            let path = cstring(dir.as_os_str().as_bytes())
                .map_err(|_| format!("file guard: {}: a NUL in the path", dir.display()))?;
            let fd = openat(
                libc::AT_FDCWD,
                &path,
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                0,
            )
            .map_err(|e| {
                format!(
                    "file guard (opening {}): {}",
                    dir.display(),
                    io::Error::from_raw_os_error(e)
                )
            })?;
            dirs.push((dir.clone(), fd));
        }
        Ok(Self {
            roots: guard.roots.clone(),
            deny,
            writable: dirs,
        })
    }

    /// The answer to one file call.
    pub(crate) fn answer(&self, caller: &Caller<'_>) -> Answer {
        let result = match caller.nr {
            #[cfg(target_arch = "x86_64")]
            libc::SYS_open | libc::SYS_creat => self.open(caller),
            libc::SYS_openat => self.open(caller),
            _ => self.link_or_rename(caller),
        };
        result.unwrap_or_else(Answer::Errno)
    }

    /// Whether the real path `real` (a directory when `dir`) is denied: below a root, not in a
    /// `.git` (kept readable and read-only by the covers), matched by a glob itself or in a
    /// denied directory.
    pub(crate) fn denied(&self, real: &Path, dir: bool) -> bool {
        for root in &self.roots {
            let Ok(rel) = real.strip_prefix(root) else {
                continue;
            };
            let rel = rel.to_string_lossy();
            if rel.is_empty() {
                return false;
            }
            let parts: Vec<&str> = rel.split('/').collect();
            if parts.iter().any(|c| c.eq_ignore_ascii_case(".git")) {
                return false;
            }
            for end in 1..parts.len() {
                if self.deny.dir(&parts[..end].join("/")) {
                    return true;
                }
            }
            return if dir {
                self.deny.dir(&rel)
            } else {
                self.deny.file(&rel)
            };
        }
        false
    }

    /// Whether a name is denied as a file or as a directory.
    fn name_denied(&self, path: &Path) -> bool {
        self.denied(path, false) || self.denied(path, true)
    }

    fn writable(&self, real: &Path) -> Option<&(PathBuf, OwnedFd)> {
        self.writable.iter().find(|(dir, _)| real.starts_with(dir))
    }

    /// Where `path` (bytes of the caller's) is, from directory descriptor `dirfd` of the caller.
    fn at(&self, caller: &Caller<'_>, dirfd: i32, path: &[u8]) -> Result<At, i32> {
        if let Some(rel) = proc_relative(path, caller.pid) {
            return Ok(At {
                dir: None,
                proc: true,
                path: cstring(rel)?,
            });
        }
        let dir = if path.starts_with(b"/") {
            None
        } else if dirfd == libc::AT_FDCWD {
            let cwd = cstring(format!("{}/cwd", caller.pid))?;
            Some(openat(
                caller.proc_dir,
                &cwd,
                libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
                0,
            )?)
        } else {
            Some(caller_fd(caller, dirfd)?)
        };
        Ok(At {
            dir,
            proc: false,
            path: cstring(path)?,
        })
    }

    fn open(&self, caller: &Caller<'_>) -> Result<Answer, i32> {
        let a = caller.args;
        let (dirfd, addr, flags, mode) = match caller.nr {
            #[cfg(target_arch = "x86_64")]
            libc::SYS_open => (libc::AT_FDCWD, a[0], a[1] as i32, a[2]),
            #[cfg(target_arch = "x86_64")]
            libc::SYS_creat => (
                libc::AT_FDCWD,
                a[0],
                libc::O_CREAT | libc::O_WRONLY | libc::O_TRUNC,
                a[1],
            ),
            _ => (a[0] as i32, a[1], a[2] as i32, a[3]),
        };
        let mode = (mode as u32 & 0o7777) as libc::mode_t;
        let path = read_path(caller.pid, addr)?;
        if !(caller.valid)() {
            return Err(libc::EACCES);
        }
        let at = self.at(caller, dirfd, path.as_bytes())?;
        let tmpfile = flags & libc::O_TMPFILE == libc::O_TMPFILE;
        let writes = flags & libc::O_ACCMODE != libc::O_RDONLY
            || flags & (libc::O_CREAT | libc::O_TRUNC) != 0
            || tmpfile;
        let path_only = flags & libc::O_PATH != 0;
        let fd = if writes && !path_only {
            self.open_to_write(caller, &at, flags, mode)?
        } else {
            openat(
                at.raw(caller.proc_dir),
                &at.path,
                flags | libc::O_CLOEXEC | libc::O_NONBLOCK,
                0,
            )?
        };
        let st = fstat(&fd)?;
        let kind = st.st_mode & libc::S_IFMT;
        if !path_only && (kind == libc::S_IFCHR || kind == libc::S_IFBLK) {
            let safe = kind == libc::S_IFCHR
                && libc::major(st.st_rdev) == 1
                && SAFE_DEVICES.contains(&libc::minor(st.st_rdev));
            if !safe {
                return Err(libc::EACCES);
            }
        }
        let real = real_path(caller.proc_dir, &fd)?;
        if self.denied(&real, kind == libc::S_IFDIR) {
            return Err(libc::EACCES);
        }
        if !path_only && flags & libc::O_NONBLOCK == 0 {
            // SAFETY: plain fcntl calls on a descriptor this owns.
            unsafe {
                let now = libc::fcntl(fd.as_raw_fd(), libc::F_GETFL);
                if now >= 0 {
                    libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, now & !libc::O_NONBLOCK);
                }
            }
        }
        Ok(Answer::Fd(fd, flags & libc::O_CLOEXEC != 0))
    }

    /// An open that may write: from the writable directory holding the parent, never beneath
    /// it, or on a writable device.
    fn open_to_write(
        &self,
        caller: &Caller<'_>,
        at: &At,
        flags: i32,
        mode: libc::mode_t,
    ) -> Result<OwnedFd, i32> {
        if at.proc {
            return Err(libc::EACCES);
        }
        let (parent, name) = split(at.path.as_bytes());
        let parent_fd = openat(
            at.raw(caller.proc_dir),
            &cstring(parent)?,
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )?;
        let real_parent = real_path(caller.proc_dir, &parent_fd)?;
        let Some((dir, dir_fd)) = self.writable(&real_parent) else {
            if real_parent == Path::new("/dev") && WRITABLE_DEVICES.contains(&name) {
                return openat(
                    parent_fd.as_raw_fd(),
                    &cstring(name)?,
                    flags | libc::O_CLOEXEC | libc::O_NOFOLLOW,
                    mode,
                );
            }
            return Err(libc::EACCES);
        };
        // Checked by name before the open as well as after it: `O_CREAT`/`O_TRUNC` act at the
        // open, so a denied file must never be created or emptied first.
        if self.denied(&real_parent.join(OsStr::from_bytes(name)), false) {
            return Err(libc::EACCES);
        }
        let mut rel = real_parent
            .strip_prefix(dir)
            .map_err(|_| libc::EACCES)?
            .join(OsStr::from_bytes(name));
        if rel.as_os_str().is_empty() {
            rel = PathBuf::from(".");
        }
        let how = OpenHow {
            flags: (flags | libc::O_CLOEXEC | libc::O_NONBLOCK) as u32 as u64,
            mode: if flags & libc::O_CREAT != 0 || flags & libc::O_TMPFILE == libc::O_TMPFILE {
                u64::from(mode)
            } else {
                0
            },
            resolve: libc::RESOLVE_BENEATH | libc::RESOLVE_NO_MAGICLINKS,
        };
        let rel = cstring(rel.as_os_str().as_bytes())?;
        // SAFETY: a NUL-terminated path and a live `open_how` of the size given.
        let fd = unsafe {
            libc::syscall(
                libc::SYS_openat2,
                dir_fd.as_raw_fd(),
                rel.as_ptr(),
                &raw const how,
                size_of::<OpenHow>(),
            )
        };
        owned(fd).map_err(|e| if e == libc::EXDEV { libc::EACCES } else { e })
    }

    /// The parent of `path` (opened once), its real path and the last name.
    fn parent(
        &self,
        caller: &Caller<'_>,
        dirfd: i32,
        path: &[u8],
    ) -> Result<(OwnedFd, PathBuf, CString), i32> {
        if path.is_empty() {
            return Err(libc::ENOENT);
        }
        let (parent, name) = split(path);
        let at = self.at(caller, dirfd, parent)?;
        let fd = openat(
            at.raw(caller.proc_dir),
            &at.path,
            libc::O_PATH | libc::O_DIRECTORY | libc::O_CLOEXEC,
            0,
        )?;
        let real = real_path(caller.proc_dir, &fd)?;
        Ok((fd, real, cstring(name)?))
    }

    fn link_or_rename(&self, caller: &Caller<'_>) -> Result<Answer, i32> {
        let a = caller.args;
        let cwd = libc::AT_FDCWD;
        let (old_dir, old, new_dir, new, flags, link) = match caller.nr {
            #[cfg(target_arch = "x86_64")]
            libc::SYS_link => (cwd, a[0], cwd, a[1], 0, true),
            #[cfg(target_arch = "x86_64")]
            libc::SYS_rename => (cwd, a[0], cwd, a[1], 0, false),
            libc::SYS_linkat => (a[0] as i32, a[1], a[2] as i32, a[3], a[4] as i32, true),
            libc::SYS_renameat => (a[0] as i32, a[1], a[2] as i32, a[3], 0, false),
            libc::SYS_renameat2 => (a[0] as i32, a[1], a[2] as i32, a[3], a[4] as i32, false),
            _ => return Err(libc::ENOSYS),
        };
        let old = read_path(caller.pid, old)?;
        let new = read_path(caller.pid, new)?;
        if !(caller.valid)() {
            return Err(libc::EACCES);
        }
        let (old_fd, old_real, old_name) = self.parent(caller, old_dir, old.as_bytes())?;
        let (new_fd, new_real, new_name) = self.parent(caller, new_dir, new.as_bytes())?;
        if self.writable(&old_real).is_none() || self.writable(&new_real).is_none() {
            return Err(libc::EACCES);
        }
        let old_path = old_real.join(OsStr::from_bytes(old_name.as_bytes()));
        let new_path = new_real.join(OsStr::from_bytes(new_name.as_bytes()));
        if self.name_denied(&old_path) || self.name_denied(&new_path) {
            return Err(libc::EACCES);
        }
        let rc = if link {
            let follow = flags & libc::AT_SYMLINK_FOLLOW != 0;
            if flags & !libc::AT_SYMLINK_FOLLOW != 0 {
                return Err(libc::EINVAL);
            }
            let nofollow = if follow { 0 } else { libc::O_NOFOLLOW };
            let source = openat(
                old_fd.as_raw_fd(),
                &old_name,
                libc::O_PATH | libc::O_CLOEXEC | nofollow,
                0,
            )?;
            let st = fstat(&source)?;
            let kind = st.st_mode & libc::S_IFMT;
            if self.denied(&real_path(caller.proc_dir, &source)?, kind == libc::S_IFDIR) {
                return Err(libc::EACCES);
            }
            if kind == libc::S_IFLNK {
                // SAFETY: NUL-terminated names relative to directory descriptors this owns.
                unsafe {
                    libc::linkat(
                        old_fd.as_raw_fd(),
                        old_name.as_ptr(),
                        new_fd.as_raw_fd(),
                        new_name.as_ptr(),
                        0,
                    )
                }
            } else {
                // The file opened and checked, by its descriptor.
                let by_fd = cstring(format!("self/fd/{}", source.as_raw_fd()))?;
                // SAFETY: as above.
                unsafe {
                    libc::linkat(
                        caller.proc_dir,
                        by_fd.as_ptr(),
                        new_fd.as_raw_fd(),
                        new_name.as_ptr(),
                        libc::AT_SYMLINK_FOLLOW,
                    )
                }
            }
        } else {
            let exchange = flags & libc::RENAME_EXCHANGE as i32 != 0;
            let mut moved = vec![(&old_fd, &old_name, &old_path)];
            if exchange {
                moved.push((&new_fd, &new_name, &new_path));
            }
            for (dir, name, path) in moved {
                if let Ok(fd) = openat(
                    dir.as_raw_fd(),
                    name,
                    libc::O_PATH | libc::O_NOFOLLOW | libc::O_CLOEXEC,
                    0,
                ) && fstat(&fd).is_ok_and(|st| st.st_mode & libc::S_IFMT == libc::S_IFDIR)
                    && self.holds_denied(path)
                {
                    return Err(libc::EACCES);
                }
            }
            // SAFETY: NUL-terminated names relative to directory descriptors this owns.
            unsafe {
                libc::syscall(
                    libc::SYS_renameat2,
                    old_fd.as_raw_fd(),
                    old_name.as_ptr(),
                    new_fd.as_raw_fd(),
                    new_name.as_ptr(),
                    flags as libc::c_uint,
                ) as libc::c_int
            }
        };
        if rc != 0 {
            return Err(errno());
        }
        Ok(Answer::Done)
    }

    /// Whether anything below directory `dir` is denied (or too much lies below it to tell).
    fn holds_denied(&self, dir: &Path) -> bool {
        let mut seen = 0usize;
        let mut stack = vec![dir.to_owned()];
        while let Some(dir) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                seen += 1;
                if seen > MAX_MOVED_ENTRIES {
                    return true;
                }
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                let path = entry.path();
                if self.denied(&path, kind.is_dir()) {
                    return true;
                }
                if kind.is_dir() {
                    stack.push(path);
                }
            }
        }
        false
    }
}

/// The caller's descriptor `fd` (`pidfd_getfd`).
fn caller_fd(caller: &Caller<'_>, fd: i32) -> Result<OwnedFd, i32> {
    let pidfd = super::notify::pidfd(caller.pid).ok_or(libc::EACCES)?;
    if !(caller.valid)() {
        return Err(libc::EACCES);
    }
    // SAFETY: pidfd_getfd(2) returns a new descriptor or -1.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_getfd, pidfd.as_raw_fd(), fd, 0) };
    owned(raw).map_err(|e| if e == libc::EBADF { e } else { libc::EACCES })
}

/// The kernel's name of an opened file (`/proc/self/fd/N` of the supervisor), without the
/// ` (deleted)` of a file unlinked since.
fn real_path(proc_dir: RawFd, fd: &OwnedFd) -> Result<PathBuf, i32> {
    let link = cstring(format!("self/fd/{}", fd.as_raw_fd()))?;
    let mut buf = vec![0u8; PATH_MAX + 1];
    // SAFETY: `buf` holds the length given.
    let n =
        unsafe { libc::readlinkat(proc_dir, link.as_ptr(), buf.as_mut_ptr().cast(), buf.len()) };
    let n = usize::try_from(n).map_err(|_| errno())?;
    if n > PATH_MAX {
        return Err(libc::ENAMETOOLONG);
    }
    buf.truncate(n);
    if let Some(kept) = buf.strip_suffix(b" (deleted)") {
        buf = kept.to_vec();
    }
    Ok(PathBuf::from(OsStr::from_bytes(&buf)))
}

/// A NUL-terminated path at `addr` in process `pid`, read a page at most at a time (a path
/// may end just before an unmapped page).
pub(crate) fn read_path(pid: libc::pid_t, addr: u64) -> Result<CString, i32> {
    let mut out = Vec::new();
    let mut at = addr;
    while out.len() <= PATH_MAX {
        let page_left = 4096 - (at % 4096) as usize;
        let mut buf = vec![0u8; page_left.min(PATH_MAX + 1 - out.len())];
        let local = libc::iovec {
            iov_base: buf.as_mut_ptr().cast(),
            iov_len: buf.len(),
        };
        let remote = libc::iovec {
            iov_base: at as usize as *mut libc::c_void,
            iov_len: buf.len(),
        };
        // SAFETY: the local buffer holds the length given; the remote one is only read.
        let n = unsafe { libc::process_vm_readv(pid, &local, 1, &remote, 1, 0) };
        let n = usize::try_from(n)
            .ok()
            .filter(|n| *n > 0)
            .ok_or(libc::EFAULT)?;
        let got = &buf[..n];
        if let Some(end) = got.iter().position(|b| *b == 0) {
            out.extend_from_slice(&got[..end]);
            return cstring(out);
        }
        out.extend_from_slice(got);
        at += n as u64;
    }
    Err(libc::ENAMETOOLONG)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn the_callers_own_names_are_opened_under_its_pid() {
        let to = |p: &str| proc_relative(p.as_bytes(), 42).map(|b| String::from_utf8(b).unwrap());
        assert_eq!(to("/proc/self/fd/3").as_deref(), Some("42/fd/3"));
        assert_eq!(to("/proc/self").as_deref(), Some("42"));
        assert_eq!(
            to("/proc/thread-self/comm").as_deref(),
            Some("42/task/42/comm")
        );
        assert_eq!(to("/dev/fd/0").as_deref(), Some("42/fd/0"));
        assert_eq!(to("/dev/stderr").as_deref(), Some("42/fd/2"));
        for other in [
            "/proc/selfish",
            "/proc/1/fd/3",
            "/dev/fdx",
            "/etc/passwd",
            "proc/self",
        ] {
            assert_eq!(to(other), None, "{other}");
        }
    }

    #[test]
    fn a_path_splits_into_its_parent_and_last_name() {
        let parts = |p: &str| {
            let (a, b) = split(p.as_bytes());
            (
                String::from_utf8(a.to_vec()).unwrap(),
                String::from_utf8(b.to_vec()).unwrap(),
            )
        };
        assert_eq!(parts("a/b/c"), ("a/b".into(), "c".into()));
        assert_eq!(parts("/c"), ("/".into(), "c".into()));
        assert_eq!(parts("c"), (".".into(), "c".into()));
        assert_eq!(parts("dir/"), (".".into(), "dir".into()));
        assert_eq!(parts("/"), ("/".into(), "".into()));
    }

    #[test]
    fn denied_names_below_a_root_only_and_never_inside_git() {
        let guard = FileGuard {
            roots: vec![PathBuf::from("/w")],
            deny: vec![".env".into(), "secrets/**".into(), "conf/key.txt".into()],
        };
        let files = Files::new(&guard, &[]).unwrap();
        let denied = |p: &str, dir: bool| files.denied(Path::new(p), dir);
        assert!(denied("/w/.env", false));
        assert!(denied("/w/sub/.ENV", false));
        assert!(denied("/w/secrets/a.txt", false));
        assert!(denied("/w/secrets", true));
        assert!(denied("/w/conf/key.txt", false));
        assert!(!denied("/w/conf/other.txt", false));
        assert!(!denied("/w/notes.txt", false));
        assert!(!denied("/w", true));
        assert!(!denied("/elsewhere/.env", false));
        assert!(!denied("/w/.git/config", false));
        assert!(!denied("/w2/.env", false));
    }
}
