//! The `warden:plugin` API versions this host runs, read from the names a component exports
//! (`warden:plugin/intercept@0.1.0`). Each version has its own generated bindings and adapter
//! module (`v0_1`, `v0_2`); the adapters map both onto the same domain traits.

use std::fmt;
use std::path::Path;

use wasmtime::component::Component;

use super::engine::PluginEngine;
use super::error::PluginError;
use super::inspect::{ComponentInfo, World};
use super::instance::{Managed, WasiFactory, WorldBindings};
use super::limits::Limits;
use super::loader::load_file;
use super::state::no_capabilities;

/// A released `warden:plugin` version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WitVersion {
    /// `0.1.0`: interceptors, hooks, resolvers (frozen in `wit/released/0.1.0`).
    V0_1 = 0,
    /// `0.2.0`: adds the tool world, `pre-tool-call`/`post-tool-call` and tool decisions.
    V0_2 = 1,
}

impl WitVersion {
    /// Every version this host loads, oldest first.
    pub const ALL: [Self; 2] = [Self::V0_1, Self::V0_2];
    /// The newest version (what `warden plugin new` targets).
    pub const LATEST: Self = Self::V0_2;

    /// The version as written in WIT names (`0.2.0`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_1 => "0.1.0",
            Self::V0_2 => "0.2.0",
        }
    }

    /// The version written as `text`, if this host runs it.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|v| v.as_str() == text)
    }

    /// Supported versions as a list for messages (`0.1.0, 0.2.0`).
    pub fn supported() -> String {
        Self::ALL.map(Self::as_str).join(", ")
    }
}

impl fmt::Display for WitVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A loaded plugin's instance manager, of whichever version the component targets.
pub(crate) enum Versioned<A, B> {
    /// Built for 0.1.0.
    V0_1(A),
    /// Built for 0.2.0.
    V0_2(B),
}

/// Runs `$body` with `$m` bound to the version's managed instance and `$conv` naming that
/// version's conversions module (`v0_1::convert` or `v0_2::convert`), so one expression serves
/// every version.
macro_rules! each_version {
    ($versioned:expr, $m:ident, $conv:ident => $body:expr) => {
        match $versioned {
            $crate::plugin::version::Versioned::V0_1($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::v0_1::convert as $conv;
                $body
            }
            $crate::plugin::version::Versioned::V0_2($m) => {
                #[allow(unused_imports)]
                use $crate::plugin::v0_2::convert as $conv;
                $body
            }
        }
    };
}

pub(crate) use each_version;

/// The instance manager of a component of either version, chosen by `version`.
pub(crate) type VersionedManaged<A, B> = Versioned<Managed<A>, Managed<B>>;

impl<A: WorldBindings, B: WorldBindings> VersionedManaged<A, B> {
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
            info.wit_version(),
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
        }
    }
}

impl<A, B> Versioned<A, B> {
    /// The version of the loaded component.
    pub(crate) fn version(&self) -> WitVersion {
        match self {
            Self::V0_1(_) => WitVersion::V0_1,
            Self::V0_2(_) => WitVersion::V0_2,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_print() {
        assert_eq!(WitVersion::parse("0.1.0"), Some(WitVersion::V0_1));
        assert_eq!(WitVersion::parse("0.2.0"), Some(WitVersion::V0_2));
        assert_eq!(WitVersion::parse("0.3.0"), None);
        assert_eq!(WitVersion::parse(""), None);
        assert_eq!(WitVersion::supported(), "0.1.0, 0.2.0");
        assert_eq!(WitVersion::LATEST.to_string(), "0.2.0");
    }
}
