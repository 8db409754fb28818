//! The `resolver` world: plugins that turn `@path` references into file content and serve the
//! model's file tools. A resolver sees the workspace roots read-only through WASI preopens.

#[doc(hidden)]
pub mod bindings {
    wit_bindgen::generate!({
        path: "wit",
        world: "warden:plugin/resolver",
        pub_export_macro: true,
        export_macro_name: "__export_resolver_world",
        default_bindings_module: "::warden_plugin::resolver::bindings",
        runtime_path: "::warden_plugin::__private::wit_bindgen::rt",
    });
}

use crate::Config;
pub use crate::types::{EntryKind, FileChunk, FileRef, LineRange, Listing, ResolveError, Resolved};

/// A resolver plugin. Implement it once and export it with
/// [`export_resolver!`](crate::export_resolver).
pub trait Resolver: Sized + 'static {
    /// Build the plugin from its config; an `Err` refuses the config with that message.
    fn init(config: Config) -> Result<Self, String>;

    /// Resolve one reference.
    fn resolve(&mut self, request: FileRef) -> Result<Resolved, ResolveError>;

    /// The model's `read_file` tool: `limit` lines from 1-based line `offset`, capped at
    /// `max_bytes`.
    fn read_file(
        &mut self,
        path: String,
        offset: u32,
        limit: u32,
        max_bytes: u64,
    ) -> Result<FileChunk, ResolveError>;

    /// The model's `list_files` tool.
    fn list_files(&mut self, path: String, max_entries: u32) -> Result<Listing, ResolveError>;
}

/// Export `$ty`, a [`Resolver`], as the component's `resolve` interface.
#[macro_export]
macro_rules! export_resolver {
    ($ty:ty) => {
        const _: () = {
            use $crate::resolver::bindings::exports::warden::plugin::resolve::Guest;
            use $crate::resolver::Resolver as _;

            ::std::thread_local! {
                static SLOT: $crate::__private::Slot<$ty> = const { $crate::__private::Slot::new() };
            }

            struct Exported;

            impl Guest for Exported {
                fn init(config: ::std::vec::Vec<(::std::string::String, ::std::string::String)>)
                    -> ::std::result::Result<(), ::std::string::String> {
                    $crate::__private::init_slot(&SLOT, <$ty>::init($crate::Config::from(config)))
                }

                fn resolve(request: $crate::FileRef)
                    -> ::std::result::Result<$crate::Resolved, $crate::ResolveError> {
                    SLOT.with(|slot| slot.with(|p| p.resolve(request)))
                }

                fn read_file(path: ::std::string::String, offset: u32, limit: u32, max_bytes: u64)
                    -> ::std::result::Result<$crate::FileChunk, $crate::ResolveError> {
                    SLOT.with(|slot| slot.with(|p| p.read_file(path, offset, limit, max_bytes)))
                }

                fn list_files(path: ::std::string::String, max_entries: u32)
                    -> ::std::result::Result<$crate::Listing, $crate::ResolveError> {
                    SLOT.with(|slot| slot.with(|p| p.list_files(path, max_entries)))
                }
            }

            $crate::resolver::bindings::__export_resolver_world!(Exported with_types_in $crate::resolver::bindings);
        };
    };
}
