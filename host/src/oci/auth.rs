//! Registry credentials, only ever for a registry someone named for them: for a registry under
//! `[registries.hosts]` (user or managed config), the variables its entry names
//! (`WARDEN_REGISTRY_USER` and `WARDEN_REGISTRY_PASSWORD` by default) when both are set; else
//! the `auths` entry for the registry in the Docker config (`$DOCKER_CONFIG/config.json`, else
//! `~/.docker/config.json`), which is per host already; else anonymous. The secrets themselves
//! never come from warden's config files, which may sit in a repository.
//!
//! The `WARDEN_REGISTRY_*` pair is never sent to a registry that is not configured for it: the
//! lookup says so ([`Lookup::note`]), naming the entry that would send it.

use std::path::PathBuf;

use base64::Engine as _;

use super::error::OciError;
use crate::config::{REGISTRY_PASSWORD_ENV, REGISTRY_USER_ENV, RegistriesConfig};

/// What is sent to the registry.
#[derive(Clone, PartialEq, Eq)]
pub enum Credentials {
    /// No credentials.
    Anonymous,
    /// HTTP basic (or exchanged for a token where the registry asks for one).
    Basic {
        /// User name.
        user: String,
        /// Password or token.
        password: String,
        /// Where they came from, for messages.
        from: String,
    },
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Credentials {
    /// Which credentials these are, without the secret.
    pub fn describe(&self) -> String {
        match self {
            Self::Anonymous => "no credentials were sent".into(),
            Self::Basic { user, from, .. } => format!("user {user:?} from {from}"),
        }
    }
}

/// The credentials found for a registry, and what the person should be told.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// What is sent.
    pub credentials: Credentials,
    /// Set when the `WARDEN_REGISTRY_*` pair was left unsent because the registry is not
    /// configured for it: the warning, with the fix.
    pub note: Option<String>,
}

/// The credentials for `registry` (`HOST[:PORT]`) under `registries`.
pub fn lookup_credentials(
    registry: &str,
    registries: &RegistriesConfig,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Lookup, OciError> {
    let set = |key: &str| env(key).filter(|v| !v.is_empty());
    let found = |credentials| Lookup {
        credentials,
        note: None,
    };
    if let Some(host) = registries.host(registry)
        && let (Some(user), Some(password)) = (set(host.user_var()), set(host.password_var()))
    {
        return Ok(found(Credentials::Basic {
            user,
            password,
            from: format!("{} ([registries.hosts.\"{registry}\"])", host.user_var()),
        }));
    }
    let docker = docker_config(registry, &set)?;
    let bare_pair = set(REGISTRY_USER_ENV).is_some() && set(REGISTRY_PASSWORD_ENV).is_some();
    let note = (bare_pair
        && registries.host(registry).is_none()
        && docker == Credentials::Anonymous)
        .then(|| {
            format!(
                "{REGISTRY_USER_ENV} and {REGISTRY_PASSWORD_ENV} are not sent to {registry}: no registry is configured for them there; to send them, add `[registries.hosts.\"{registry}\"]` to your user config"
            )
        });
    Ok(Lookup {
        credentials: docker,
        note,
    })
}

/// The Docker config's credentials for `registry`, or anonymous.
fn docker_config(
    registry: &str,
    set: &dyn Fn(&str) -> Option<String>,
) -> Result<Credentials, OciError> {
    let file = match set("DOCKER_CONFIG") {
        Some(dir) => PathBuf::from(dir).join("config.json"),
        None => match set("HOME") {
            Some(home) => PathBuf::from(home).join(".docker").join("config.json"),
            None => return Ok(Credentials::Anonymous),
        },
    };
    let text = match std::fs::read_to_string(&file) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {
            return Ok(Credentials::Anonymous);
        }
        Err(err) => {
            return Err(OciError::Credentials {
                path: file,
                message: err.to_string(),
            });
        }
    };
    from_docker_config(&text, registry, &file)
}

/// The `auths` entry of a Docker config for `registry`; keys may carry a scheme and a path
/// (`https://index.docker.io/v1/`).
fn from_docker_config(
    text: &str,
    registry: &str,
    file: &std::path::Path,
) -> Result<Credentials, OciError> {
    let bad = |message: String| OciError::Credentials {
        path: file.to_owned(),
        message,
    };
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|err| bad(format!("not JSON: {err}")))?;
    let Some(auths) = value.get("auths").and_then(serde_json::Value::as_object) else {
        return Ok(Credentials::Anonymous);
    };
    let key_host = |key: &str| {
        let key = key
            .strip_prefix("https://")
            .or_else(|| key.strip_prefix("http://"))
            .unwrap_or(key);
        key.split('/').next().unwrap_or(key).to_owned()
    };
    let Some((key, entry)) = auths
        .iter()
        .find(|(key, _)| key_host(key).eq_ignore_ascii_case(registry))
    else {
        return Ok(Credentials::Anonymous);
    };
    let from = format!("{} (auths.{key:?})", file.display());
    let text_of = |name: &str| {
        entry
            .get(name)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
    };
    if let Some(encoded) = text_of("auth") {
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded.trim())
            .map_err(|err| bad(format!("auths.{key:?}.auth is not base64: {err}")))?;
        let decoded = String::from_utf8(decoded)
            .map_err(|_| bad(format!("auths.{key:?}.auth is not UTF-8 text")))?;
        let (user, password) = decoded.split_once(':').ok_or_else(|| {
            bad(format!(
                "auths.{key:?}.auth is not `user:password` in base64"
            ))
        })?;
        return Ok(Credentials::Basic {
            user: user.to_owned(),
            password: password.to_owned(),
            from,
        });
    }
    match (text_of("username"), text_of("password")) {
        (Some(user), Some(password)) => Ok(Credentials::Basic {
            user: user.to_owned(),
            password: password.to_owned(),
            from,
        }),
        _ => Err(bad(format!(
            "auths.{key:?} has neither `auth` nor `username` and `password` (credential helpers are not read)"
        ))),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn lookup(
        registry: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Credentials, OciError> {
        lookup_credentials(registry, &RegistriesConfig::default(), env).map(|l| l.credentials)
    }

    fn basic(c: &Credentials) -> (String, String) {
        match c {
            Credentials::Basic { user, password, .. } => (user.clone(), password.clone()),
            Credentials::Anonymous => panic!("anonymous"),
        }
    }

    #[test]
    fn environment_comes_first_then_the_docker_config() {
        let dir = tempfile::tempdir().unwrap();
        let docker = dir.path().join("docker");
        std::fs::create_dir_all(&docker).unwrap();
        // "alice:s3cr:et" — a password may hold colons.
        std::fs::write(
            docker.join("config.json"),
            r#"{"auths":{"https://127.0.0.1:5000/v1/":{"auth":"YWxpY2U6czNjcjpldA=="},
                "other.example":{"username":"bob","password":"pw"}}}"#,
        )
        .unwrap();
        let docker_dir = docker.to_string_lossy().into_owned();
        let env = |k: &str| (k == "DOCKER_CONFIG").then(|| docker_dir.clone());
        let c = lookup("127.0.0.1:5000", &env).unwrap();
        assert_eq!(basic(&c), ("alice".into(), "s3cr:et".into()));
        assert!(!c.describe().contains("s3cr"), "{}", c.describe());
        assert!(format!("{c:?}").contains("alice"));
        assert!(!format!("{c:?}").contains("s3cr"));
        assert_eq!(
            basic(&lookup("other.example", &env).unwrap()),
            ("bob".into(), "pw".into())
        );
        assert_eq!(
            lookup("127.0.0.1:5001", &env).unwrap(),
            Credentials::Anonymous
        );
        let both = |k: &str| match k {
            "WARDEN_REGISTRY_USER" => Some("u".to_owned()),
            "WARDEN_REGISTRY_PASSWORD" => Some("p".to_owned()),
            "DOCKER_CONFIG" => Some(docker_dir.clone()),
            _ => None,
        };
        // The pair goes only where it is configured; elsewhere the Docker config answers.
        assert_eq!(
            basic(&lookup("127.0.0.1:5000", &both).unwrap()),
            ("alice".into(), "s3cr:et".into())
        );
        let mut registries = RegistriesConfig::default();
        registries.hosts.insert(
            "127.0.0.1:5000".into(),
            crate::config::RegistryHost::default(),
        );
        let found = lookup_credentials("127.0.0.1:5000", &registries, &both).unwrap();
        assert_eq!(basic(&found.credentials), ("u".into(), "p".into()));
        assert_eq!(found.note, None);
        let elsewhere = lookup_credentials("evil.example", &registries, &both).unwrap();
        assert_eq!(elsewhere.credentials, Credentials::Anonymous);
        let note = elsewhere.note.unwrap();
        assert!(
            note.contains("[registries.hosts.\"evil.example\"]"),
            "{note}"
        );
    }

    #[test]
    fn home_docker_config_and_broken_files() {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().to_string_lossy().into_owned();
        let env = |k: &str| (k == "HOME").then(|| home.clone());
        assert_eq!(lookup("r.example", &env).unwrap(), Credentials::Anonymous);
        std::fs::create_dir_all(dir.path().join(".docker")).unwrap();
        let file = dir.path().join(".docker").join("config.json");
        std::fs::write(&file, r#"{"auths":{"r.example":{"auth":"bm9jb2xvbg=="}}}"#).unwrap();
        let err = lookup("r.example", &env).unwrap_err().to_string();
        assert!(err.contains("user:password"), "{err}");
        assert!(err.contains("config.json"), "{err}");
        std::fs::write(&file, "{").unwrap();
        assert!(
            lookup("r.example", &env)
                .unwrap_err()
                .to_string()
                .contains("not JSON")
        );
        std::fs::write(
            &file,
            r#"{"auths":{"r.example":{}},"credsStore":"desktop"}"#,
        )
        .unwrap();
        assert!(
            lookup("r.example", &env)
                .unwrap_err()
                .to_string()
                .contains("credential helpers")
        );
    }
}
