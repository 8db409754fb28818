//! `@path` references: the parser, the resolution stage and the placement of resolved files
//! into history.
//!
//! - [`parser`]: typed text → [`Segment`](crate::worker::Segment)s with exact spans.
//! - [`types`]: domain types of the resolver contract.
//! - [`resolve`]: the [`Resolve`] trait the stage and the tools call a resolver through.
//! - [`component`]: the resolver component (built-in or configured) as a [`Resolve`]r.
//! - [`deny`] and [`deny_guard`]: the host's own deny check of every request and result of a
//!   resolver, so that a resolver that ignores the deny globs still cannot serve a denied path.
//! - [`stage`]: [`resolve_prompt`], the submit-time stage: refs → items, alerts, reports.
//! - [`report`]: [`RefReport`] (the `refs` entries of `preview --json`) and [`FileAudit`].
//! - [`placement`]: the three placement policies and their inverses.
//! - [`dedup`]: [`ShownFiles`], what was already shown in a session.
//! - [`tools`]: the model's `read_file` and `list_files` tools.

pub mod component;
pub mod dedup;
pub mod deny;
pub mod deny_guard;
pub mod parser;
pub mod placement;
pub mod report;
pub mod resolve;
pub mod stage;
pub mod tools;
mod types;

#[cfg(test)]
mod testing;

pub use component::{init_config, load_resolver};
pub use dedup::ShownFiles;
pub use deny::DenyGlobs;
pub use deny_guard::DenyGuard;
pub use parser::{Mention, Parsed, parse};
pub use report::{FileAudit, RefReport};
pub use resolve::Resolve;
pub use stage::{ResolvedPrompt, resolve_prompt};
pub use types::{EntryKind, FileChunk, Listing, ResolveError, ResolveRequest, Resolved};
