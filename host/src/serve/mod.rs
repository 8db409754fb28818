//! `warden mcp serve`: warden's tools served over the Model Context Protocol, above `setup`
//! and below the CLI.
//!
//! - `host`: the thread that owns the [`Worker`](crate::worker::Worker) (its plugins are not
//!   `Send`) and serves one call at a time through the turn's own path
//!   ([`Worker::serve_call`](crate::worker::Worker::serve_call)).
//! - `approve`: what a call that asks (the mode, a plugin's `approve = "ask"`) becomes over
//!   MCP: `--yes`, an elicitation when the client supports it, else a refusal.
//! - `resources`: workspace files as MCP resources, through the resolver.
//! - `handler`: the MCP server handler (tools, resources).
//! - `transport`: stdio, and Streamable HTTP on a loopback address.
//!
//! Every serve process has one session of its own: no history is committed to it (no model
//! of warden's asked for the calls), but its audit log holds an `mcp-serve` record naming the
//! transport, then every call's `tool_call` and `point` records, as a turn writes them.

mod approve;
mod handler;
mod host;
mod resources;
mod transport;

pub use host::{ServeError, ServeOptions};
pub use transport::{serve_http, serve_stdio};

/// `Err` unless `addr` is a loopback address with a port (`--http`).
pub fn check_http_address(addr: &str) -> Result<std::net::SocketAddr, ServeError> {
    transport::loopback(addr)
}
