//! Security defaults of warden, written down once and shared by the host (crate `warden`) and
//! the built-in resolver component (`file-ref`): the deny globs that always apply, the caps on
//! what a reference may show, and the marker that ends cut content.

#![no_std]
extern crate alloc;

use alloc::format;
use alloc::string::String;

/// Deny globs that always apply; configuration layers may add more, never remove these.
pub const DEFAULT_DENY: &[&str] = &[
    ".git/**",
    ".env",
    ".env.*",
    "**/*.pem",
    "**/*.key",
    "**/id_rsa*",
];

/// Directories no plugin may write into, at any depth and in any case: `.warden` holds the
/// configuration (a plugin that could write it could grant itself anything), `.git` the
/// repository (hooks and config run code). Reading `.warden` is allowed; `.git` is denied
/// anyway.
pub const PROTECTED_DIRS: &[&str] = &[".warden", ".git"];

/// Whether a root-relative path (components joined by `/`) lies in a [`PROTECTED_DIRS`]
/// directory (or is one), comparing names without regard to ASCII case.
pub fn is_protected(relative: &str) -> bool {
    relative
        .split('/')
        .any(|c| PROTECTED_DIRS.iter().any(|p| c.eq_ignore_ascii_case(p)))
}

/// Bytes one reference (and one tool output) may show before it is cut.
pub const DEFAULT_MAX_BYTES: u64 = 16384;

/// Bytes all references of one prompt may show together.
pub const DEFAULT_MAX_TOTAL_BYTES: u64 = 65536;

/// Entries listed for a directory.
pub const DEFAULT_MAX_ENTRIES: u32 = 200;

/// The marker that ends truncated content, on a line of its own.
pub fn truncation_marker(total_bytes: u64) -> String {
    format!("[...truncated, {total_bytes} bytes total — use read_file for the rest]")
}

#[cfg(test)]
mod tests {
    use super::is_protected;

    #[test]
    fn protected_directories_match_any_component_in_any_case() {
        for path in [
            ".warden",
            ".warden/config.toml",
            ".GIT/hooks/x",
            "a/b/.Git/config",
        ] {
            assert!(is_protected(path), "{path}");
        }
        for path in ["", "src/a.rs", ".wardenrc", "x.git/a", ".github/ci.yml"] {
            assert!(!is_protected(path), "{path}");
        }
    }
}
