//! One run of a confined program that reads its input and exits (a command hook): the
//! launcher started with the spec line and the input on its standard input, its output and
//! errors read under a cap, the whole process group killed at the deadline — and once it has
//! exited, so that nothing it left behind outlives it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use super::LAUNCHER_SUBCOMMAND;
use super::child::{End, kill_group, spawn_reader};
use super::confined::{Grants, LaunchContext, confine};

/// The most of a program's standard output, and of its standard error, that is kept.
pub const MAX_OUTPUT_BYTES: usize = 1 << 20;

/// How a run ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ran {
    /// It exited: its exit code (`None` when a signal ended it, then `signal`), what it wrote.
    Exited {
        /// Exit code.
        code: Option<i32>,
        /// The signal that ended it.
        signal: Option<i32>,
        /// Its standard output (lossy UTF-8, capped).
        stdout: String,
        /// Its standard error (lossy UTF-8, capped).
        stderr: String,
        /// Either output was longer than the cap.
        truncated: bool,
    },
    /// Killed at the deadline.
    TimedOut,
}

/// Run `argv` confined as `grants` say, `input` on its standard input, for at most `timeout`.
/// `Err` when it could not be started at all.
pub fn run_once(
    grants: &Grants<'_>,
    argv: &[String],
    context: &LaunchContext,
    input: &[u8],
    timeout: Duration,
) -> Result<Ran, String> {
    let tmp = private_tmp()?;
    let result = run_in(grants, argv, context, input, timeout, tmp.path());
    drop(tmp);
    result
}

fn run_in(
    grants: &Grants<'_>,
    argv: &[String],
    context: &LaunchContext,
    input: &[u8],
    timeout: Duration,
    tmp: &Path,
) -> Result<Ran, String> {
    let confined = confine(grants, argv, context, tmp)?;
    let mut stdin_bytes = confined.spec_line()?;
    stdin_bytes.extend_from_slice(input);
    let (out_read, out_write) = std::io::pipe().map_err(|e| format!("a pipe: {e}"))?;
    let (err_read, err_write) = std::io::pipe().map_err(|e| format!("a pipe: {e}"))?;
    let mut command = Command::new(&context.launcher);
    command
        .arg(LAUNCHER_SUBCOMMAND)
        .current_dir(&confined.cwd)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(out_write)
        .stderr(err_write);
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command
        .spawn()
        .map_err(|e| format!("starting {}: {e}", context.launcher.display()))?;
    // The parent's ends of the write sides are closed with `command`: only the child's remain.
    drop(command);
    let stdout = spawn_reader(out_read, MAX_OUTPUT_BYTES);
    let stderr = spawn_reader(err_read, MAX_OUTPUT_BYTES);
    if let Some(mut pipe) = child.stdin.take() {
        // Written from a thread: a program that does not read its input must not block us
        // past the deadline (the write ends when the group is killed).
        std::thread::spawn(move || {
            let _ = pipe.write_all(&stdin_bytes);
        });
    }
    let end = wait_blocking(child, timeout);
    // The group is dead: the readers see the end of their pipes at once.
    let collect = |rx: std::sync::mpsc::Receiver<super::child::Captured>| {
        rx.recv_timeout(Duration::from_secs(5))
            .map(|c| {
                let truncated = c.total > c.bytes.len() as u64;
                (String::from_utf8_lossy(&c.bytes).into_owned(), truncated)
            })
            .unwrap_or_default()
    };
    let (out, out_cut) = collect(stdout);
    let (err, err_cut) = collect(stderr);
    drop(confined);
    Ok(match end {
        End::Exited(code, signal) => Ran::Exited {
            code,
            signal,
            stdout: out,
            stderr: err,
            truncated: out_cut || err_cut,
        },
        End::Deadline | End::Cancelled => Ran::TimedOut,
        End::WaitFailed(why) => return Err(format!("waiting for it: {why}")),
    })
}

/// Wait for `child` on a thread of its own (its exit is seen at once, not at the next poll:
/// a hook's whole run is on the turn's path), for at most `timeout`; its process group is
/// killed in every case once it is done.
fn wait_blocking(mut child: std::process::Child, timeout: Duration) -> End {
    use std::os::unix::process::ExitStatusExt;
    let pgid = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait());
    });
    let end = match rx.recv_timeout(timeout) {
        Ok(Ok(status)) => End::Exited(status.code(), status.signal()),
        Ok(Err(err)) => End::WaitFailed(err.to_string()),
        Err(_) => End::Deadline,
    };
    kill_group(pgid);
    if matches!(end, End::Deadline) {
        // Reaped by the waiting thread once the kill lands.
        let _ = rx.recv_timeout(Duration::from_secs(5));
    }
    end
}

/// A private temporary directory, removed when dropped.
struct Tmp(std::path::PathBuf);

impl Tmp {
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Tmp {
    fn drop(&mut self) {
        super::confined::remove_tmp(&self.0);
    }
}

fn private_tmp() -> Result<Tmp, String> {
    super::confined::private_tmp("hook").map(Tmp)
}
