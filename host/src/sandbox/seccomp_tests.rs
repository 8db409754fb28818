use super::*;

/// Run `program` on one call (`arch`, `nr`, the low halves of the arguments) the way the
/// kernel does for the instructions the assembler emits.
fn run(program: &[libc::sock_filter], arch: u32, nr: u32, args: [u32; 6]) -> u32 {
    let mut data = [0u8; 64];
    data[0..4].copy_from_slice(&nr.to_ne_bytes());
    data[4..8].copy_from_slice(&arch.to_ne_bytes());
    for (i, arg) in args.iter().enumerate() {
        let at = 16 + 8 * i;
        data[at..at + 4].copy_from_slice(&arg.to_ne_bytes());
    }
    let mut acc = 0u32;
    let mut pc = 0usize;
    loop {
        let ins = program[pc];
        pc += 1;
        match ins.code {
            LD_W_ABS => {
                let at = ins.k as usize;
                acc = u32::from_ne_bytes(data[at..at + 4].try_into().unwrap());
            }
            ALU_AND_K => acc &= ins.k,
            RET_K => return ins.k,
            JMP_JEQ_K | JMP_JGE_K => {
                let taken = if ins.code == JMP_JEQ_K {
                    acc == ins.k
                } else {
                    acc >= ins.k
                };
                pc += usize::from(if taken { ins.jt } else { ins.jf });
            }
            other => panic!("unexpected opcode {other:#x}"),
        }
    }
}

fn verdict(arch: u32, nr: libc::c_long, args: [u32; 6]) -> u32 {
    run(&program(false).unwrap(), arch, nr as u32, args)
}

#[test]
fn every_connect_waits_for_the_supervisor() {
    assert_eq!(
        verdict(NATIVE_ARCH, libc::SYS_connect, [3, 0, 16, 0, 0, 0]),
        libc::SECCOMP_RET_USER_NOTIF
    );
}

#[test]
fn file_calls_wait_for_the_supervisor_only_when_the_workspace_is_granted() {
    let guarded = program(true).unwrap();
    let plain = program(false).unwrap();
    let ask = |program: &[libc::sock_filter], call: libc::c_long| {
        run(program, NATIVE_ARCH, call as u32, [0; 6])
    };
    for call in FILE_CALLS {
        assert_eq!(ask(&guarded, *call), libc::SECCOMP_RET_USER_NOTIF, "{call}");
        assert_eq!(ask(&plain, *call), libc::SECCOMP_RET_ALLOW, "{call}");
    }
    assert_eq!(
        ask(&guarded, libc::SYS_openat2),
        libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
    );
    assert_eq!(
        ask(&guarded, libc::SYS_open_by_handle_at),
        libc::SECCOMP_RET_ERRNO | libc::EPERM as u32
    );
    for call in [libc::SYS_read, libc::SYS_unlinkat, libc::SYS_mkdirat] {
        assert_eq!(ask(&guarded, call), libc::SECCOMP_RET_ALLOW, "{call}");
    }
    assert_eq!(
        ask(&guarded, libc::SYS_connect),
        libc::SECCOMP_RET_USER_NOTIF
    );
}

#[test]
fn unix_datagram_sockets_are_refused_stream_ones_allowed() {
    let dgram = (libc::SOCK_DGRAM | libc::SOCK_CLOEXEC | libc::SOCK_NONBLOCK) as u32;
    let eacces = libc::SECCOMP_RET_ERRNO | libc::EACCES as u32;
    for call in [libc::SYS_socket, libc::SYS_socketpair] {
        assert_eq!(
            verdict(NATIVE_ARCH, call, [libc::AF_UNIX as u32, dgram, 0, 0, 0, 0]),
            eacces
        );
        for kind in [libc::SOCK_STREAM, libc::SOCK_SEQPACKET] {
            let kind = (kind | libc::SOCK_CLOEXEC) as u32;
            assert_eq!(
                verdict(NATIVE_ARCH, call, [libc::AF_UNIX as u32, kind, 0, 0, 0, 0]),
                libc::SECCOMP_RET_ALLOW
            );
        }
    }
    assert_eq!(
        verdict(
            NATIVE_ARCH,
            libc::SYS_socket,
            [libc::AF_INET as u32, libc::SOCK_DGRAM as u32, 0, 0, 0, 0]
        ),
        libc::SECCOMP_RET_ALLOW
    );
}

#[test]
fn terminal_injection_ioctls_are_refused() {
    let eperm = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    for request in [libc::TIOCSTI, libc::TIOCLINUX] {
        assert_eq!(
            verdict(
                NATIVE_ARCH,
                libc::SYS_ioctl,
                [0, request as u32, 0, 0, 0, 0]
            ),
            eperm
        );
    }
    assert_eq!(
        verdict(
            NATIVE_ARCH,
            libc::SYS_ioctl,
            [0, libc::TIOCGWINSZ as u32, 0, 0, 0, 0]
        ),
        libc::SECCOMP_RET_ALLOW
    );
}

#[test]
fn io_uring_is_refused_and_other_calls_pass() {
    assert_eq!(
        verdict(NATIVE_ARCH, libc::SYS_io_uring_setup, [0; 6]),
        libc::SECCOMP_RET_ERRNO | libc::ENOSYS as u32
    );
    for call in [
        libc::SYS_read,
        libc::SYS_write,
        libc::SYS_execve,
        libc::SYS_bind,
    ] {
        assert_eq!(verdict(NATIVE_ARCH, call, [0; 6]), libc::SECCOMP_RET_ALLOW);
    }
}

#[test]
fn foreign_architectures_are_killed() {
    // 32-bit x86 (int 0x80 on x86_64) and 32-bit ARM.
    for arch in [0x4000_0003u32, 0x4000_0028] {
        assert_eq!(
            verdict(arch, libc::SYS_read, [0; 6]),
            libc::SECCOMP_RET_KILL_PROCESS
        );
    }
}

#[cfg(target_arch = "x86_64")]
#[test]
fn x32_calls_are_killed() {
    assert_eq!(
        verdict(NATIVE_ARCH, X32_SYSCALL_BIT as libc::c_long + 42, [0; 6]),
        libc::SECCOMP_RET_KILL_PROCESS
    );
}

#[test]
fn the_assembler_refuses_a_label_never_placed() {
    let mut asm = Asm::default();
    let (a, b) = (asm.label(), asm.label());
    asm.jeq(1, a, b);
    asm.here(a);
    assert!(asm.finish().is_err());
}

/// The filter installed for real in a forked child: a refused `ioctl` and `socket` fail with
/// the errno the program names, a plain call still works.
#[test]
fn the_installed_filter_refuses_in_a_child() {
    // SAFETY: the child only makes system calls and exits.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let code = (|| {
            let Ok(listener) = install(false, false) else {
                return 10;
            };
            drop(listener);
            // SAFETY: plain calls on this process.
            unsafe {
                if libc::ioctl(0, libc::TIOCSTI, c"x".as_ptr()) != -1
                    || *libc::__errno_location() != libc::EPERM
                {
                    return 11;
                }
                if libc::socket(libc::AF_UNIX, libc::SOCK_DGRAM, 0) != -1
                    || *libc::__errno_location() != libc::EACCES
                {
                    return 12;
                }
                if libc::socket(libc::AF_UNIX, libc::SOCK_STREAM, 0) < 0 {
                    return 13;
                }
            }
            0
        })();
        // SAFETY: leaving the forked child without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waiting for the child just forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status));
    assert_eq!(libc::WEXITSTATUS(status), 0);
}

#[test]
fn writes_by_name_wait_for_the_supervisor_only_when_observed() {
    let observed = program_with(false, true).unwrap();
    let plain = program(false).unwrap();
    let ask = |program: &[libc::sock_filter], call: libc::c_long, args: [u32; 6]| {
        run(program, NATIVE_ARCH, call as u32, args)
    };
    let write = (libc::O_WRONLY | libc::O_CREAT) as u32;
    assert_eq!(
        ask(&observed, libc::SYS_openat, [0, 0, write, 0, 0, 0]),
        libc::SECCOMP_RET_USER_NOTIF
    );
    assert_eq!(
        ask(
            &observed,
            libc::SYS_openat,
            [0, 0, libc::O_RDONLY as u32, 0, 0, 0]
        ),
        libc::SECCOMP_RET_ALLOW
    );
    for call in WRITE_CALLS {
        assert_eq!(
            ask(&observed, *call, [0; 6]),
            libc::SECCOMP_RET_USER_NOTIF,
            "{call}"
        );
        assert_eq!(
            ask(&plain, *call, [0; 6]),
            libc::SECCOMP_RET_ALLOW,
            "{call}"
        );
    }
    assert_eq!(
        ask(&plain, libc::SYS_openat, [0, 0, write, 0, 0, 0]),
        libc::SECCOMP_RET_ALLOW
    );
    // A guarded program's file calls are answered, not observed.
    let guarded = program_with(true, true).unwrap();
    assert_eq!(
        ask(&guarded, libc::SYS_mkdirat, [0; 6]),
        libc::SECCOMP_RET_ALLOW
    );
}

#[test]
fn the_mount_api_and_the_keyring_calls_are_refused_in_every_program() {
    let refused = libc::SECCOMP_RET_ERRNO | libc::EPERM as u32;
    for (files, observe) in [(false, false), (true, false), (false, true)] {
        let program = program_with(files, observe).unwrap();
        for call in MOUNT_CALLS.iter().chain(KEY_CALLS) {
            assert_eq!(
                run(&program, NATIVE_ARCH, *call as u32, [0; 6]),
                refused,
                "call {call} (files {files}, observe {observe})"
            );
        }
        for call in [libc::SYS_read, libc::SYS_statx, libc::SYS_unshare] {
            assert_ne!(
                run(&program, NATIVE_ARCH, call as u32, [0; 6]),
                refused,
                "call {call}"
            );
        }
    }
    let names = [
        libc::SYS_mount,
        libc::SYS_umount2,
        libc::SYS_pivot_root,
        libc::SYS_open_tree,
        libc::SYS_move_mount,
        libc::SYS_mount_setattr,
        libc::SYS_fsopen,
        libc::SYS_fsconfig,
        libc::SYS_fsmount,
        libc::SYS_fspick,
        libc::SYS_add_key,
        libc::SYS_request_key,
        libc::SYS_keyctl,
    ];
    for call in names {
        assert!(
            MOUNT_CALLS.contains(&call) || KEY_CALLS.contains(&call),
            "{call}"
        );
    }
}
