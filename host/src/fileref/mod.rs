//! `@path` references: the parser, the resolution stage and the placement of resolved files
//! into history.
//!
//! - [`parser`]: typed text → [`Segment`](crate::domain::Segment)s with exact spans.
//! - [`deny`] and [`deny_guard`]: the host's own deny check of every request and result of a
//!   resolver, so that a resolver that ignores the deny globs still cannot serve a denied path.
//! - [`stage`]: [`resolve_prompt`], the submit-time stage: refs → items, alerts, reports.
//! - [`suggest`]: the closest paths to a reference not found ("did you mean").
//! - [`report`]: [`RefReport`] (the `refs` entries of `preview --json`) and [`FileAudit`].
//! - [`listing`]: a directory listing as the model sees it, every entry marked `- `.
//! - [`placement`]: the three placement policies and their inverses.
//! - [`dedup`]: [`ShownFiles`], what was already shown in a session.
//! - [`tools`]: the model's `read_file` and `list_files` tools.

pub mod dedup;
pub mod deny;
pub mod deny_guard;
pub mod listing;
pub mod parser;
pub mod placement;
pub mod report;
pub mod stage;
pub mod suggest;
pub mod tools;

#[cfg(test)]
pub(crate) mod testing;

pub use dedup::ShownFiles;
pub use deny::DenyGlobs;
pub use deny_guard::DenyGuard;
pub use parser::{Mention, Parsed, parse};
pub use report::{FileAudit, RESOLVED, RefReport};
pub use stage::{ResolvedPrompt, resolve_prompt};
