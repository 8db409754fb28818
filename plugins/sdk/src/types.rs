//! The WIT types of `warden:plugin/types`, re-exported from the enabled world, with helpers.

#[cfg(feature = "hook")]
pub use crate::hook::bindings::warden::plugin::types::*;
#[cfg(feature = "interceptor")]
pub use crate::interceptor::bindings::warden::plugin::types::*;
#[cfg(feature = "resolver")]
pub use crate::resolver::bindings::warden::plugin::types::*;
#[cfg(feature = "tool")]
pub use crate::tool::bindings::warden::plugin::types::*;

// Kept as they were before 0.3.0, so plugin sources compile unchanged: the prompt (lent by the
// host, read on demand), the hook's events (compaction comes to `Hook::on_compaction`), and
// resolver answers with `String` content (sent to the host as bytes).
#[cfg(feature = "hook")]
pub use crate::hook::Event;
#[cfg(feature = "interceptor")]
pub use crate::prompt::SubmittedPrompt;
#[cfg(feature = "resolver")]
pub use crate::resolver::{FileChunk, Resolved};

impl Item {
    /// A system item: context for the model.
    pub fn system(text: impl Into<String>) -> Self {
        Self::System(text.into())
    }

    /// A user item.
    pub fn user(text: impl Into<String>) -> Self {
        Self::User(text.into())
    }

    /// The item's main text.
    pub fn text(&self) -> &str {
        match self {
            Self::User(text) | Self::System(text) => text,
            Self::Assistant(a) => &a.text,
            Self::ToolResult(r) => &r.content,
        }
    }
}
