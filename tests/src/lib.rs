//! Shared helpers of the end-to-end tests: fixture components and a model server on loopback.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

pub mod fixtures;
