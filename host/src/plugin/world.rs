//! What a component is: the world it implements and the [`ComponentInfo`] that `inspect`
//! reads from it.

use std::fmt;

use super::version::WitVersion;

/// Which world a component implements, read from the interface it exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum World {
    /// Exports `warden:plugin/intercept`.
    Interceptor = 0,
    /// Exports `warden:plugin/observe`.
    Hook = 1,
    /// Exports `warden:plugin/resolve`.
    Resolver = 2,
    /// Exports `warden:plugin/act` (0.2.0 and later).
    Tool = 3,
}

impl World {
    /// How many worlds there are.
    pub(crate) const COUNT: usize = 4;

    /// The world whose interface `name` (`intercept`, …) is exported at `version`.
    pub(crate) fn from_interface(name: &str, version: WitVersion) -> Option<Self> {
        match name {
            "intercept" => Some(Self::Interceptor),
            "observe" => Some(Self::Hook),
            "resolve" => Some(Self::Resolver),
            "act" if version >= WitVersion::V0_2 => Some(Self::Tool),
            _ => None,
        }
    }

    /// The world's name in WIT.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Interceptor => "interceptor",
            Self::Hook => "hook",
            Self::Resolver => "resolver",
            Self::Tool => "tool",
        }
    }
}

impl fmt::Display for World {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `warden plugin check` reports about a component.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComponentInfo {
    /// World implemented.
    pub world: World,
    /// `warden:plugin` API version targeted (`0.1.0`, `0.2.0`, `0.3.0`), parsed once by inspection.
    pub version: WitVersion,
    /// sha256 of the bytes (hex): the plugin's identity.
    pub sha256: String,
    /// Size in bytes.
    pub size: usize,
    /// Import names.
    pub imports: Vec<String>,
    /// Export names.
    pub exports: Vec<String>,
}
