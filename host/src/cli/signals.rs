//! Signal dispositions the command line sets before doing anything.

/// Makes a write past the file-size limit (`ulimit -f`, `RLIMIT_FSIZE`) fail with an error
/// (`EFBIG`) instead of killing the process with `SIGXFSZ`: a full history then ends the turn
/// with one clear error, like a full disk, and the commit in progress is rolled back.
#[cfg(unix)]
#[allow(unsafe_code)]
pub(crate) fn ignore_file_size_signal() {
    // SAFETY: installs the `SIG_IGN` disposition (no handler code runs), before any thread
    // that could race on dispositions is started.
    unsafe {
        libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
    }
}

/// No file-size signal outside Unix.
#[cfg(not(unix))]
pub(crate) fn ignore_file_size_signal() {}
