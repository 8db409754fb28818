//! End-to-end tests: one test binary, one module per concern.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod chat;
mod complete;
mod fileref_cases;
mod fileref_cli;
mod fileref_hostile;
mod instructions;
mod interrupt;
mod llm;
mod plugin_check;
mod plugins_hostile;
mod policy;
mod resume;
mod store;
mod support;
mod wit;
mod worker;
