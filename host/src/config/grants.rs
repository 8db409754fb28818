//! What a tool plugin may reach: its [`ToolGrants`], written as explicit keys of its
//! `[[plugins]]` entry, nothing by default, and whether a person approves each call
//! ([`Approve`]).

use serde::{Deserialize, Serialize};

/// File-system access of a tool plugin over the workspace roots (a WASI preopen with these
/// permissions, or none at all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FsGrant {
    /// No file system: the plugin cannot open any file.
    #[default]
    None,
    /// The workspace roots, read-only.
    Read,
    /// The workspace roots, read and write.
    ReadWrite,
}

impl FsGrant {
    /// The grant as `fs = "…"` spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Read => "read",
            Self::ReadWrite => "read-write",
        }
    }

    /// The grant `fs = "…"` names, if any.
    pub fn parse(text: &str) -> Option<Self> {
        [Self::None, Self::Read, Self::ReadWrite]
            .into_iter()
            .find(|grant| grant.as_str() == text)
    }
}

/// Everything a tool plugin is granted. The default grants nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolGrants {
    /// File-system access over the workspace roots.
    pub fs: FsGrant,
    /// Hosts (`name` or `name:port`) outgoing HTTP may reach, through the host.
    pub allowed_hosts: Vec<String>,
    /// Names of environment variables passed in.
    pub env: Vec<String>,
}

/// Whether a person approves each call of a tool plugin's tools.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Approve {
    /// Calls run without asking (interceptors still judge them).
    #[default]
    Never,
    /// Each call waits for the person's yes (chat), or is denied unless `--yes` (run).
    Ask,
    /// The first call naming a host (its `url` argument's) in a session waits for the
    /// person's yes; later calls to that host run unasked. A call without such a host asks.
    PerHost,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `as_str` and `parse` spell each grant as a config file does.
    #[test]
    fn fs_grant_spelled_as_the_config_spells_it() {
        #[derive(Deserialize)]
        struct Entry {
            fs: FsGrant,
        }
        for grant in [FsGrant::None, FsGrant::Read, FsGrant::ReadWrite] {
            let text = format!("fs = {:?}", grant.as_str());
            let entry: Entry = toml::from_str(&text).unwrap();
            assert_eq!(entry.fs, grant, "{text}");
            assert_eq!(FsGrant::parse(grant.as_str()), Some(grant));
        }
        assert_eq!(FsGrant::parse("write"), None);
        assert_eq!(FsGrant::parse("Read"), None);
    }
}
