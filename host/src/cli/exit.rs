//! Exit codes and the error type every command returns.

/// Success.
pub const EXIT_OK: u8 = 0;
/// Runtime failure.
pub const EXIT_FAILURE: u8 = 1;
/// Usage or configuration error.
pub const EXIT_USAGE: u8 = 2;
/// The turn was cancelled by an interceptor.
pub const EXIT_CANCELLED: u8 = 3;
/// `warden run` answered, but every write and command the model asked for was denied.
pub const EXIT_ALL_DENIED: u8 = 4;
/// The turn reached a limit (`worker.max_steps`, or the model repeating itself); `continue`
/// resumes it.
pub const EXIT_LIMIT: u8 = 5;

/// A command's failure: the message printed and the exit code.
#[derive(Debug)]
pub struct CliError {
    /// Exit status.
    pub code: u8,
    /// One line (or a few) for the person.
    pub message: String,
}

impl CliError {
    /// A usage or configuration error (exit 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: EXIT_USAGE,
            message: message.into(),
        }
    }

    /// A runtime failure (exit 1).
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            code: EXIT_FAILURE,
            message: message.into(),
        }
    }
}

/// The exit-code table shown by `--help` (and in the README).
pub const EXIT_CODES_HELP: &str = "\
Exit codes:
  0    success
  1    runtime failure (model request failed, plugin failed closed after commit)
  2    usage or configuration error (bad arguments, unknown or ambiguous session, invalid config)
  3    turn cancelled by an interceptor
  4    `run`: every write and command the model asked for was denied
  5    the turn reached a limit (worker.max_steps, or the same call repeating); `continue` resumes it
  130  interrupted (Ctrl-C)";

impl From<crate::front::FrontError> for CliError {
    fn from(err: crate::front::FrontError) -> Self {
        if err.usage {
            Self::usage(err.message)
        } else {
            Self::failure(err.message)
        }
    }
}
