use super::*;

/// Whether `rc` is a failed system call.
fn failed(rc: libc::c_long) -> bool {
    rc < 0
}

/// The first layer alone (no Landlock, no seccomp filter, every capability of the new user
/// namespace still held): once [`lock_mounts`] ran, a read-only bind cannot be made writable
/// (remount or `mount_setattr`), a cover cannot be unmounted and the tree cannot be cloned
/// without its covers. Run in a forked child; a kernel without user namespaces prints SKIP.
#[test]
fn locked_mounts_hold_against_every_capability_of_the_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let ro = root.join("ro");
    let secret = root.join("secret");
    std::fs::create_dir(&ro).unwrap();
    std::fs::write(&secret, "SECRET").unwrap();
    // SAFETY: the child makes system calls and small allocations (the C library's allocator
    // is usable after fork), then leaves with `_exit`.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0);
    if pid == 0 {
        let code = (|| -> i32 {
            if enter_user().and_then(|()| enter_mount()).is_err() {
                return 77;
            }
            let set_up = mount(
                None,
                Path::new("/"),
                None,
                libc::MS_REC | libc::MS_PRIVATE,
                None,
            )
            .and_then(|()| hide(&secret))
            .and_then(|()| read_only(&ro))
            .and_then(|()| lock_mounts());
            if set_up.is_err() {
                return 10;
            }
            if mount(None, &ro, None, libc::MS_REMOUNT | libc::MS_BIND, None).is_ok() {
                return 11;
            }
            let (Ok(ro_c), Ok(secret_c), Ok(root_c)) =
                (c_path(&ro), c_path(&secret), c_path(&root))
            else {
                return 12;
            };
            // struct mount_attr { attr_set, attr_clr, propagation, userns_fd }: clear RDONLY.
            let attr: [u64; 4] = [0, 1, 0, 0];
            // SAFETY: plain system calls with NUL-terminated paths and a live structure.
            unsafe {
                if !failed(libc::syscall(
                    libc::SYS_mount_setattr,
                    libc::AT_FDCWD,
                    ro_c.as_ptr(),
                    0,
                    attr.as_ptr(),
                    32usize,
                )) {
                    return 13;
                }
                if !failed(libc::syscall(
                    libc::SYS_umount2,
                    secret_c.as_ptr(),
                    libc::MNT_DETACH,
                )) {
                    return 14;
                }
                // open_tree(OPEN_TREE_CLONE), without AT_RECURSIVE: a copy without the covers.
                if !failed(libc::syscall(
                    libc::SYS_open_tree,
                    libc::AT_FDCWD,
                    root_c.as_ptr(),
                    1 | libc::O_CLOEXEC,
                )) {
                    return 15;
                }
            }
            if std::fs::write(ro.join("planted"), "x").is_ok() {
                return 16;
            }
            match std::fs::read_to_string(&secret) {
                Ok(text) if text.is_empty() => 0,
                _ => 17,
            }
        })();
        // SAFETY: leaving the forked child without running the parent's destructors.
        unsafe { libc::_exit(code) };
    }
    let mut status = 0;
    // SAFETY: waiting for the child just forked.
    unsafe { libc::waitpid(pid, &mut status, 0) };
    assert!(libc::WIFEXITED(status));
    match libc::WEXITSTATUS(status) {
        77 => eprintln!(
            "SKIP locked_mounts_hold_against_every_capability_of_the_namespace: no user namespaces here"
        ),
        code => assert_eq!(code, 0, "a locked mount gave way (step {code})"),
    }
    assert!(!ro.join("planted").exists());
}
