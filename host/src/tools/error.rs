//! Why a built-in workspace tool did not do what it was asked, as the model reads it.

use std::path::Path;

use crate::confine::Refusal;

/// A refused or failed call of `write_file`, `edit_file`, `grep` or `glob`.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema.
    #[error("invalid arguments for {tool}: {message}")]
    Arguments {
        /// The tool.
        tool: &'static str,
        /// What is wrong.
        message: String,
    },
    /// The path leaves the workspace (`..`, an absolute path elsewhere).
    #[error("`{path}` is outside the workspace; tools reach only the workspace root")]
    Outside {
        /// The path as given.
        path: String,
    },
    /// The real path is refused by the rules (outside, denied, protected): what the model
    /// is told.
    #[error("{0}")]
    Refused(String),
    /// The final name is a symbolic link: never written through.
    #[error(
        "`{path}` is a symbolic link; {tool} never writes through a symlink (write to its target's own path instead)"
    )]
    Symlink {
        /// The tool.
        tool: &'static str,
        /// The path as given.
        path: String,
    },
    /// A file system call failed.
    #[error("{path}: {source}")]
    Io {
        /// The path as given.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// Something else the model should know (not a file, not text, no match, ...).
    #[error("{0}")]
    Other(String),
}

impl ToolError {
    /// `path` (as given) refused for `why`, its real path being `real`.
    pub(crate) fn refused(path: &str, why: Refusal, real: &Path) -> Self {
        tracing::debug!(path, real = %real.display(), "tool path refused: {}", why.reason());
        Self::Refused(refusal_message(path, why, real))
    }

    /// An I/O error on `path`.
    pub(crate) fn io(path: &str, source: std::io::Error) -> Self {
        Self::Io {
            path: path.to_owned(),
            source,
        }
    }
}

fn refusal_message(path: &str, why: Refusal, real: &Path) -> String {
    match why {
        Refusal::Outside => {
            format!("`{path}` is outside the workspace (its real path leaves the workspace root)")
        }
        Refusal::Denied => format!(
            "`{path}` is denied by the deny globs (`fileref.deny`, any `.git`); tools neither read nor write it"
        ),
        Refusal::Protected if is_settings(real) => format!(
            "`{path}` is in `.warden/`, warden's own settings, which tools never write; propose the change to the person instead"
        ),
        Refusal::Protected => format!(
            "`{path}` is in a protected directory (`.git`, `.warden`), which tools never write"
        ),
    }
}

/// Whether the real path lies in a `.warden` directory (the message then says what to do
/// instead).
fn is_settings(real: &Path) -> bool {
    real.components()
        .any(|c| c.as_os_str().eq_ignore_ascii_case(".warden"))
}
