//! The [`Resolve`] trait: how the stage and the file tools reach a resolver. The host's
//! sandboxed resolver component implements it; so can anything else that honours the resolver
//! contract (`docs/resolver.md`).

use super::types::{FileChunk, Listing, ResolveError, ResolveRequest, Resolved};

/// A resolver of `@path` references and server of the model's file tools.
///
/// A failure of the resolver itself (a trap, a deadline) is reported as
/// [`ResolveError::Io`] by the implementation, so that one broken call fails one reference.
pub trait Resolve {
    /// Resolve one reference.
    fn resolve(&mut self, request: &ResolveRequest) -> Result<Resolved, ResolveError>;

    /// `limit` lines (0: as many as fit) from 1-based line `offset` (0: from the start), at
    /// most `max_bytes` bytes.
    fn read_file(
        &mut self,
        path: &str,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError>;

    /// List a directory, at most `max_entries` entries.
    fn list_files(&mut self, path: &str, max_entries: u32) -> Result<Listing, ResolveError>;

    /// A turn starts. A resolver that failed twice in a turn is not called again in it.
    fn new_turn(&mut self) {}
}
