//! Completion of workspace paths for `@` mentions (`warden chat`) and `warden complete`.
//!
//! - [`Index`]: every path a listing of the workspace root would show, built once, with its
//!   directories walked on every core (`walk`); the paths are held in two arenas, not one
//!   `String` each.
//! - [`BackgroundIndex`]: the same, built on a thread while the person starts typing.
//! - [`rank`]: the fuzzy ranker (exact name before fuzzy match, shorter path first at equal
//!   score, case-insensitive), on every core; [`Ranker`] narrows keystroke by keystroke.
//!
//! The listing rules (`.gitignore` handling, deny globs, `.git` skipped, symlinks not
//! followed) are the built-in resolver's own, from the `warden-rules` crate it depends on too,
//! so completion and `list_files` can never disagree; a test compares the parallel walk with
//! the serial listing, another `warden complete` with `list_files`.
//!
//! This folder builds on configuration only; front ends (the chat editor, the `complete`
//! command) sit above it.

mod arena_scan;
mod background;
mod index;
mod keep;
mod order;
pub mod rank;
#[cfg(test)]
mod rank_tests;
mod score;
mod walk;

pub use background::BackgroundIndex;
pub use index::{CompleteError, Entry, Index, Kind};
pub use rank::{Match, Ranker, rank};
