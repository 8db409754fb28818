//! What every interactive front end needs, below them all: the chat (`cli/chat`) keeps the
//! terminal rendering and `acp/` the JSON-RPC mapping, and both take from here driving a turn's
//! worker (assembly, modes, trust, sessions to continue, a session's history replayed, usage
//! and cost, an edit's proposed change) so that neither copies the other.
//!
//! - [`assemble`]: the worker on a session, each plugin wrapped as the front end wants.
//! - [`trust_gate`]: the configuration with the project's code only when trusted.
//! - [`mode`]: a permission mode held to managed policy.
//! - [`sessions`]: the sessions of a workspace to continue; [`replay`]: a session's history as
//!   the events a front end shows.
//! - [`usage`]: tokens and cost; [`edit_preview`]: what an edit would change.
//! - [`workspace`]: the workspace root; [`sources`]: where configuration is read from.

pub mod assemble;
pub mod edit_preview;
mod error;
pub mod mode;
pub mod replay;
pub mod reports;
pub mod sessions;
pub mod sources;
pub mod status;
pub mod transcript;
pub mod trust_gate;
pub mod usage;
pub mod workspace;

pub use error::FrontError;
