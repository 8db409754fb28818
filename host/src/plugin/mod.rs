//! The wasmtime host for plugin components (wasmtime 50, component model, WASI p2).
//!
//! - [`PluginEngine`]: one per process; compiles components (with an on-disk cache keyed by the
//!   engine's compatibility hash and the component's sha256) and drives call deadlines.
//! - [`load_parallel`]: runs several plugin loads on a few threads, results in order (an engine
//!   compiles each distinct component once, whichever load asks first).
//! - [`read_component`]: a component file is read only if it is a regular file within the
//!   maximum component size.
//! - [`inspect`]: identity, world and API version of a component, or why it is refused.
//! - [`WitVersion`]: the released API versions, the host's only version constant. Each has one
//!   file under `wit/` (`v0_1_0.rs`, `v0_2_0.rs`, `v0_3_0.rs`) with its generated bindings and
//!   its conversions; `wit` chooses between them by the version a component exports, so 0.1.0
//!   and 0.2.0 components keep working unchanged beside 0.3.0 ones.
//! - [`InterceptorPlugin`], [`HookPlugin`], [`ResolverPlugin`], [`ToolPlugin`]: the adapters,
//!   one loaded plugin each, under a deadline, a memory cap, output caps and a failure policy; a trapped
//!   instance is replaced. They implement the domain traits
//!   ([`Interceptor`](crate::domain::Interceptor), [`Hook`](crate::domain::Hook),
//!   [`Resolve`](crate::domain::Resolve)).
//!
//! - `fs_guard`: the filtering WASI filesystem that serves a tool plugin's `fs` grant (and a
//!   configured resolver's roots): deny globs and the protected directories (`.warden`,
//!   `.git`) enforced on the real paths of what the plugin opens.
//!
//! Generated bindings stay private to this module, inside `wit/`; the rest of the host sees
//! domain types and traits only. The files here import one another without a cycle, and only
//! `wit/` names a version's bindings (see the `layering` test).

mod arguments;
mod breaker;
pub mod builtin;
mod cache;
mod component_file;
mod engine;
mod error;
mod fs_guard;
mod guest_error;
mod hook;
mod inspect;
mod instance;
mod interceptor;
#[cfg(test)]
mod layering;
mod lent;
mod limits;
mod loader;
pub mod metadata;
pub mod outgoing;
mod parallel;
mod preopen;
mod resolver;
mod resolver_caps;
pub mod signature;
mod state;
mod stderr;
mod tool;
mod version;
mod wit;
mod world;

pub use cache::{CacheUsage, announce_slow_compiles, clear as clear_cache, usage as cache_usage};
pub use component_file::{BUILTIN_RESOLVER, MAX_COMPONENT_BYTES, read_component, sha256_hex};
pub use engine::{EngineOptions, PluginEngine};
pub use error::PluginError;
pub use hook::HookPlugin;
pub use inspect::inspect;
pub use interceptor::InterceptorPlugin;
pub use limits::Limits;
pub use parallel::{LoadJob, load_parallel};
pub use preopen::with_roots;
pub use resolver::{RESOLVER_LIMITS, ResolverPlugin, ResolverSource, init_config, load_resolver};
pub use tool::{ToolLoad, ToolPlugin, valid_tool_name};
pub use version::WitVersion;
#[doc(hidden)]
pub use wit::fuzzing;
pub use world::{ComponentInfo, World};
