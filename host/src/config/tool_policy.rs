//! Tool-plugin grants against policy: grant keys only on `kind = "tool"` entries, their values
//! well formed, and no grant above the ceiling `policy.max_tool_grants` sets. A grant above the
//! ceiling is refused, never narrowed: a tool that silently lost access would fail in ways its
//! user cannot explain, and a refusal names the layer and the key to fix.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::grants::FsGrant;
use super::schema::{PluginKind, PluginSpec};

/// The most any user or project tool plugin may be granted (`policy.max_tool_grants`). An
/// unset key sets no ceiling on that grant; `allowed_hosts = []` and `env = []` forbid the grant
/// altogether. Tool plugins the managed layer declares are not held to it: the operator wrote
/// their grants.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ToolGrantCeiling {
    /// Highest file-system grant (`none` < `read` < `read-write`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fs: Option<FsGrant>,
    /// The only hosts a tool may be allowed to reach (exact `name` or `name:port`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allowed_hosts: Option<Vec<String>>,
    /// The only environment variables a tool may be passed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub env: Option<Vec<String>>,
}

impl ToolGrantCeiling {
    /// The tighter of two ceilings (policy from any layer only tightens): the lower `fs`, and
    /// the hosts and variables both allow.
    pub fn tighten(a: Option<Self>, b: Option<Self>) -> Option<Self> {
        let (a, b) = match (a, b) {
            (Some(a), Some(b)) => (a, b),
            (a, b) => return a.or(b),
        };
        let both = |x: Option<Vec<String>>, y: Option<Vec<String>>| match (x, y) {
            (Some(x), Some(y)) => Some(x.into_iter().filter(|v| y.contains(v)).collect()),
            (x, y) => x.or(y),
        };
        Some(Self {
            fs: match (a.fs, b.fs) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            },
            allowed_hosts: both(a.allowed_hosts, b.allowed_hosts),
            env: both(a.env, b.env),
        })
    }

    /// Check the ceiling's own values (a malformed ceiling is an error of its file).
    pub(crate) fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            key: format!("policy.max_tool_grants.{key}"),
            message,
        };
        for host in self.allowed_hosts.iter().flatten() {
            check_host(host).map_err(|why| invalid("allowed_hosts", why))?;
        }
        for name in self.env.iter().flatten() {
            check_env_name(name).map_err(|why| invalid("env", why))?;
        }
        Ok(())
    }
}

/// The grant keys a `[[plugins]]` entry may carry only when it is a tool.
const GRANT_KEYS: &[&str] = &["fs", "allowed_hosts", "env", "approve"];

impl ToolGrantCeiling {
    /// One warning per non-managed file whose own ceiling grants more than the one in force
    /// (`from` as [`PolicyConfig::max_tool_grants_from`](super::PolicyConfig) holds it): the
    /// two were intersected, which the person is told rather than left to find out.
    pub(crate) fn looser_warnings(
        in_force: Option<&Self>,
        from: &[(PathBuf, bool, Self)],
    ) -> Vec<String> {
        let Some(in_force) = in_force else {
            return Vec::new();
        };
        let shown = serde_json::to_string(in_force).unwrap_or_default();
        from.iter()
            .filter(|(_, managed, own)| {
                !managed && Self::tighten(Some(own.clone()), Some(in_force.clone())).as_ref() != Some(own)
            })
            .map(|(path, _, _)| {
                format!(
                    "{}: `policy.max_tool_grants` grants more than the ceiling another layer sets; the two were intersected and the tighter applies: {shown}",
                    path.display()
                )
            })
            .collect()
    }
}

/// Check one entry as written in `path`: grant keys only on tools, hosts and variable names
/// well formed.
pub(crate) fn check_spec(spec: &PluginSpec, path: &Path) -> Result<(), ConfigError> {
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: format!("plugins.{}.{key}", spec.name),
        message,
    };
    if spec.kind != PluginKind::Tool {
        let set = [
            spec.fs.is_some(),
            spec.allowed_hosts.is_some(),
            spec.env.is_some(),
            spec.approve.is_some(),
        ];
        if let Some(key) = GRANT_KEYS.iter().zip(set).find(|(_, s)| *s).map(|(k, _)| k) {
            let kind = match spec.kind {
                PluginKind::Interceptor => "an interceptor",
                PluginKind::Hook => "a hook",
                PluginKind::Tool => "a tool",
            };
            return Err(invalid(
                key,
                format!(
                    "plugin `{}` is {kind}: `{key}` is only valid on `kind = \"tool\"` entries",
                    spec.name
                ),
            ));
        }
        return Ok(());
    }
    for host in spec.allowed_hosts.iter().flatten() {
        check_host(host).map_err(|why| invalid("allowed_hosts", why))?;
    }
    for name in spec.env.iter().flatten() {
        check_env_name(name).map_err(|why| invalid("env", why))?;
    }
    super::project_grants::check_host_set(spec, path)
}

/// Refuse a tool entry of a user or project `layer` whose grants exceed `ceiling`, or any such
/// entry under `managed_tools_only`. Managed tool entries are not checked.
pub(crate) fn check_against_policy(
    spec: &PluginSpec,
    layer: &str,
    path: &Path,
    ceiling: Option<&ToolGrantCeiling>,
    set_in: &[PathBuf],
    managed_tools_only: bool,
) -> Result<(), ConfigError> {
    let set_in = if set_in.is_empty() {
        String::new()
    } else {
        let files: Vec<String> = set_in.iter().map(|p| p.display().to_string()).collect();
        format!(", set in {}", files.join(" and "))
    };
    if spec.kind != PluginKind::Tool || layer == "managed" {
        return Ok(());
    }
    let refused = |key: &str, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: format!("plugins.{}{key}", spec.name),
        message,
    };
    if managed_tools_only {
        return Err(refused(
            "",
            format!(
                "tool plugin `{}` from the {layer} layer refused: managed policy allows managed tools only (`policy.managed_tools_only`)",
                spec.name
            ),
        ));
    }
    let Some(ceiling) = ceiling else {
        return Ok(());
    };
    if let (Some(max), Some(fs)) = (ceiling.fs, spec.fs)
        && fs > max
    {
        return Err(refused(
            ".fs",
            format!(
                "the {layer} layer grants fs = \"{}\", above the ceiling `policy.max_tool_grants.fs = \"{}\"`{set_in}; refused (grants are never narrowed silently)",
                fs.as_str(),
                max.as_str()
            ),
        ));
    }
    let over = |key: &str, asked: &Option<Vec<String>>, allowed: &Option<Vec<String>>| {
        let (Some(asked), Some(allowed)) = (asked, allowed) else {
            return Ok(());
        };
        match asked.iter().find(|v| !allowed.contains(v)) {
            None => Ok(()),
            Some(value) => Err(refused(
                &format!(".{key}"),
                format!(
                    "the {layer} layer grants {key} {value:?}, outside the ceiling `policy.max_tool_grants.{key} = {allowed:?}`{set_in}; refused (grants are never narrowed silently)"
                ),
            )),
        }
    };
    over("allowed_hosts", &spec.allowed_hosts, &ceiling.allowed_hosts)?;
    over("env", &spec.env, &ceiling.env)
}

/// A host as `allowed_hosts` takes it: `name` or `name:port`, a DNS name or IPv4 address of
/// labels `[A-Za-z0-9-]`; no scheme, path, user or wildcard.
pub fn check_host(host: &str) -> Result<(), String> {
    let (name, port) = match host.rsplit_once(':') {
        Some((name, port)) => (name, Some(port)),
        None => (host, None),
    };
    if let Some(port) = port
        && !matches!(port.parse::<u16>(), Ok(p) if p > 0 && !port.starts_with('0'))
    {
        return Err(format!(
            "{host:?}: the port must be a number from 1 to 65535 (write `name` or `name:port`, without a scheme or path)"
        ));
    }
    let label_ok = |l: &str| {
        !l.is_empty()
            && l.len() <= 63
            && !l.starts_with('-')
            && !l.ends_with('-')
            && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if name.is_empty() || name.len() > 253 || !name.split('.').all(label_ok) {
        return Err(format!(
            "{host:?} is not a host: write `name` or `name:port` (no scheme, path, user or wildcard)"
        ));
    }
    Ok(())
}

/// An environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
pub fn check_env_name(name: &str) -> Result<(), String> {
    let mut bytes = name.bytes();
    let first_ok = bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_');
    if first_ok && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not an environment variable name ([A-Za-z_][A-Za-z0-9_]*)"
        ))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn hosts_are_names_with_an_optional_port_and_nothing_else() {
        for ok in [
            "api.example.com",
            "localhost:8080",
            "127.0.0.1:443",
            "a-b.c",
        ] {
            assert!(check_host(ok).is_ok(), "{ok}");
        }
        for bad in [
            "https://api.example.com",
            "api.example.com/v1",
            "*.example.com",
            "user@host",
            "host:0",
            "host:65536",
            "host:",
            "",
            "-a.com",
            "a..com",
            "[::1]:80",
        ] {
            assert!(check_host(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn env_names_are_identifiers() {
        assert!(check_env_name("GITHUB_TOKEN").is_ok());
        assert!(check_env_name("_x1").is_ok());
        for bad in ["", "1A", "A-B", "A=B", "A B"] {
            assert!(check_env_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn ceilings_only_tighten() {
        let a = ToolGrantCeiling {
            fs: Some(FsGrant::ReadWrite),
            allowed_hosts: Some(vec!["a.com".into(), "b.com".into()]),
            env: None,
        };
        let b = ToolGrantCeiling {
            fs: Some(FsGrant::Read),
            allowed_hosts: Some(vec!["b.com".into(), "c.com".into()]),
            env: Some(vec![]),
        };
        let both = ToolGrantCeiling::tighten(Some(a.clone()), Some(b)).unwrap();
        assert_eq!(both.fs, Some(FsGrant::Read));
        assert_eq!(both.allowed_hosts, Some(vec!["b.com".to_owned()]));
        assert_eq!(both.env, Some(vec![]));
        assert_eq!(ToolGrantCeiling::tighten(Some(a.clone()), None), Some(a));
    }
}
