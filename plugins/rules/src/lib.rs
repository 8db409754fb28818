//! Path rules of warden, written once and shared by the host (crate `warden`) and the built-in
//! resolver component (`file-ref`), so that what a reference may show, what the host's deny
//! guard lets through, what `list_files` lists and what `@` completion offers can never
//! disagree.
//!
//! - [`deny`]: deny globs, matched on normalised root-relative paths.
//! - [`gitignore`]: `.gitignore` rules for listings.
//! - [`listing`]: bounded, gitignore-aware directory listings and their rendering.
//! - [`fsys`]: the few file-system calls the rules make (std natively, WASI p2 directly in a
//!   `wasm32-wasip2` component), including [`fsys::Dir`], the symlink-free walk the resolver
//!   resolves paths with.
//!
//! # Features
//!
//! `std` (default): everything above. Glob matching (`globset`) and the file system need `std`,
//! so without it the crate is `no_std` + `alloc` and holds only [`listing::Listed`], the
//! rendering, ordering and fitting of a listing.

#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs)]

extern crate alloc;

#[cfg(feature = "std")]
pub mod deny;
#[cfg(feature = "std")]
pub mod fsys;
#[cfg(feature = "std")]
pub mod gitignore;
pub mod listing;
