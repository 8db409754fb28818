//! The filtering WASI filesystem: `wasi:filesystem/types` served by a wrapper of wasmtime's own
//! implementation that checks, for a guarded plugin (a tool plugin with an `fs` grant, a custom
//! resolver), every path it opens, stats, lists, reads as a link or writes — on the **real
//! path**, the kernel's name of an opened descriptor, never the string the guest passed.
//!
//! - [`crate::confine::policy`]: the rules (inside the roots; deny globs for reads; protected directories and
//!   deny globs for writes; symlink targets resolved as the kernel would).
//! - [`crate::confine::real_path`]: the kernel's name of a descriptor (`/proc/self/fd/N`); fails closed where
//!   it cannot be known.
//! - [`descriptor`]: the generated `Host`/`HostDescriptor`/`HostDirectoryEntryStream` traits,
//!   delegating to wasmtime with the checks of [`ops`] in the path-taking methods.
//!
//! A plugin without a guard (interceptors and hooks, which have no preopens; the built-in
//! resolver, which the host's `DenyGuard` checks and whose reads stay on the raw preopen) goes
//! straight to wasmtime's implementation.

mod descriptor;
mod ops;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use wasmtime::component::{HasData, Linker};
use wasmtime_wasi::filesystem::WasiFilesystemCtxView;

pub(crate) use crate::confine::FsPolicy;

/// The guard of one plugin instance: its policy and what it needs between calls.
pub(crate) struct FsGuard {
    plugin: String,
    policy: Arc<FsPolicy>,
    /// The real directory of each open directory-entry stream (by resource), whose denied
    /// entries are left out.
    streams: HashMap<u32, PathBuf>,
    /// Whether a refusal was logged in this call (one warning per call).
    warned: bool,
}

impl FsGuard {
    /// The guard of `plugin` under `policy`.
    pub(crate) fn new(plugin: &str, policy: Arc<FsPolicy>) -> Self {
        Self {
            plugin: plugin.to_owned(),
            policy,
            streams: HashMap::new(),
            warned: false,
        }
    }

    /// A plugin call starts: its first refusal is logged again.
    pub(crate) fn new_call(&mut self) {
        self.warned = false;
    }
}

/// wasmtime's filesystem view of one store, with the plugin's guard when it has one.
pub(crate) struct GuardedFs<'a> {
    pub(crate) fs: WasiFilesystemCtxView<'a>,
    pub(crate) guard: Option<&'a mut FsGuard>,
}

/// The [`HasData`] whose view is [`GuardedFs`].
struct Guarded;

impl HasData for Guarded {
    type Data<'a> = GuardedFs<'a>;
}

/// Serve `wasi:filesystem/types` through the guard, in place of the implementation
/// `wasmtime_wasi::p2::add_to_linker_sync` linked (the other WASI interfaces stay as they are).
/// `view` gives a store's [`GuardedFs`].
pub(crate) fn add_to_linker<T: Send + 'static>(
    linker: &mut Linker<T>,
    view: fn(&mut T) -> GuardedFs<'_>,
) -> wasmtime::Result<()> {
    linker.allow_shadowing(true);
    let added = wasmtime_wasi::p2::bindings::sync::filesystem::types::add_to_linker::<T, Guarded>(
        linker, view,
    );
    linker.allow_shadowing(false);
    added
}
