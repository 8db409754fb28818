//! warden: a native host for an LLM agent's worker loop, extensible with sandboxed WebAssembly
//! component plugins.
//!
//! - [`worker`]: domain types (segments, items, alerts) and the turn loop with its commit rules.
//! - [`plugin`]: the wasmtime host for interceptor, hook and resolver components.
//! - [`fileref`]: the `@path` parser and the placement of resolved files into history.
//! - [`llm`]: model providers (echo, Anthropic Messages, OpenAI-compatible).
//! - [`store`]: durable session history, audit log and notification inbox.
//! - [`config`]: layered TOML configuration.
//! - [`complete`]: completion of workspace paths for `@` mentions.
//! - [`cli`]: the `warden` command line.

pub mod cli;
pub mod complete;
pub mod config;
pub mod fileref;
pub mod llm;
pub mod plugin;
pub mod store;
pub mod worker;
