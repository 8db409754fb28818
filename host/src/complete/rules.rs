//! The listing rules of the built-in resolver (`plugins/file-ref`), compiled from the same
//! source files: `.gitignore` handling, deny globs and the breadth-first listing itself. The
//! guest names these modules through `super::`, so they build unchanged in both crates.

#[allow(dead_code, missing_docs, unused_imports)]
#[path = "../../../plugins/file-ref/src/fsys.rs"]
mod fsys;

#[allow(dead_code, missing_docs)]
#[path = "../../../plugins/file-ref/src/gitignore.rs"]
mod gitignore;

#[allow(dead_code, missing_docs)]
#[path = "../../../plugins/file-ref/src/deny.rs"]
pub(super) mod deny;

#[allow(dead_code, missing_docs)]
#[path = "../../../plugins/file-ref/src/listing.rs"]
pub(super) mod listing;
