//! The seccomp filter of one sandboxed command, installed by its PID 1 right before `exec`
//! (after Landlock, which has set `no_new_privs`):
//!
//! - a system call of another architecture (32-bit x86 on x86_64) or an x32 call kills the
//!   process: the rules below name the native numbers only;
//! - the mount API ([`MOUNT_CALLS`]: `mount`, `umount2`, `pivot_root`, `open_tree`,
//!   `open_tree_attr`, `move_mount`, `mount_setattr`, `fsopen`, `fsconfig`, `fsmount`,
//!   `fspick`) fails with `EPERM`: the mounts are locked already
//!   ([`lock_mounts`](super::namespaces::lock_mounts)) and the capabilities gone
//!   ([`caps`](super::caps)), this is the third layer;
//! - the keyring calls ([`KEY_CALLS`]: `add_key`, `request_key`, `keyctl`) fail with `EPERM`:
//!   the person's session keyring, inherited by every process, stays out of reach, and so do
//!   their user keyring and every key whose permissions would let any process of their uid
//!   read it (a fresh session keyring would hide only the first);
//! - `io_uring_setup` fails with `ENOSYS` (a ring's `connect` would not pass through here);
//! - `socket` and `socketpair` of `AF_UNIX` datagram sockets fail with `EACCES` (a datagram
//!   `sendto` names its destination without any `connect`);
//! - `ioctl` `TIOCSTI` and `TIOCLINUX` fail with `EPERM` (no keystrokes pushed into a
//!   terminal);
//! - every `connect` waits for the launcher's parent half ([`notify`](super::notify)), which
//!   answers it by connecting on the command's behalf, or refuses it;
//! - for a program granted the workspace (`files`), every `open`, `openat`, `creat`, `link`,
//!   `linkat`, `rename`, `renameat` and `renameat2` waits for the parent half too, which makes
//!   the call itself and hands over the descriptor ([`files`](super::files)); `openat2` fails
//!   with `ENOSYS` (callers fall back to `openat`) and `open_by_handle_at` with `EPERM`.
//!
//! The program is written by [`program`] with a small assembler ([`Asm`]) whose jumps are
//! resolved from labels; the tests run it through an interpreter of the few instructions used.

#![allow(unsafe_code)]

use std::io;
use std::os::fd::{FromRawFd, OwnedFd};

/// The architecture tag the kernel gives this build's system calls.
#[cfg(target_arch = "x86_64")]
pub(crate) const NATIVE_ARCH: u32 = 0xc000_003e;
#[cfg(target_arch = "aarch64")]
pub(crate) const NATIVE_ARCH: u32 = 0xc000_00b7;

/// Numbers at and above this are x32 system calls (x86_64 only).
#[cfg(target_arch = "x86_64")]
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

// Offsets in `struct seccomp_data`: the call number, the architecture, then six 64-bit
// arguments (read by their low 32 bits: every argument tested is an `int`).
const OFF_NR: u32 = 0;
const OFF_ARCH: u32 = 4;
const fn arg_low(index: u32) -> u32 {
    16 + 8 * index
}

// Classic BPF opcodes (linux/filter.h): class | size or operation | source.
/// `BPF_LD | BPF_W | BPF_ABS`: load a 32-bit word of the call's data.
const LD_W_ABS: u16 = 0x20;
/// `BPF_JMP | BPF_JEQ | BPF_K`.
const JMP_JEQ_K: u16 = 0x15;
/// `BPF_JMP | BPF_JGE | BPF_K`.
const JMP_JGE_K: u16 = 0x35;
/// `BPF_ALU | BPF_AND | BPF_K`.
const ALU_AND_K: u16 = 0x54;
/// `BPF_RET | BPF_K`.
const RET_K: u16 = 0x06;

/// The mask of a socket type without its `SOCK_NONBLOCK`/`SOCK_CLOEXEC` flags.
const SOCK_TYPE_MASK: u32 = 0xf;

/// What the filter returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Verdict {
    Allow,
    KillProcess,
    Errno(i32),
    Notify,
}

impl Verdict {
    fn code(self) -> u32 {
        match self {
            Self::Allow => libc::SECCOMP_RET_ALLOW,
            Self::KillProcess => libc::SECCOMP_RET_KILL_PROCESS,
            Self::Errno(errno) => libc::SECCOMP_RET_ERRNO | (errno as u32 & 0xffff),
            Self::Notify => libc::SECCOMP_RET_USER_NOTIF,
        }
    }
}

/// A label of the program being assembled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Label(usize);

enum Op {
    Stmt(u16, u32),
    /// A conditional jump: to the first label when true, else to the second.
    Jump(u16, u32, Label, Label),
    /// A label's place; no instruction.
    Here(Label),
}

/// A classic BPF assembler: instructions and labels, resolved into relative jumps.
#[derive(Default)]
struct Asm {
    ops: Vec<Op>,
    labels: usize,
}

impl Asm {
    fn label(&mut self) -> Label {
        self.labels += 1;
        Label(self.labels - 1)
    }
    fn here(&mut self, label: Label) {
        self.ops.push(Op::Here(label));
    }
    fn load(&mut self, offset: u32) {
        self.ops.push(Op::Stmt(LD_W_ABS, offset));
    }
    fn and(&mut self, mask: u32) {
        self.ops.push(Op::Stmt(ALU_AND_K, mask));
    }
    fn ret(&mut self, verdict: Verdict) {
        self.ops.push(Op::Stmt(RET_K, verdict.code()));
    }
    fn jeq(&mut self, k: u32, yes: Label, no: Label) {
        self.ops.push(Op::Jump(JMP_JEQ_K, k, yes, no));
    }
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    fn jge(&mut self, k: u32, yes: Label, no: Label) {
        self.ops.push(Op::Jump(JMP_JGE_K, k, yes, no));
    }

    /// The instructions, each jump resolved; an error for a label never placed, a jump
    /// backwards or one too far for an 8-bit offset.
    fn finish(self) -> Result<Vec<libc::sock_filter>, String> {
        let mut at = vec![None; self.labels];
        let mut index = 0usize;
        for op in &self.ops {
            match op {
                Op::Here(label) => at[label.0] = Some(index),
                _ => index += 1,
            }
        }
        let mut out = Vec::with_capacity(index);
        for op in &self.ops {
            let here = out.len();
            let offset = |label: &Label| -> Result<u8, String> {
                let target = at[label.0].ok_or("seccomp program: a label never placed")?;
                target
                    .checked_sub(here + 1)
                    .and_then(|d| u8::try_from(d).ok())
                    .ok_or_else(|| "seccomp program: a jump out of range".to_owned())
            };
            match op {
                Op::Here(_) => {}
                Op::Stmt(code, k) => out.push(libc::sock_filter {
                    code: *code,
                    jt: 0,
                    jf: 0,
                    k: *k,
                }),
                Op::Jump(code, k, yes, no) => out.push(libc::sock_filter {
                    code: *code,
                    jt: offset(yes)?,
                    jf: offset(no)?,
                    k: *k,
                }),
            }
        }
        Ok(out)
    }
}

/// `open_tree_attr` (Linux 6.15; one number on every architecture).
const SYS_OPEN_TREE_ATTR: libc::c_long = 467;

/// The mount API, refused with `EPERM`.
pub(crate) const MOUNT_CALLS: &[libc::c_long] = &[
    libc::SYS_mount,
    libc::SYS_umount2,
    libc::SYS_pivot_root,
    libc::SYS_open_tree,
    SYS_OPEN_TREE_ATTR,
    libc::SYS_move_mount,
    libc::SYS_mount_setattr,
    libc::SYS_fsopen,
    libc::SYS_fsconfig,
    libc::SYS_fsmount,
    libc::SYS_fspick,
];

/// The keyring calls, refused with `EPERM`.
pub(crate) const KEY_CALLS: &[libc::c_long] =
    &[libc::SYS_add_key, libc::SYS_request_key, libc::SYS_keyctl];

/// The calls that name a file and wait for the parent half when the program is granted the
/// workspace.
pub(crate) const FILE_CALLS: &[libc::c_long] = &[
    #[cfg(target_arch = "x86_64")]
    libc::SYS_open,
    libc::SYS_openat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_creat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_link,
    libc::SYS_linkat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_renameat2,
];

/// The calls that may write a name, seen (and let through) by the parent half of a command
/// whose refusals are reported; `open` and `openat` only when asked to write.
pub(crate) const WRITE_CALLS: &[libc::c_long] = &[
    #[cfg(target_arch = "x86_64")]
    libc::SYS_creat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_mkdir,
    libc::SYS_mkdirat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_unlink,
    libc::SYS_unlinkat,
    #[cfg(target_arch = "x86_64")]
    libc::SYS_rename,
    libc::SYS_renameat,
    libc::SYS_renameat2,
];

/// The flags that make an `open` a write.
const WRITE_FLAGS: u32 = (libc::O_WRONLY | libc::O_RDWR | libc::O_CREAT | libc::O_TRUNC) as u32;

/// The filter's program (see the module's documentation); `files`: the file calls wait for
/// the parent half too.
#[cfg(test)]
pub(crate) fn program(files: bool) -> Result<Vec<libc::sock_filter>, String> {
    program_with(files, false)
}

/// [`program`], and with `observe` (and not `files`) the calls that may write a name wait
/// for the parent half, which only looks at them ([`WRITE_CALLS`], and `open`/`openat` with
/// a write flag).
pub(crate) fn program_with(files: bool, observe: bool) -> Result<Vec<libc::sock_filter>, String> {
    let mut asm = Asm::default();
    let [
        native,
        kill,
        allow,
        notify,
        socket,
        ioctl,
        no_ring,
        no_dgram,
        no_tty,
        no_call,
        no_perm,
    ] = std::array::from_fn(|_| asm.label());
    let nr = |n: libc::c_long| n as u32;

    asm.load(OFF_ARCH);
    asm.jeq(NATIVE_ARCH, native, kill);
    asm.here(native);
    asm.load(OFF_NR);
    #[cfg(target_arch = "x86_64")]
    {
        let native_nr = asm.label();
        asm.jge(X32_SYSCALL_BIT, kill, native_nr);
        asm.here(native_nr);
    }
    for call in MOUNT_CALLS.iter().chain(KEY_CALLS) {
        let next = asm.label();
        asm.jeq(nr(*call), no_perm, next);
        asm.here(next);
    }
    for (call, target) in [
        (libc::SYS_connect, notify),
        (libc::SYS_socket, socket),
        (libc::SYS_socketpair, socket),
        (libc::SYS_ioctl, ioctl),
        (libc::SYS_io_uring_setup, no_ring),
    ] {
        let next = asm.label();
        asm.jeq(nr(call), target, next);
        asm.here(next);
    }
    if files {
        let calls = FILE_CALLS.iter().map(|call| (*call, notify));
        let refused = [
            (libc::SYS_openat2, no_call),
            (libc::SYS_open_by_handle_at, no_perm),
        ];
        for (call, target) in calls.chain(refused) {
            let next = asm.label();
            asm.jeq(nr(call), target, next);
            asm.here(next);
        }
    }
    let open_flags = asm.label();
    #[cfg(target_arch = "x86_64")]
    let old_open_flags = asm.label();
    if observe && !files {
        let calls = WRITE_CALLS.iter().map(|call| (*call, notify));
        #[cfg(target_arch = "x86_64")]
        let opens = [
            (libc::SYS_openat, open_flags),
            (libc::SYS_open, old_open_flags),
        ];
        #[cfg(not(target_arch = "x86_64"))]
        let opens = [(libc::SYS_openat, open_flags)];
        for (call, target) in calls.chain(opens) {
            let next = asm.label();
            asm.jeq(nr(call), target, next);
            asm.here(next);
        }
    }
    asm.ret(Verdict::Allow);

    // openat(dirfd, path, flags, mode) and open(path, flags, mode): a write waits.
    if observe && !files {
        asm.here(open_flags);
        asm.load(arg_low(2));
        asm.and(WRITE_FLAGS);
        asm.jeq(0, allow, notify);
        #[cfg(target_arch = "x86_64")]
        {
            asm.here(old_open_flags);
            asm.load(arg_low(1));
            asm.and(WRITE_FLAGS);
            asm.jeq(0, allow, notify);
        }
    }

    // socket(domain, type, protocol) and socketpair(domain, type, protocol, sv).
    asm.here(socket);
    let unix = asm.label();
    asm.load(arg_low(0));
    asm.jeq(libc::AF_UNIX as u32, unix, allow);
    asm.here(unix);
    asm.load(arg_low(1));
    asm.and(SOCK_TYPE_MASK);
    asm.jeq(libc::SOCK_DGRAM as u32, no_dgram, allow);

    // ioctl(fd, request, ...): the request is an unsigned int.
    asm.here(ioctl);
    let not_sti = asm.label();
    asm.load(arg_low(1));
    asm.jeq(libc::TIOCSTI as u32, no_tty, not_sti);
    asm.here(not_sti);
    asm.jeq(libc::TIOCLINUX as u32, no_tty, allow);

    asm.here(allow);
    asm.ret(Verdict::Allow);
    asm.here(kill);
    asm.ret(Verdict::KillProcess);
    asm.here(notify);
    asm.ret(Verdict::Notify);
    asm.here(no_ring);
    asm.ret(Verdict::Errno(libc::ENOSYS));
    asm.here(no_dgram);
    asm.ret(Verdict::Errno(libc::EACCES));
    asm.here(no_tty);
    asm.ret(Verdict::Errno(libc::EPERM));
    asm.here(no_call);
    asm.ret(Verdict::Errno(libc::ENOSYS));
    asm.here(no_perm);
    asm.ret(Verdict::Errno(libc::EPERM));
    asm.finish()
}

fn seccomp(op: libc::c_uint, flags: libc::c_ulong, arg: *const libc::c_void) -> libc::c_long {
    // SAFETY: seccomp(2) reads `arg` as the structure `op` names; every caller passes one.
    unsafe { libc::syscall(libc::SYS_seccomp, op, flags, arg) }
}

/// Install the filter on this process (`files`: with the file calls); the listener
/// descriptor of its notifications. Once installed, a `connect` by this process waits until
/// the listener answers.
pub(crate) fn install(files: bool, observe: bool) -> Result<OwnedFd, String> {
    let mut filter = program_with(files, observe)?;
    let prog = libc::sock_fprog {
        len: u16::try_from(filter.len()).map_err(|_| "seccomp program: too long".to_owned())?,
        filter: filter.as_mut_ptr(),
    };
    // SAFETY: a plain prctl; the filter may only be installed with it set (or CAP_SYS_ADMIN).
    if unsafe { libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) } != 0 {
        return Err(format!(
            "seccomp (no_new_privs): {}",
            io::Error::last_os_error()
        ));
    }
    let listener = libc::SECCOMP_FILTER_FLAG_NEW_LISTENER;
    // Once a notification is received, only a fatal signal interrupts the waiting call (Linux
    // 5.19), so that a signal never makes a connect already done on the command's behalf
    // restart; older kernels refuse the flag and get the plain wait.
    let mut fd = seccomp(
        libc::SECCOMP_SET_MODE_FILTER,
        listener | libc::SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV,
        (&raw const prog).cast(),
    );
    if fd < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::EINVAL) {
        fd = seccomp(
            libc::SECCOMP_SET_MODE_FILTER,
            listener,
            (&raw const prog).cast(),
        );
    }
    if fd < 0 {
        return Err(format!(
            "seccomp (installing the filter with a notification listener): {}",
            io::Error::last_os_error()
        ));
    }
    let fd = i32::try_from(fd).map_err(|_| "seccomp: a listener out of range".to_owned())?;
    // SAFETY: a fresh descriptor nothing else owns.
    Ok(unsafe { OwnedFd::from_raw_fd(fd) })
}

/// Whether this kernel offers what the filter needs (user notification), without installing
/// anything; the reason when not.
pub(crate) fn check() -> Result<String, String> {
    let action = libc::SECCOMP_RET_USER_NOTIF;
    if seccomp(
        libc::SECCOMP_GET_ACTION_AVAIL,
        0,
        (&raw const action).cast(),
    ) != 0
    {
        return Err(format!(
            "seccomp user notification is unavailable (Linux 5.0 or later): {}",
            io::Error::last_os_error()
        ));
    }
    let mut sizes = libc::seccomp_notif_sizes {
        seccomp_notif: 0,
        seccomp_notif_resp: 0,
        seccomp_data: 0,
    };
    if seccomp(libc::SECCOMP_GET_NOTIF_SIZES, 0, (&raw mut sizes).cast()) != 0 {
        return Err(format!(
            "seccomp notification sizes: {}",
            io::Error::last_os_error()
        ));
    }
    if pidfd_getfd_missing() {
        return Err("pidfd_getfd(2) is unavailable (Linux 5.6 or later)".to_owned());
    }
    Ok("user notification: `connect` answered on the command's behalf".to_owned())
}

/// Whether the kernel lacks `pidfd_getfd` (asked with a descriptor that cannot be valid).
fn pidfd_getfd_missing() -> bool {
    // SAFETY: with a negative descriptor the call only fails.
    let rc = unsafe { libc::syscall(libc::SYS_pidfd_getfd, -1, 0, 0) };
    rc < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ENOSYS)
}

#[cfg(test)]
#[path = "seccomp_tests.rs"]
mod tests;
