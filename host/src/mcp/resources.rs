//! `@server:uri`: a resolver that serves references naming a configured MCP server
//! (`@docs:note://x`) by `resources/read` on that server, and passes every other reference and
//! the file tools to the workspace resolver it wraps. A resource is placed like a file (same
//! placement, per-file cap and marker, total budget); a failure is the reference's failure
//! (a Warn alert and the unresolved placeholder), never a silent fallback.

use std::sync::Arc;
use std::time::Duration;

use super::content::resource_text;
use super::server::{CallError, McpServer, ServerState};
use crate::domain::defaults::truncation_marker;
use crate::domain::{
    EntryKind, FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved,
};

/// The workspace resolver, with MCP resources in front of it.
pub struct McpResources {
    inner: Box<dyn Resolve>,
    servers: Vec<Arc<McpServer>>,
}

impl McpResources {
    /// `inner` for workspace paths, `servers` for `@server:uri`.
    pub fn new(inner: Box<dyn Resolve>, servers: Vec<Arc<McpServer>>) -> Self {
        Self { inner, servers }
    }

    /// The server and URI of `path` when it names a configured server (`docs:note://x`).
    fn target(&self, path: &str) -> Option<(&Arc<McpServer>, String)> {
        let (name, uri) = path.split_once(':')?;
        if uri.is_empty() {
            return None;
        }
        let server = self.servers.iter().find(|s| s.name() == name)?;
        Some((server, uri.to_owned()))
    }
}

fn read(server: &McpServer, uri: &str, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
    let shown = format!("{}:{uri}", server.name());
    if let ServerState::Failed(why) = server.state() {
        return Err(ResolveError::Io(format!(
            "{shown}: MCP server `{}` is not running ({why})",
            server.name()
        )));
    }
    if request.range.is_some() {
        return Err(ResolveError::Invalid(format!(
            "{shown}: line ranges apply to workspace files, not to MCP resources"
        )));
    }
    let timeout = Duration::from_secs(server.entry().timeout_s);
    let result = server
        .read_resource(uri, timeout)
        .map_err(|err| match err {
            CallError::Deadline => ResolveError::Io(format!(
                "{shown}: MCP server `{}` did not answer within {} s",
                server.name(),
                server.entry().timeout_s
            )),
            CallError::Cancelled => ResolveError::Io(format!("{shown}: cancelled")),
            CallError::Failed(why) => ResolveError::NotFound(format!("{shown}: {why}")),
        })?;
    let mut content = resource_text(&result).map_err(|why| {
        if why.starts_with("binary") {
            ResolveError::Binary(shown.clone())
        } else {
            ResolveError::NotFound(format!("{shown}: {why}"))
        }
    })?;
    let total = content.len() as u64;
    let truncated = total > request.max_bytes;
    if truncated {
        let mut end = usize::try_from(request.max_bytes).unwrap_or(usize::MAX);
        while !content.is_char_boundary(end) {
            end -= 1;
        }
        content.truncate(end);
        content.push_str(&truncation_marker(total));
    }
    Ok(Resolved {
        path: shown,
        kind: EntryKind::File,
        content,
        total_bytes: total,
        truncated,
    })
}

impl Resolve for McpResources {
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError> {
        match self.target(&request.path) {
            Some((server, uri)) => read(server, &uri, request),
            None => self.inner.resolve(request),
        }
    }

    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        self.inner.read_file(path, offset, limit, max_bytes)
    }

    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError> {
        self.inner.list_files(path, max_entries)
    }

    fn new_turn(&mut self) {
        self.inner.new_turn();
    }
}
