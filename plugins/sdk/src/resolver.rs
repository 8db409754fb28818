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
pub use crate::types::{EntryKind, FileRef, LineRange, Listing, ResolveError};

use bindings::warden::plugin::types as wit;

/// A resolved reference.
#[derive(Clone, Debug)]
pub struct Resolved {
    /// Normalised path relative to the workspace root.
    pub path: String,
    /// File or directory.
    pub kind: EntryKind,
    /// File text (or the selected lines), or the directory listing.
    pub content: String,
    /// Size of the whole file in bytes (for a directory: entries listed).
    pub total_bytes: u64,
    /// True when `content` was cut at `max-bytes` and ends with the truncation marker.
    pub truncated: bool,
}

/// A slice of a file served to the model's `read_file` tool.
#[derive(Clone, Debug)]
pub struct FileChunk {
    /// Path served.
    pub path: String,
    /// Text of the lines served.
    pub content: String,
    /// 1-based first line served.
    pub first_line: u32,
    /// Lines served.
    pub lines: u32,
    /// Lines in the file.
    pub total_lines: u32,
    /// True when more lines follow the ones served.
    pub more: bool,
}

/// The answer as the WIT has it: the text goes as bytes (the host checks them once).
impl From<Resolved> for wit::Resolved {
    fn from(r: Resolved) -> Self {
        Self {
            path: r.path,
            kind: r.kind,
            content: r.content.into_bytes(),
            total_bytes: r.total_bytes,
            truncated: r.truncated,
        }
    }
}

/// The answer as the WIT has it: the text goes as bytes (the host checks them once).
impl From<FileChunk> for wit::FileChunk {
    fn from(c: FileChunk) -> Self {
        Self {
            path: c.path,
            content: c.content.into_bytes(),
            first_line: c.first_line,
            lines: c.lines,
            total_lines: c.total_lines,
            more: c.more,
        }
    }
}

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
                    -> ::std::result::Result<
                        $crate::resolver::bindings::warden::plugin::types::Resolved,
                        $crate::ResolveError,
                    > {
                    SLOT.with(|slot| slot.with(|p| p.resolve(request))).map(::std::convert::Into::into)
                }

                fn read_file(path: ::std::string::String, offset: u32, limit: u32, max_bytes: u64)
                    -> ::std::result::Result<
                        $crate::resolver::bindings::warden::plugin::types::FileChunk,
                        $crate::ResolveError,
                    > {
                    SLOT.with(|slot| slot.with(|p| p.read_file(path, offset, limit, max_bytes)))
                        .map(::std::convert::Into::into)
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
