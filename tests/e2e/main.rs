//! End-to-end tests: one test binary, one module per concern.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod children;
mod compaction;
mod fileref_cases;
mod fileref_cli;
mod fileref_hostile;
mod interrupt;
mod llm;
mod plugin_check;
mod plugins_hostile;
mod policy;
mod reminders;
mod store;
mod support;
mod wit;
mod worker;
