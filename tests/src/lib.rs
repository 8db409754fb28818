//! Shared helpers of the end-to-end tests.
//!
//! - [`mock_server`]: a local model server speaking the Anthropic and OpenAI wire formats.
//! - [`snapshot`]: whole-value comparisons against files under `tests/snapshots/`.

pub mod mock_server;
pub mod snapshot;
