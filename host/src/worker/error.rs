//! Errors that end a turn without an answer.

use crate::llm::LlmError;
use crate::store::StoreError;

/// Why a turn could not run to its end.
#[derive(Debug, thiserror::Error)]
pub enum WorkerError {
    /// Writing history or the audit log failed; nothing after the last commit happened.
    #[error("session store: {0}")]
    Store(#[from] StoreError),
    /// The model request failed after its retries.
    #[error("model: {0}")]
    Model(#[from] LlmError),
    /// An interceptor failed at the `compaction` point and its policy is closed; nothing of
    /// the compaction was committed.
    #[error("compaction stopped: plugin {plugin} failed and its policy is closed: {message}")]
    CompactionStopped {
        /// Plugin name.
        plugin: String,
        /// What went wrong.
        message: String,
    },
    /// Undo could not read the session's checkpoints or open the workspace.
    #[error("undo: {0}")]
    Undo(String),
}
