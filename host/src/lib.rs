//! warden: a native host for an LLM agent's worker loop, extensible with sandboxed WebAssembly
//! component plugins. The layers point one way, from the bottom up (`docs/architecture.md`):
//!
//! - [`domain`]: items, segments, sources, alerts, events, tool calls, and the `Interceptor`,
//!   `Hook`, `Resolve` and `Tool` traits. Imports nothing else of the host.
//! - [`config`]: layered TOML configuration. [`store`]: durable session history, audit log and
//!   notification inbox. [`llm`]: model providers (echo, Anthropic Messages,
//!   OpenAI-compatible). `confine`: where a writer may reach, decided on real paths. Each
//!   builds on the domain only.
//! - [`fileref`]: the `@path` parser, the submit-time resolution stage, placement, dedup and
//!   the file tools. [`plugin`]: the wasmtime host and the three plugin adapters. Both build on
//!   the domain and configuration. [`complete`]: completion of workspace paths for `@`
//!   mentions, with the resolver's own listing rules; it builds on the domain and configuration.
//! - [`tools`]: the built-in tools that write and search the workspace natively
//!   (`write_file`, `edit_file`, `grep`, `glob`), held to the real-path rules of `confine`.
//! - [`sandbox`]: the built-in `shell` tool and the Linux sandbox (namespaces, Landlock) it
//!   runs commands in; it builds on the domain and configuration.
//! - [`mcp`]: the MCP client: `[[mcp]]` servers' tools (`mcp__<server>__<tool>`) and
//!   resources (`@server:uri`), stdio servers confined by the sandbox.
//! - [`oci`]: plugins distributed through OCI registries (push, pull, the local cache); it
//!   builds on the domain and configuration.
//! - [`trace`]: warden's spans, noted per thread while export is on; every layer opens them.
//! - [`worker`]: the turn loop with its commit rules, the interceptor chain, the tool registry.
//! - [`setup`]: a worker assembled from configuration.
//! - [`serve`]: warden's tools served over MCP (`warden mcp serve`), above `setup`.
//! - [`cli`]: the `warden` command line.

/// The process's allocator: mimalloc. Its heaps are per thread and a block freed on another
/// thread goes back without a lock the owner waits on, so export's thread, which frees what
/// the turn's thread handed over, no longer stalls the turn on an arena lock (with the C
/// library's allocator, the turn's thread spent 1.4× the time on a CPU with export on). It is
/// built with `no_thp` (the workspace's `Cargo.toml`): its arena asking for huge pages cost a
/// warm run 15 MB of resident memory for no speed. See docs/decisions.md, "Spans of warden's
/// own, and mimalloc as the allocator".
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

pub mod acp;
pub mod cli;
pub mod command_hook;
pub mod complete;
pub mod config;
mod confine;
pub mod domain;
pub mod fileref;
pub mod front;
pub mod llm;
pub mod mcp;
pub mod oci;
pub mod plugin;
pub mod sandbox;
pub mod serve;
pub mod setup;
pub mod store;
pub mod telemetry;
pub mod tools;
pub mod trace;
pub mod worker;

#[cfg(test)]
mod layering;
#[cfg(test)]
mod point_names;
