//! The released `warden:plugin` versions, one file each (`v0_1_0`, `v0_2_0`, `v0_3_0`): its
//! generated bindings, the host side of its imports and its conversions to the host's types.
//! This module chooses between them: a loaded plugin is a [`Versioned`] instance manager, of the
//! version its component exports, and [`each_version!`] runs one expression against whichever
//! it is. Tools exist from 0.2.0 on: a tool plugin is a [`VersionedTool`], run with
//! [`each_tool_version!`].
//!
//! No other file of the plugin host names a version's module; the files outside `wit/` import
//! none of them.

#[doc(hidden)]
pub mod fuzzing;
mod shared;
mod shared_tool;

pub(crate) use shared_tool::DescribedTool;
pub(crate) mod v0_1_0;
pub(crate) mod v0_2_0;
pub(crate) mod v0_3_0;

#[cfg(test)]
use v0_3_0 as latest;

use std::path::Path;

use wasmtime::component::Component;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::instance::{Managed, WorldBindings};
use super::limits::Limits;
use super::loader::load_file;
use super::state::{WasiFactory, no_capabilities};
use super::version::WitVersion;
use super::world::{ComponentInfo, World};

/// A loaded plugin's instance manager, of whichever version the component targets.
pub(crate) enum Versioned<A, B, C> {
    /// Built for 0.1.0.
    V0_1(A),
    /// Built for 0.2.0.
    V0_2(B),
    /// Built for 0.3.0.
    V0_3(C),
}

/// Runs `$body` with `$m` bound to the version's managed instance and `$conv` naming that
/// version's conversions module (`v0_1_0::convert`, …), so one expression
/// serves every version.
macro_rules! each_version {
    ($versioned:expr, $m:ident, $conv:ident => $body:expr) => {
        match $versioned {
            $crate::plugin::wit::Versioned::V0_1($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::wit::v0_1_0::convert as $conv;
                $body
            }
            $crate::plugin::wit::Versioned::V0_2($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::wit::v0_2_0::convert as $conv;
                $body
            }
            $crate::plugin::wit::Versioned::V0_3($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::wit::v0_3_0::convert as $conv;
                $body
            }
        }
    };
}

pub(crate) use each_version;

/// The instance manager of a component of either version, chosen by `version`.
pub(crate) type VersionedManaged<A, B, C> = Versioned<Managed<A>, Managed<B>, Managed<C>>;

/// An interceptor of any version.
pub(crate) type InterceptorWorld =
    VersionedManaged<v0_1_0::Interceptor, v0_2_0::Interceptor, v0_3_0::Interceptor>;
/// A hook of any version.
pub(crate) type HookWorld = VersionedManaged<v0_1_0::Hook, v0_2_0::Hook, v0_3_0::Hook>;
/// A resolver of any version.
pub(crate) type ResolverWorld =
    VersionedManaged<v0_1_0::Resolver, v0_2_0::Resolver, v0_3_0::Resolver>;

impl<A: WorldBindings, B: WorldBindings, C: WorldBindings> VersionedManaged<A, B, C> {
    /// Link and initialise `component` with the bindings of `version`.
    pub(crate) fn load(
        version: WitVersion,
        name: &str,
        engine: &PluginEngine,
        component: &Component,
        limits: Limits,
        config: Vec<(String, String)>,
        wasi: WasiFactory,
    ) -> Result<Self, PluginError> {
        Ok(match version {
            WitVersion::V0_1 => {
                Self::V0_1(Managed::new(name, engine, component, limits, config, wasi)?)
            }
            WitVersion::V0_2 => {
                Self::V0_2(Managed::new(name, engine, component, limits, config, wasi)?)
            }
            WitVersion::V0_3 => {
                Self::V0_3(Managed::new(name, engine, component, limits, config, wasi)?)
            }
        })
    }

    /// Read and check the component at `path` (against `pin`) as a `world` component, then
    /// link and initialise it with no capabilities (interceptors and hooks).
    pub(crate) fn load_closed(
        engine: &PluginEngine,
        name: &str,
        path: &Path,
        pin: Option<&str>,
        world: World,
        limits: Limits,
        config: Vec<(String, String)>,
    ) -> Result<(ComponentInfo, Self), PluginError> {
        let (info, component) = load_file(engine, name, path, pin, world)?;
        let managed = Self::load(
            info.version,
            name,
            engine,
            &component,
            limits,
            config,
            no_capabilities(),
        )?;
        Ok((info, managed))
    }

    /// Drop the current instance; the next call runs on a fresh one.
    pub(crate) fn reset(&mut self) {
        match self {
            Self::V0_1(managed) => managed.reset(),
            Self::V0_2(managed) => managed.reset(),
            Self::V0_3(managed) => managed.reset(),
        }
    }
}

impl<A, B, C> Versioned<A, B, C> {
    /// The version of the loaded component.
    pub(crate) fn version(&self) -> WitVersion {
        match self {
            Self::V0_1(_) => WitVersion::V0_1,
            Self::V0_2(_) => WitVersion::V0_2,
            Self::V0_3(_) => WitVersion::V0_3,
        }
    }
}

/// A tool plugin's instance manager: tools exist from 0.2.0 on.
pub(crate) enum VersionedTool {
    /// Built for 0.2.0.
    V0_2(Managed<v0_2_0::ToolWorld>),
    /// Built for 0.3.0.
    V0_3(Managed<v0_3_0::ToolWorld>),
}

/// Runs `$body` with `$m` bound to the tool plugin's managed instance and `$conv` naming its
/// version's conversions.
macro_rules! each_tool_version {
    ($versioned:expr, $m:ident, $conv:ident => $body:expr) => {
        match $versioned {
            $crate::plugin::wit::VersionedTool::V0_2($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::wit::v0_2_0::convert as $conv;
                $body
            }
            $crate::plugin::wit::VersionedTool::V0_3($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::wit::v0_3_0::convert as $conv;
                $body
            }
        }
    };
}

pub(crate) use each_tool_version;

impl VersionedTool {
    /// Link and initialise a tool `component` with the bindings of `version`.
    pub(crate) fn load(
        version: WitVersion,
        name: &str,
        engine: &PluginEngine,
        component: &Component,
        limits: Limits,
        config: Vec<(String, String)>,
        wasi: WasiFactory,
    ) -> Result<Self, PluginError> {
        Ok(match version {
            WitVersion::V0_1 => {
                return Err(PluginError::Load {
                    plugin: name.to_owned(),
                    stage: "link",
                    message: "warden:plugin@0.1.0 has no tool world".to_owned(),
                });
            }
            WitVersion::V0_2 => {
                Self::V0_2(Managed::new(name, engine, component, limits, config, wasi)?)
            }
            WitVersion::V0_3 => {
                Self::V0_3(Managed::new(name, engine, component, limits, config, wasi)?)
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each file's bindings are those of its version, and `latest` is [`WitVersion::LATEST`].
    #[test]
    fn each_file_binds_its_version_and_latest_is_the_newest() {
        assert_eq!(
            <v0_1_0::Interceptor as WorldBindings>::VERSION,
            WitVersion::V0_1
        );
        assert_eq!(<v0_1_0::Hook as WorldBindings>::VERSION, WitVersion::V0_1);
        assert_eq!(
            <v0_1_0::Resolver as WorldBindings>::VERSION,
            WitVersion::V0_1
        );
        assert_eq!(
            <v0_2_0::Interceptor as WorldBindings>::VERSION,
            WitVersion::V0_2
        );
        assert_eq!(<v0_2_0::Hook as WorldBindings>::VERSION, WitVersion::V0_2);
        assert_eq!(
            <v0_2_0::Resolver as WorldBindings>::VERSION,
            WitVersion::V0_2
        );
        assert_eq!(
            <latest::ToolWorld as WorldBindings>::VERSION,
            WitVersion::LATEST
        );
        assert_eq!(
            <latest::Interceptor as WorldBindings>::VERSION,
            WitVersion::LATEST
        );
        assert_eq!(
            <v0_3_0::Interceptor as WorldBindings>::VERSION,
            WitVersion::V0_3
        );
        assert_eq!(<v0_3_0::Hook as WorldBindings>::VERSION, WitVersion::V0_3);
        assert_eq!(
            <v0_3_0::Resolver as WorldBindings>::VERSION,
            WitVersion::V0_3
        );
        assert_eq!(
            <v0_2_0::ToolWorld as WorldBindings>::VERSION,
            WitVersion::V0_2
        );
        let versions = [
            Versioned::<(), (), ()>::V0_1(()).version(),
            Versioned::<(), (), ()>::V0_2(()).version(),
            Versioned::<(), (), ()>::V0_3(()).version(),
        ];
        assert_eq!(versions, WitVersion::ALL);
    }
}
