//! The wasmtime host for plugin components (wasmtime 48, component model, WASI p2).
//!
//! - [`PluginEngine`]: one per process; compiles components (with an on-disk cache keyed by the
//!   engine's compatibility hash and the component's sha256) and drives call deadlines.
//! - [`read_component`]: a component file is read only if it is a regular file within the
//!   maximum component size.
//! - [`inspect`]: identity, world and API version of a component, or why it is refused.
//! - [`InterceptorPlugin`], [`HookPlugin`], [`ResolverPlugin`]: one loaded plugin each, under a
//!   deadline, a memory cap, output caps and a failure policy; a trapped instance is replaced.
//!
//! Generated bindings stay private to this module; the rest of the host sees domain types and
//! the traits of [`crate::worker`].

mod bindings;
mod cache;
mod component_file;
mod convert;
mod engine;
mod error;
mod hook;
mod inspect;
mod instance;
mod interceptor;
mod limits;
mod loader;
mod resolver;
mod state;

pub use component_file::{MAX_COMPONENT_BYTES, read_component};
pub use engine::{EngineOptions, PluginEngine};
pub use error::PluginError;
pub use hook::HookPlugin;
pub use inspect::{API_VERSION, ComponentInfo, World, inspect, sha256_hex};
pub use interceptor::InterceptorPlugin;
pub use limits::Limits;
pub use resolver::{BUILTIN_RESOLVER, ResolverPlugin, ResolverSource};
