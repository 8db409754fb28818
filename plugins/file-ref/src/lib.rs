//! warden's built-in resolver of `@path` references, a `resolver` world component.
//!
//! It sees the workspace only through read-only WASI preopens, one per root, each at a guest
//! path equal to the root's absolute host path. The contract with the host is described in
//! `docs/resolver.md`.
//!
//! - [`settings`]: the `init` config (`roots`, `deny`, `max_entries`, `max_scan_bytes`).
//! - [`scope`]: component-by-component path resolution with symlinks followed by hand.
//! - [`text`]: UTF-8 / NUL checks, cuts and the truncation marker.
//! - [`lines`]: bounded line selection.
//! - [`workspace`]: the three operations, built from the above.
//!
//! Deny globs, `.gitignore` matching, bounded listings and the file-system calls (std natively,
//! WASI p2 directly in the component) come from the `warden-rules` crate, which the host
//! depends on too: its deny guard, its tools and its `@` completion follow exactly these rules.
//!
//! The logic is plain `std` and is tested natively; only the export is wasm-specific. Another
//! resolver can reuse it as a library with `default-features = false` (no export).

pub mod lines;
pub mod scope;
pub mod settings;
pub mod text;
pub mod workspace;

use warden_plugin::Config;
use warden_plugin::resolver::{FileChunk, FileRef, Listing, ResolveError, Resolved, Resolver};

pub use settings::Settings;
pub use workspace::Workspace;

/// The component: a [`Workspace`] built from the `init` config.
pub struct FileRefResolver {
    workspace: Workspace,
}

impl Resolver for FileRefResolver {
    fn init(config: Config) -> Result<Self, String> {
        let workspace = Workspace::new(Settings::from_config(&config)?)?;
        Ok(Self { workspace })
    }

    fn resolve(&mut self, request: FileRef) -> Result<Resolved, ResolveError> {
        self.workspace
            .resolve(&request.path, request.range, request.max_bytes)
    }

    fn read_file(
        &mut self,
        path: String,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError> {
        self.workspace.read_file(&path, offset, limit, max_bytes)
    }

    fn list_files(&mut self, path: String, max_entries: u32) -> Result<Listing, ResolveError> {
        self.workspace.list_files(&path, max_entries)
    }
}

#[cfg(all(target_arch = "wasm32", feature = "component"))]
warden_plugin::export_resolver!(FileRefResolver);
