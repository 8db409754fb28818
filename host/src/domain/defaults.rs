//! The security defaults, written down once (crate `warden-defaults`, shared with the built-in
//! resolver component): deny globs, caps, the truncation marker.

pub use warden_defaults::{
    DEFAULT_DENY, DEFAULT_MAX_BYTES, DEFAULT_MAX_ENTRIES, DEFAULT_MAX_TOTAL_BYTES, PROTECTED_DIRS,
    is_protected, truncation_marker,
};
