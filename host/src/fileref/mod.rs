//! `@path` references: the parser, the resolution stage and the placement of resolved files
//! into history.

mod types;

pub use types::{EntryKind, FileChunk, Listing, ResolveError, ResolveRequest, Resolved};
