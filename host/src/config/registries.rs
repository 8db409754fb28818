//! `[registries]`: the OCI registries credentials may be sent to, and the limits on every
//! registry request.
//!
//! ```toml
//! [registries]
//! deadline_s = 120      # one request (a manifest, a token, a component) from start to end
//! idle_timeout_s = 30   # no byte for this long ends a request
//!
//! [registries.hosts."ghcr.io"]            # WARDEN_REGISTRY_USER / _PASSWORD go here
//! [registries.hosts."registry.example:5000"]
//! username_env = "TEAM_REGISTRY_USER"     # or these variables
//! password_env = "TEAM_REGISTRY_TOKEN"
//! ```
//!
//! Only the user and managed layers may set it: a project that sets it is ignored with a
//! warning (a cloned repository must not direct the person's credentials to a host it names).

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::{Table, Value};

use super::error::ConfigError;
use super::load::LayerKind;

/// The variable holding the user name sent to a configured registry, unless one is named.
pub const REGISTRY_USER_ENV: &str = "WARDEN_REGISTRY_USER";
/// The variable holding the password sent to a configured registry, unless one is named.
pub const REGISTRY_PASSWORD_ENV: &str = "WARDEN_REGISTRY_PASSWORD";
/// Default deadline of one registry request, in seconds.
pub const REGISTRY_DEADLINE_S: u64 = 120;
/// Default idle timeout of one registry request, in seconds.
pub const REGISTRY_IDLE_TIMEOUT_S: u64 = 30;

/// `[registries]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegistriesConfig {
    /// Seconds one request (a manifest, a token, a component) may take from start to end.
    pub deadline_s: u64,
    /// Seconds without a byte after which a request ends.
    pub idle_timeout_s: u64,
    /// The registries (`HOST` or `HOST:PORT`, as in `oci://` references) credentials are
    /// sent to.
    pub hosts: BTreeMap<String, RegistryHost>,
}

impl Default for RegistriesConfig {
    fn default() -> Self {
        Self {
            deadline_s: REGISTRY_DEADLINE_S,
            idle_timeout_s: REGISTRY_IDLE_TIMEOUT_S,
            hosts: BTreeMap::new(),
        }
    }
}

impl RegistriesConfig {
    /// The entry for `registry` (`HOST[:PORT]`, compared without regard to case).
    pub fn host(&self, registry: &str) -> Option<&RegistryHost> {
        self.hosts
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(registry))
            .map(|(_, host)| host)
    }
}

/// `[registries.hosts."HOST[:PORT]"]`: where the credentials for that registry come from.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RegistryHost {
    /// The variable holding the user name (default `WARDEN_REGISTRY_USER`).
    pub username_env: Option<String>,
    /// The variable holding the password or token (default `WARDEN_REGISTRY_PASSWORD`).
    pub password_env: Option<String>,
}

impl RegistryHost {
    /// The user-name variable.
    pub fn user_var(&self) -> &str {
        self.username_env.as_deref().unwrap_or(REGISTRY_USER_ENV)
    }

    /// The password variable.
    pub fn password_var(&self) -> &str {
        self.password_env
            .as_deref()
            .unwrap_or(REGISTRY_PASSWORD_ENV)
    }
}

/// Take `[registries]` out of a project layer's `table` (with a warning), and check it in the
/// other layers: host names, variable names, non-zero limits.
pub(crate) fn take(
    table: &mut Table,
    kind: LayerKind,
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<(), ConfigError> {
    let why = "it would direct your registry credentials to hosts the project names";
    if super::user_only::drop_from_project(table, kind, path, "registries", why, warnings) {
        return Ok(());
    }
    let Some(Value::Table(registries)) = table.get("registries") else {
        return Ok(());
    };
    let invalid = |key: String, message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key,
        message,
    };
    for key in ["deadline_s", "idle_timeout_s"] {
        if registries.get(key).and_then(Value::as_integer) == Some(0) {
            return Err(invalid(
                format!("registries.{key}"),
                "must be at least 1 second".into(),
            ));
        }
    }
    if let Some(Value::Table(hosts)) = registries.get("hosts") {
        for (name, entry) in hosts {
            let at = format!("registries.hosts.\"{name}\"");
            let probe = format!("{}{name}/probe:1", super::OCI_SCHEME);
            if super::OciReference::parse(&probe).is_err() {
                return Err(invalid(
                    at,
                    "not a registry: HOST or HOST:PORT, as in oci://HOST[:PORT]/REPO".into(),
                ));
            }
            for var in ["username_env", "password_env"] {
                if let Some(value) = entry.get(var).and_then(Value::as_str) {
                    super::check_env_name(value)
                        .map_err(|why| invalid(format!("{at}.{var}"), why))?;
                }
            }
        }
    }
    Ok(())
}
