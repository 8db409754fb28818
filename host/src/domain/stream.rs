//! What a front end is told while the model answers: [`StreamEvent`]s, as they arrive.

/// Something that arrived while a request runs, reported to the caller as it happens.
///
/// Streamed answers report text and tool calls piece by piece; non-streamed answers report
/// each text and each tool call once, whole. `Retrying` and `Waiting` are informational and
/// are only ever sent before any answer content.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum StreamEvent {
    /// A piece of answer text.
    TextDelta(String),
    /// The model started a tool call.
    ToolCallStarted {
        /// Call id.
        id: String,
        /// Tool name.
        name: String,
    },
    /// A piece of a tool call's arguments (partial JSON text).
    ToolCallArgumentsDelta {
        /// Call id.
        id: String,
        /// The piece.
        delta: String,
    },
    /// The previous attempt failed with a retryable error; the request is sent again after
    /// `delay`.
    Retrying {
        /// Retry number, from 1.
        attempt: u32,
        /// Wait before the retry.
        delay: std::time::Duration,
        /// What failed.
        reason: String,
    },
    /// An attempt of the request starts: a front end may count down the wait budget.
    Waiting {
        /// Provider name (`openai`).
        provider: &'static str,
        /// Attempt number, from 1.
        attempt: u32,
        /// Most attempts the retry policy allows.
        attempts: u32,
        /// What is left of the request's wait budget (`model.max_wait_s`) as the attempt starts.
        left: std::time::Duration,
    },
}

impl StreamEvent {
    /// True for events carrying answer content (text or tool calls).
    pub fn is_content(&self) -> bool {
        match self {
            Self::TextDelta(_)
            | Self::ToolCallStarted { .. }
            | Self::ToolCallArgumentsDelta { .. } => true,
            Self::Retrying { .. } | Self::Waiting { .. } => false,
        }
    }
}
