//! The MCP client: `[[mcp]]` servers' tools offered to the model as
//! `mcp__<server>__<tool>` (each call under the same chain, approval and audit as any tool),
//! and their resources attached by `@server:uri` references.
//!
//! - [`McpSet`]: every configured server started at once (each under its start deadline), or,
//!   when its listing was kept at an earlier start, deferred to its first use; what became of
//!   each ([`ServerState`]), one alert per server that failed;
//! - `listing_cache`: the tools and resources each server listed, kept between sessions;
//! - `launch`: a stdio server's process, in the shell's sandbox with the entry's grants (or
//!   unconfined where the entry says `sandbox = "none"`);
//! - `server`: one connected server, called from the (synchronous) worker on the set's own
//!   runtime under a deadline;
//! - `tool`: [`McpTool`], one server tool as a [`Tool`](crate::domain::Tool);
//! - `content`: a result's content blocks as the text the model sees, capped;
//! - `resources`: [`McpResources`], a resolver that serves `@server:uri` from the servers and
//!   every other reference from the workspace resolver it wraps.

mod content;
mod launch;
mod listing_cache;
mod resources;
mod server;
mod set;
mod tool;

pub use resources::McpResources;
pub use server::{McpServer, ServerState};
pub use set::{McpSet, ServerRow, StartOptions};
pub use tool::{McpTool, tool_name};
