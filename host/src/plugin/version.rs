//! The `warden:plugin` API versions this host runs, read from the names a component exports
//! (`warden:plugin/intercept@0.1.0`). [`WitVersion`] is the host's only version constant: each
//! version has one file of generated bindings and conversions under `wit/`, and the rest of
//! the host names versions through this type only.

use std::fmt;

/// The package every plugin world belongs to.
pub(crate) const PACKAGE: &str = "warden:plugin";

/// A released `warden:plugin` version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum WitVersion {
    /// `0.1.0`: interceptors, hooks, resolvers (frozen in `wit/released/0.1.0`).
    V0_1 = 0,
    /// `0.2.0`: adds the tool world, `pre-tool-call`/`post-tool-call` and tool decisions.
    V0_2 = 1,
    /// `0.3.0`: adds the `on-compaction` point and `compacted` event; the submitted prompt is
    /// lent to the guest, resolver answers are bytes.
    V0_3 = 2,
}

impl WitVersion {
    /// Every version this host loads, oldest first.
    pub const ALL: [Self; 3] = [Self::V0_1, Self::V0_2, Self::V0_3];
    /// The newest version (what `warden plugin new` targets).
    pub const LATEST: Self = Self::V0_3;

    /// The version as written in WIT names (`0.2.0`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::V0_1 => "0.1.0",
            Self::V0_2 => "0.2.0",
            Self::V0_3 => "0.3.0",
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

    /// Supported versions as packages, for messages (`warden:plugin@0.1.0, warden:plugin@0.2.0`).
    pub(crate) fn supported_packages() -> String {
        Self::ALL.map(|v| format!("{PACKAGE}@{v}")).join(", ")
    }
}

impl fmt::Display for WitVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A version equals its written form (`0.1.0`).
impl PartialEq<&str> for WitVersion {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// Serialized as written in WIT names (`"0.2.0"`).
impl serde::Serialize for WitVersion {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_parse_and_print() {
        assert_eq!(WitVersion::parse("0.1.0"), Some(WitVersion::V0_1));
        assert_eq!(WitVersion::parse("0.2.0"), Some(WitVersion::V0_2));
        assert_eq!(WitVersion::parse("0.3.0"), Some(WitVersion::V0_3));
        assert_eq!(WitVersion::parse("0.4.0"), None);
        assert_eq!(WitVersion::parse(""), None);
        assert_eq!(WitVersion::supported(), "0.1.0, 0.2.0, 0.3.0");
        assert_eq!(WitVersion::LATEST.to_string(), "0.3.0");
    }

    #[test]
    fn versions_compare_and_serialize_as_written() {
        assert_eq!(WitVersion::V0_1, "0.1.0");
        assert_ne!(WitVersion::V0_2, "0.1.0");
        assert_eq!(
            serde_json::to_value(WitVersion::V0_2).ok(),
            Some(serde_json::json!("0.2.0"))
        );
        assert_eq!(
            WitVersion::supported_packages(),
            "warden:plugin@0.1.0, warden:plugin@0.2.0, warden:plugin@0.3.0"
        );
    }
}
