//! The error every front-end-neutral step returns: a message for the person and whether it is
//! theirs to fix (a usage or configuration error) or a runtime failure. Each front end maps it
//! onto its own channel: `cli/` an exit code, `acp/` a JSON-RPC error.

use crate::setup::SetupError;

/// Why a front-end step could not be done.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct FrontError {
    /// One line (or a few) for the person.
    pub message: String,
    /// True for a usage or configuration error; false for a runtime failure.
    pub usage: bool,
}

impl FrontError {
    /// A usage or configuration error.
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            usage: true,
        }
    }

    /// A runtime failure.
    pub fn failure(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
            usage: false,
        }
    }
}

impl From<SetupError> for FrontError {
    fn from(err: SetupError) -> Self {
        Self {
            usage: err.is_usage(),
            message: err.to_string(),
        }
    }
}
