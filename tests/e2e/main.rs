//! End-to-end tests: one test binary, one module per concern.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stderr)]

mod chat;
mod children;
mod cli_output;
mod cli_prompt;
mod cli_root;
mod cli_session;
mod compaction;
mod compat_v0_1;
mod complete;
mod fileref_cases;
mod fileref_cli;
mod fileref_hostile;
mod hardening;
mod injected;
mod instructions;
mod interrupt;
mod llm;
mod modes;
mod operator;
mod plugin_authoring;
mod plugin_bench;
mod plugin_check;
mod plugin_langs;
mod plugin_start;
mod plugins_hostile;
mod policy;
mod policy_hold;
mod post_tool;
mod reminders;
mod replay;
mod resume;
mod shell;
mod store;
mod support;
mod tool_fs_guard;
mod tool_guard;
mod tool_pipeline;
mod tool_plugins;
mod tools;
mod trust;
mod undo;
mod wit;
mod worker;
mod workspace_tools;
