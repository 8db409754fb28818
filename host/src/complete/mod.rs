//! Completion of workspace paths for `@` mentions (`warden chat`) and `warden complete`.
//!
//! - [`rules`]: the built-in resolver's own listing rules (gitignore, deny globs), compiled
//!   from its source so that completion and `list_files` can never disagree.
//! - [`Index`]: every path a listing of the workspace root would show, built once.
//! - [`BackgroundIndex`]: the same, built on a thread while the person starts typing.
//! - [`rank`]: the fuzzy ranker (exact name before fuzzy match, shorter path first at equal
//!   score, case-insensitive).
//!
//! This folder builds on configuration only; front ends (the chat editor, the `complete`
//! command) sit above it.

mod background;
mod index;
pub mod rank;
mod rules;

pub use background::BackgroundIndex;
pub use index::{CompleteError, Entry, Index, Kind};
pub use rank::{Match, rank};
