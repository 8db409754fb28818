//! `[tools.shell]`: the built-in `shell` tool's deadline, network, sandbox, hidden paths and
//! extra environment variables, and how the layers may set them.
//!
//! Layering rules (a cloned repository must not loosen its own confinement):
//! - `hide` lists add up over every layer (the built-in list first); no layer removes a path;
//! - the project layer may not set `sandbox`, `network`, `allowed_hosts` or `unix_sockets`
//!   (ignored with a warning); a user-layer `unix_sockets` path outside managed policy's
//!   `policy.unix_sockets` is refused;
//! - `allowed_hosts` patterns are checked where written ([`HostPattern`]); under the managed
//!   ceiling `policy.shell_allowed_hosts`, a user-layer host outside it, or `network = true`, is
//!   refused (never narrowed);
//! - `env` names from the project layer must be listed in `policy.project_tool_grants.env`
//!   (`config/project_grants.rs`), and wait for trust like the project's code (the loader
//!   holds them back until then); `WARDEN_*` names are refused from every layer;
//! - `timeout_s` is clamped to [`MAX_SHELL_TIMEOUT_S`] (or `policy.max_shell_timeout_s`, if
//!   lower) with a warning; `sandbox = "none"` is an error when managed policy sets
//!   `allow_unsandboxed_shell = false`. Managed policy may lock any key
//!   (`tools.shell.network`, ...).

use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use super::error::ConfigError;
use super::load::LayerKind;
use super::schema::PolicyConfig;
use super::shell_hosts::{HostPattern, parse_host_patterns};

/// Deadline of one `shell` call when none is configured, in seconds.
pub const SHELL_TIMEOUT_S: u64 = 120;
/// Built-in ceiling on a `shell` call's deadline, in seconds.
pub const MAX_SHELL_TIMEOUT_S: u64 = 600;
/// Paths hidden from every `shell` command (`~` is the user's home).
pub const DEFAULT_HIDE: &[&str] = &[
    "~/.ssh",
    "~/.aws",
    "~/.gnupg",
    "~/.config/gcloud",
    "~/.netrc",
    "~/.docker",
    "~/.npmrc",
    "~/.pypirc",
    "~/.git-credentials",
    "~/.config/gh",
    "~/.config/hub",
    "~/.kube",
    "~/.cargo/credentials.toml",
    "~/.cargo/credentials",
    "~/.terraform.d/credentials.tfrc.json",
];

/// Whether `shell` runs in the sandbox.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ShellSandbox {
    /// Namespaces plus Landlock; when the kernel lacks a piece, `shell` is refused.
    #[default]
    Required,
    /// No confinement at all (the operator's explicit choice).
    None,
}

/// `[tools.shell]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ShellConfig {
    /// Deadline of one call, in seconds (the model may ask for less).
    pub timeout_s: u64,
    /// Whether commands may use the network (a new, empty network namespace otherwise).
    pub network: bool,
    /// Hosts commands may reach through warden's filtering HTTP proxy when `network` is false
    /// (`name`, `name:port`, `*.domain`; see [`HostPattern`]); empty: none.
    pub allowed_hosts: Vec<String>,
    /// Unix socket paths commands may connect to although no process of their sandbox
    /// listens there (absolute; none inside a workspace root); empty: none.
    pub unix_sockets: Vec<std::path::PathBuf>,
    /// `required` (default) or `none`.
    pub sandbox: ShellSandbox,
    /// Paths hidden from commands (`~/` is the home directory; relative paths are under each
    /// workspace root), besides the workspace's deny globs.
    pub hide: Vec<String>,
    /// Variable names passed to commands besides the built-in allowlist.
    pub env: Vec<String>,
    /// Point cargo, npm, pip and go at private caches of the workspace (the user's own are
    /// read, never written); `false` leaves their variables as the allowlist passes them.
    pub build_caches: bool,
}

impl Default for ShellConfig {
    fn default() -> Self {
        Self {
            timeout_s: SHELL_TIMEOUT_S,
            network: false,
            allowed_hosts: Vec::new(),
            unix_sockets: Vec::new(),
            sandbox: ShellSandbox::Required,
            hide: DEFAULT_HIDE.iter().map(|s| (*s).to_owned()).collect(),
            env: Vec::new(),
            build_caches: true,
        }
    }
}

/// What the layers said of `[tools.shell]` that is not a plain override.
#[derive(Debug, Default)]
pub(crate) struct ShellLayers {
    hide: Vec<String>,
    project_env: Vec<(String, std::path::PathBuf)>,
    /// The last non-managed layer file that set `allowed_hosts`, and the one that set `network`.
    hosts_from: Option<std::path::PathBuf>,
    network_from: Option<std::path::PathBuf>,
    /// The last non-managed layer file that set `unix_sockets`.
    sockets_from: Option<std::path::PathBuf>,
}

impl ShellLayers {
    /// Take from one layer's `table` what does not simply override: `hide` (added up), and
    /// from the project layer `sandbox` and `network` (dropped, with a warning) and `env`
    /// (remembered for [`ShellLayers::finish`]).
    pub(crate) fn take(
        &mut self,
        table: &mut Table,
        kind: LayerKind,
        path: &Path,
        warnings: &mut Vec<String>,
    ) -> Result<(), ConfigError> {
        let Some(Value::Table(shell)) = table
            .get_mut("tools")
            .and_then(|t| t.as_table_mut())
            .and_then(|t| t.get_mut("shell"))
        else {
            return Ok(());
        };
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            key: format!("tools.shell.{key}"),
            message,
        };
        let project = kind == LayerKind::Project;
        if let Some(hide) = shell.remove("hide") {
            let Value::Array(list) = hide else {
                return Err(invalid("hide", "expected an array of paths".into()));
            };
            for item in list {
                let Value::String(text) = item else {
                    return Err(invalid("hide", "expected an array of paths".into()));
                };
                if text.trim().is_empty() {
                    return Err(invalid("hide", "an empty path".into()));
                }
                if !self.hide.contains(&text) {
                    self.hide.push(text);
                }
            }
        }
        if let Some(Value::Array(list)) = shell.get("env") {
            for name in list.iter().filter_map(Value::as_str) {
                super::check_env_name(name).map_err(|why| invalid("env", why))?;
                if name.to_ascii_uppercase().starts_with("WARDEN_") {
                    return Err(invalid(
                        "env",
                        format!("`{name}`: warden's own variables are never passed to commands"),
                    ));
                }
                if project {
                    self.project_env.push((name.to_owned(), path.to_owned()));
                }
            }
        }
        if let Some(hosts) = shell.get("allowed_hosts") {
            let list: Option<Vec<String>> = hosts
                .as_array()
                .and_then(|list| list.iter().map(|v| v.as_str().map(str::to_owned)).collect());
            let list = list.ok_or_else(|| {
                invalid("allowed_hosts", "expected an array of host patterns".into())
            })?;
            parse_host_patterns(&list).map_err(|why| invalid("allowed_hosts", why))?;
        }
        if let Some(paths) = shell.get("unix_sockets") {
            let list: Option<Vec<std::path::PathBuf>> = paths.as_array().and_then(|list| {
                list.iter()
                    .map(|v| v.as_str().map(std::path::PathBuf::from))
                    .collect()
            });
            let list = list.ok_or_else(|| {
                invalid("unix_sockets", "expected an array of socket paths".into())
            })?;
            super::check_socket_paths(&list).map_err(|why| invalid("unix_sockets", why))?;
        }
        if project {
            for key in ["sandbox", "network", "allowed_hosts", "unix_sockets"] {
                if shell.remove(key).is_some() {
                    warnings.push(format!(
                        "{}: `tools.shell.{key}` cannot be set by a project (it would loosen the shell sandbox); the setting was ignored",
                        path.display()
                    ));
                }
            }
        } else if kind != LayerKind::Managed {
            if shell.contains_key("allowed_hosts") {
                self.hosts_from = Some(path.to_owned());
            }
            if shell.contains_key("network") {
                self.network_from = Some(path.to_owned());
            }
            if shell.contains_key("unix_sockets") {
                self.sockets_from = Some(path.to_owned());
            }
        } else {
            // The operator's own grants are not held to the operator's ceiling.
            if shell.contains_key("allowed_hosts") {
                self.hosts_from = None;
            }
            if shell.contains_key("network") {
                self.network_from = None;
            }
            if shell.contains_key("unix_sockets") {
                self.sockets_from = None;
            }
        }
        Ok(())
    }

    /// The merged `[tools.shell]` under `policy`: `hide` added up, project `env` names held to
    /// `policy.project_tool_grants.env`, the deadline clamped, `sandbox = "none"` refused where policy
    /// forbids it.
    pub(crate) fn finish(
        self,
        mut shell: ShellConfig,
        policy: &PolicyConfig,
        warnings: &mut Vec<String>,
    ) -> Result<ShellConfig, ConfigError> {
        for path in self.hide {
            if !shell.hide.contains(&path) {
                shell.hide.push(path);
            }
        }
        let allowed = policy
            .project_tool_grants
            .as_ref()
            .map(|g| g.env.as_slice())
            .unwrap_or_default();
        for (name, path) in self.project_env {
            if !allowed.contains(&name) {
                return Err(ConfigError::Invalid {
                    path,
                    key: "tools.shell.env".into(),
                    message: format!(
                        "the project layer passes {} to shell commands; a project may pass a variable only if `policy.project_tool_grants.env` (user or managed config) lists it (refused; grants are never narrowed silently)",
                        super::project_grants::env_grant(&name)
                    ),
                });
            }
        }
        let ceiling = timeout_ceiling_s(policy);
        if shell.timeout_s == 0 {
            return Err(ConfigError::Invalid {
                path: "(merged configuration)".into(),
                key: "tools.shell.timeout_s".into(),
                message: "must be at least 1 second".into(),
            });
        }
        if shell.timeout_s > ceiling {
            warnings.push(format!(
                "tools.shell.timeout_s = {} clamped to {ceiling} ({})",
                shell.timeout_s,
                super::ceilings::ceiling_source(
                    ceiling < MAX_SHELL_TIMEOUT_S,
                    "max_shell_timeout_s",
                    policy
                )
            ));
            shell.timeout_s = ceiling;
        }
        check_host_ceiling(&shell, policy, self.hosts_from, self.network_from)?;
        if let Some(path) = self.sockets_from
            && let Some(socket) =
                super::outside_ceiling(&shell.unix_sockets, policy.unix_sockets.as_deref())
        {
            return Err(ConfigError::Invalid {
                path,
                key: "tools.shell.unix_sockets".into(),
                message: format!(
                    "the user layer grants {}, outside the ceiling `policy.unix_sockets = {:?}` of managed policy; refused (grants are never narrowed silently)",
                    socket.display(),
                    policy.unix_sockets.as_deref().unwrap_or_default()
                ),
            });
        }
        if shell.sandbox == ShellSandbox::None && !policy.allow_unsandboxed_shell {
            return Err(ConfigError::Invalid {
                path: "(merged configuration)".into(),
                key: "tools.shell.sandbox".into(),
                message: "`none` is forbidden by managed policy (`policy.allow_unsandboxed_shell = false`)".into(),
            });
        }
        Ok(shell)
    }
}

/// Refuse a user-layer `allowed_hosts` entry outside managed policy's
/// `policy.shell_allowed_hosts`, and a user-layer `network = true` under such a ceiling.
fn check_host_ceiling(
    shell: &ShellConfig,
    policy: &PolicyConfig,
    hosts_from: Option<std::path::PathBuf>,
    network_from: Option<std::path::PathBuf>,
) -> Result<(), ConfigError> {
    let Some(ceiling) = &policy.shell_allowed_hosts else {
        return Ok(());
    };
    let patterns = parse_host_patterns(ceiling).map_err(|why| ConfigError::Invalid {
        path: "(managed configuration)".into(),
        key: "policy.shell_allowed_hosts".into(),
        message: why,
    })?;
    if let Some(path) = network_from
        && shell.network
    {
        return Err(ConfigError::Invalid {
            path,
            key: "tools.shell.network".into(),
            message: format!(
                "`network = true` grants every host, above the ceiling `policy.shell_allowed_hosts = {ceiling:?}` of managed policy; refused (grants are never narrowed silently): list the hosts in `tools.shell.allowed_hosts` instead"
            ),
        });
    }
    let Some(path) = hosts_from else {
        return Ok(());
    };
    for host in &shell.allowed_hosts {
        let pattern = HostPattern::parse(host).map_err(|why| ConfigError::Invalid {
            path: path.clone(),
            key: "tools.shell.allowed_hosts".into(),
            message: why,
        })?;
        if !patterns.iter().any(|c| pattern.within(c)) {
            return Err(ConfigError::Invalid {
                path,
                key: "tools.shell.allowed_hosts".into(),
                message: format!(
                    "the user layer grants {host:?}, outside the ceiling `policy.shell_allowed_hosts = {ceiling:?}` of managed policy; refused (grants are never narrowed silently)"
                ),
            });
        }
    }
    Ok(())
}

/// The ceiling on `tools.shell.timeout_s` under `policy`, in seconds.
pub fn timeout_ceiling_s(policy: &PolicyConfig) -> u64 {
    policy
        .max_shell_timeout_s
        .map_or(MAX_SHELL_TIMEOUT_S, |m| m.clamp(1, MAX_SHELL_TIMEOUT_S))
}

#[cfg(test)]
#[path = "shell_tests.rs"]
mod tests;
