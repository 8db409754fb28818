//! Shared helpers of the end-to-end tests.
//!
//! - [`fixtures`]: paths of the components `build.rs` compiles.
//! - [`mock_server`]: a local model server speaking the Anthropic and OpenAI wire formats.
//! - [`snapshot`]: whole-value comparisons against files under `tests/snapshots/`.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

pub mod fixtures;
pub mod mock_server;
pub mod snapshot;
