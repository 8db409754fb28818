//! What a tool plugin, an MCP server or a shell command declared by the project layer may be
//! given without anyone's say: no environment variable and no host. The user (or the
//! operator, in the managed layer) allows more with `[policy.project_tool_grants]` (exact
//! variable names, exact hosts); that key is ignored, with a warning, when a project sets it.
//! A grant above this ceiling is refused, never narrowed, like one above
//! `policy.max_tool_grants`; a name that looks like a secret (`*_KEY`, `*_TOKEN`, `*_SECRET`,
//! `*_PASSWORD`, `*_CREDENTIALS`, any case) is said to be one in the refusal. No layer may
//! grant a variable the host sets in every plugin itself ([`HOST_SET_ENV`]).

use std::path::Path;

use serde::{Deserialize, Serialize};

use super::error::ConfigError;
use super::schema::{PluginKind, PluginSpec};

/// The variable the host sets in every plugin: the least severe log level it records.
pub const GUEST_LOG_LEVEL_ENV: &str = "WARDEN_LOG_LEVEL";

/// Variables the host sets in every plugin itself; a grant of one would show the plugin two
/// values.
pub const HOST_SET_ENV: &[&str] = &[GUEST_LOG_LEVEL_ENV];

/// Name endings (compared without regard to case) of variables that look like secrets: a
/// refusal of one says so.
pub const SECRET_SUFFIXES: &[&str] = &["_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_CREDENTIALS"];

/// `[policy.project_tool_grants]`, honoured from the user and managed layers: what a project's
/// tool plugins may be granted beyond the defaults. The managed layer's table, when it sets
/// one, replaces the user's.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct ProjectToolGrants {
    /// Variables a project's tools, MCP servers and shell commands may be given (exact names).
    pub env: Vec<String>,
    /// Hosts (`name` or `name:port`, exact) a project's tool may be allowed to reach.
    pub allowed_hosts: Vec<String>,
}

impl ProjectToolGrants {
    /// Check the table's own values (a malformed one is an error of its file).
    pub(crate) fn check(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |key: &str, message: String| ConfigError::Invalid {
            path: path.to_owned(),
            key: format!("policy.project_tool_grants.{key}"),
            message,
        };
        for host in &self.allowed_hosts {
            super::check_host(host).map_err(|why| invalid("allowed_hosts", why))?;
        }
        for name in &self.env {
            super::check_env_name(name).map_err(|why| invalid("env", why))?;
        }
        Ok(())
    }
}

/// Whether variable `name` looks like a secret.
pub fn looks_secret(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    SECRET_SUFFIXES.iter().any(|suffix| upper.ends_with(suffix))
}

/// Refuse a grant of a variable the host sets itself, from any layer.
pub(crate) fn check_host_set(spec: &PluginSpec, path: &Path) -> Result<(), ConfigError> {
    match spec
        .env
        .iter()
        .flatten()
        .find(|name| HOST_SET_ENV.contains(&name.as_str()))
    {
        None => Ok(()),
        Some(name) => Err(ConfigError::Invalid {
            path: path.to_owned(),
            key: format!("plugins.{}.env", spec.name),
            message: format!(
                "`{name}` is set by warden itself in every plugin; it cannot be granted (the plugin would see two values)"
            ),
        }),
    }
}

/// `env "NAME"`, said to look like a secret where it does.
pub(crate) fn env_grant(name: &str) -> String {
    if looks_secret(name) {
        format!(
            "env {name:?}, a name that looks like a secret (*{})",
            SECRET_SUFFIXES.join(", *")
        )
    } else {
        format!("env {name:?}")
    }
}

/// Refuse a project tool entry granted a variable or a host that `allowed`
/// (the user's or operator's `policy.project_tool_grants`) does not list. `user_file` is where
/// the person would allow it.
pub(crate) fn check_project_tool(
    spec: &PluginSpec,
    path: &Path,
    allowed: Option<&ProjectToolGrants>,
    user_file: &Path,
) -> Result<(), ConfigError> {
    if spec.kind != PluginKind::Tool {
        return Ok(());
    }
    let empty = ProjectToolGrants::default();
    let allowed = allowed.unwrap_or(&empty);
    let refused = |key: &str, what: String, user_key: &str| ConfigError::Invalid {
        path: path.to_owned(),
        key: format!("plugins.{}.{key}", spec.name),
        message: format!(
            "the project layer grants {what}; a project's tool plugin may have it only if you allow it: add it to `policy.project_tool_grants.{user_key}` in your user config {} (refused; grants are never narrowed silently)",
            user_file.display()
        ),
    };
    if let Some(name) = spec
        .env
        .iter()
        .flatten()
        .find(|name| !allowed.env.contains(name))
    {
        return Err(refused("env", env_grant(name), "env"));
    }
    if let Some(host) = spec
        .allowed_hosts
        .iter()
        .flatten()
        .find(|host| !allowed.allowed_hosts.contains(host))
    {
        return Err(refused(
            "allowed_hosts",
            format!("allowed_hosts {host:?}"),
            "allowed_hosts",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::path::PathBuf;

    use super::*;

    fn tool(env: &[&str], hosts: &[&str]) -> PluginSpec {
        toml::from_str::<PluginSpec>(&format!(
            "name = \"t\"\nkind = \"tool\"\npath = \"t.wasm\"\nenv = {env:?}\nallowed_hosts = {hosts:?}\n"
        ))
        .unwrap()
    }

    #[test]
    fn secret_names_are_recognised_in_any_case() {
        for secret in [
            "GITHUB_TOKEN",
            "api_key",
            "AWS_SECRET_ACCESS_KEY",
            "Db_Password",
            "GOOGLE_APPLICATION_CREDENTIALS",
            "X_SECRET",
        ] {
            assert!(looks_secret(secret), "{secret}");
        }
        for plain in ["HOME", "LANG", "KEYBOARD", "TOKENS_USED", "PATH"] {
            assert!(!looks_secret(plain), "{plain}");
        }
    }

    #[test]
    fn a_project_tool_gets_no_variable_and_no_host_unless_allowed() {
        let path = PathBuf::from("/w/.warden/config.toml");
        let user = PathBuf::from("/h/.config/warden/config.toml");
        assert!(check_project_tool(&tool(&[], &[]), &path, None, &user).is_ok());
        // Any variable, secret-looking or not, needs the user's say.
        let err = check_project_tool(&tool(&["DATABASE_URL"], &[]), &path, None, &user)
            .unwrap_err()
            .to_string();
        assert!(err.contains("env \"DATABASE_URL\";"), "{err}");
        let err = check_project_tool(&tool(&["GH_TOKEN"], &[]), &path, None, &user)
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("/w/.warden/config.toml: key `plugins.t.env`"),
            "{err}"
        );
        assert!(err.contains("policy.project_tool_grants.env"), "{err}");
        assert!(err.contains("/h/.config/warden/config.toml"), "{err}");
        let err = check_project_tool(&tool(&[], &["api.example.com"]), &path, None, &user)
            .unwrap_err()
            .to_string();
        assert!(err.contains("plugins.t.allowed_hosts"), "{err}");
        let allowed = ProjectToolGrants {
            env: vec!["GH_TOKEN".into()],
            allowed_hosts: vec!["api.example.com".into()],
        };
        assert!(
            check_project_tool(
                &tool(&["GH_TOKEN"], &["api.example.com"]),
                &path,
                Some(&allowed),
                &user
            )
            .is_ok()
        );
        // Exact names only: allowing one secret allows no other.
        assert!(
            check_project_tool(&tool(&["NPM_TOKEN"], &[]), &path, Some(&allowed), &user).is_err()
        );
    }

    #[test]
    fn a_variable_the_host_sets_cannot_be_granted() {
        let err = check_host_set(&tool(&["WARDEN_LOG_LEVEL"], &[]), Path::new("c.toml"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("plugins.t.env"), "{err}");
        assert!(err.contains("WARDEN_LOG_LEVEL"), "{err}");
        assert!(check_host_set(&tool(&["LANG"], &[]), Path::new("c.toml")).is_ok());
    }
}
