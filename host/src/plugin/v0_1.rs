//! The `warden:plugin@0.1.0` adapter: its generated bindings (`bindings`, from the frozen
//! `wit/released/0.1.0`) tied to the instance manager, and its conversions (`convert`). 0.1.0
//! has no tool world, no `pre-tool-call`/`post-tool-call` and no tool-decision event: the
//! adapters give those points their defaults (allow, nothing, not delivered).

use super::bindings::hook::{Hook as HookBindings, HookPre};
use super::bindings::interceptor::{Interceptor as InterceptorBindings, InterceptorPre};
use super::bindings::resolver::{Resolver as ResolverBindings, ResolverPre};
use super::inspect::World;
use super::instance::world_bindings;
use super::version::WitVersion;

pub(crate) use super::convert;

/// The 0.1.0 interceptor world.
pub(crate) type Interceptor = InterceptorBindings;
/// The 0.1.0 hook world.
pub(crate) type Hook = HookBindings;
/// The 0.1.0 resolver world.
pub(crate) type Resolver = ResolverBindings;

world_bindings!(
    InterceptorBindings,
    InterceptorPre,
    World::Interceptor,
    WitVersion::V0_1,
    warden_plugin_intercept
);
world_bindings!(
    HookBindings,
    HookPre,
    World::Hook,
    WitVersion::V0_1,
    warden_plugin_observe
);
world_bindings!(
    ResolverBindings,
    ResolverPre,
    World::Resolver,
    WitVersion::V0_1,
    warden_plugin_resolve
);
