//! The wasmtime host for plugin components (wasmtime 48, component model, WASI p2).
//!
//! - [`PluginEngine`]: one per process; compiles components (with an on-disk cache keyed by the
//!   engine's compatibility hash and the component's sha256) and drives call deadlines.
//! - [`load_parallel`]: runs several plugin loads on a few threads, results in order (an engine
//!   compiles each distinct component once, whichever load asks first).
//! - [`read_component`]: a component file is read only if it is a regular file within the
//!   maximum component size.
//! - [`inspect`]: identity, world and API version of a component, or why it is refused.
//! - [`WitVersion`]: the released API versions; each has its own bindings and conversions
//!   (`v0_1`, `v0_2`), chosen by the version a component exports, so a 0.1.0 component keeps
//!   working unchanged beside 0.2.0 ones.
//! - [`InterceptorPlugin`], [`HookPlugin`], [`ResolverPlugin`], [`ToolPlugin`]: the adapters,
//!   one loaded plugin each, under a deadline, a memory cap, output caps and a failure policy; a trapped
//!   instance is replaced. They implement the domain traits
//!   ([`Interceptor`](crate::domain::Interceptor), [`Hook`](crate::domain::Hook),
//!   [`Resolve`](crate::domain::Resolve)); `convert` holds every conversion between generated
//!   WIT types and domain types.
//!
//! Generated bindings stay private to this module; the rest of the host sees domain types and
//! traits only.

mod bindings;
mod breaker;
mod cache;
mod component_file;
pub(crate) mod convert;
mod engine;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod hook;
mod inspect;
mod instance;
mod interceptor;
mod limits;
mod loader;
pub mod outgoing;
mod parallel;
mod preopen;
mod resolver;
mod resolver_caps;
mod state;
mod stderr;
mod tool;
mod v0_1;
mod v0_2;
mod version;

pub use component_file::{MAX_COMPONENT_BYTES, read_component};
pub use engine::{EngineOptions, PluginEngine};
pub use error::PluginError;
pub use hook::HookPlugin;
pub use inspect::{API_VERSION, ComponentInfo, World, inspect, sha256_hex};
pub use interceptor::InterceptorPlugin;
pub use limits::Limits;
pub use parallel::{LoadJob, load_parallel};
pub use resolver::{
    BUILTIN_RESOLVER, RESOLVER_LIMITS, ResolverPlugin, ResolverSource, init_config, load_resolver,
};
pub use tool::{ToolLoad, ToolPlugin, valid_tool_name};
pub use version::WitVersion;
