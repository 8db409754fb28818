//! `source = "oci://…"` in a `[[plugins]]` entry: the reference syntax, the rules an entry with
//! a source must follow, and where its component sits in the content-addressed cache
//! (`$WARDEN_HOME/plugins/oci/sha256/<hex>.wasm`).
//!
//! A reference is `oci://HOST[:PORT]/REPO[:TAG][@sha256:HEX]`. A configured source must carry
//! the digest (a tag alone could change under the person's feet); the tag, when present, is
//! the one `warden plugin update` re-resolves.

use std::fmt;
use std::net::IpAddr;
use std::path::{Path, PathBuf};

use super::error::ConfigError;
use super::schema::PluginSpec;

/// The scheme every source starts with.
pub const OCI_SCHEME: &str = "oci://";

/// A parsed `oci://` reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OciReference {
    /// `HOST` or `HOST:PORT` as written (an IPv6 host keeps its brackets).
    pub registry: String,
    /// The host alone, without brackets or port.
    pub host: String,
    /// The repository path (`team/plugins/kw`).
    pub repository: String,
    /// The tag, if any.
    pub tag: Option<String>,
    /// `sha256:<64 lowercase hex>`, if any.
    pub digest: Option<String>,
}

impl OciReference {
    /// Parse `oci://HOST[:PORT]/REPO[:TAG][@sha256:HEX]`; at least a tag or a digest.
    pub fn parse(text: &str) -> Result<Self, String> {
        let rest = text
            .strip_prefix(OCI_SCHEME)
            .ok_or_else(|| format!("{text:?} does not start with `{OCI_SCHEME}`"))?;
        let (registry, path) = rest
            .split_once('/')
            .ok_or_else(|| format!("{text:?} has no repository (oci://HOST/REPO:TAG)"))?;
        let host = parse_registry(registry).map_err(|why| format!("{text:?}: {why}"))?;
        let (name_tag, digest) = match path.split_once('@') {
            Some((name, digest)) => (
                name,
                Some(parse_digest(digest).map_err(|why| format!("{text:?}: {why}"))?),
            ),
            None => (path, None),
        };
        let last_slash = name_tag.rfind('/').map_or(0, |i| i + 1);
        let (repository, tag) = match name_tag[last_slash..].rfind(':') {
            Some(at) => {
                let at = last_slash + at;
                (&name_tag[..at], Some(&name_tag[at + 1..]))
            }
            None => (name_tag, None),
        };
        check_repository(repository).map_err(|why| format!("{text:?}: {why}"))?;
        if let Some(tag) = tag {
            check_tag(tag).map_err(|why| format!("{text:?}: {why}"))?;
        }
        if tag.is_none() && digest.is_none() {
            return Err(format!(
                "{text:?} names no tag or digest (oci://HOST/REPO:TAG or oci://HOST/REPO@sha256:…)"
            ));
        }
        Ok(Self {
            registry: registry.to_owned(),
            host,
            repository: repository.to_owned(),
            tag: tag.map(str::to_owned),
            digest,
        })
    }

    /// The last segment of the repository (`kw` for `team/kw`): a plugin's default name.
    pub fn last_segment(&self) -> &str {
        self.repository
            .rsplit('/')
            .next()
            .unwrap_or(&self.repository)
    }

    /// True when the registry is on this machine (`localhost`, `127.0.0.0/8`, `::1`): the only
    /// registries reached over plain HTTP.
    pub fn is_loopback(&self) -> bool {
        self.host.eq_ignore_ascii_case("localhost")
            || self.host.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
    }

    /// The same reference with `digest` (and the tag kept).
    pub fn with_digest(&self, digest: &str) -> Self {
        Self {
            digest: Some(digest.to_owned()),
            ..self.clone()
        }
    }

    /// The same reference without its tag.
    pub fn without_tag(&self) -> Self {
        Self {
            tag: None,
            ..self.clone()
        }
    }

    /// The same reference without its digest.
    pub fn without_digest(&self) -> Self {
        Self {
            digest: None,
            ..self.clone()
        }
    }

    /// The 64 hex digits of the digest, if any.
    pub fn digest_hex(&self) -> Option<&str> {
        self.digest
            .as_deref()
            .and_then(|d| d.strip_prefix("sha256:"))
    }
}

impl fmt::Display for OciReference {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{OCI_SCHEME}{}/{}", self.registry, self.repository)?;
        if let Some(tag) = &self.tag {
            write!(f, ":{tag}")?;
        }
        if let Some(digest) = &self.digest {
            write!(f, "@{digest}")?;
        }
        Ok(())
    }
}

/// `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`; the host alone.
fn parse_registry(registry: &str) -> Result<String, String> {
    let (host, port) = if let Some(rest) = registry.strip_prefix('[') {
        let (v6, after) = rest
            .split_once(']')
            .ok_or("an IPv6 registry needs its closing `]`")?;
        if v6.parse::<std::net::Ipv6Addr>().is_err() {
            return Err(format!("`{v6}` is not an IPv6 address"));
        }
        let port = match after {
            "" => None,
            p => Some(p.strip_prefix(':').ok_or("junk after the IPv6 address")?),
        };
        (v6, port)
    } else {
        match registry.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (registry, None),
        }
    };
    if host.is_empty() {
        return Err("the registry host is empty".into());
    }
    if !registry.starts_with('[')
        && !host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
    {
        return Err(format!("`{host}` is not a host name"));
    }
    if let Some(port) = port
        && !port.parse::<u16>().is_ok_and(|p| p > 0)
    {
        return Err(format!("`{port}` is not a port (1-65535)"));
    }
    Ok(host.to_owned())
}

/// `sha256:` and 64 lowercase hex digits.
fn parse_digest(digest: &str) -> Result<String, String> {
    let hex = digest
        .strip_prefix("sha256:")
        .ok_or_else(|| format!("digest `{digest}` is not `sha256:<64 hex digits>`"))?;
    if hex.len() != 64
        || !hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(format!(
            "digest `{digest}` is not `sha256:<64 lowercase hex digits>`"
        ));
    }
    Ok(digest.to_owned())
}

/// Lowercase path components of `[a-z0-9]` joined by `.`, `_`, `__` or `-`, separated by `/`.
fn check_repository(repository: &str) -> Result<(), String> {
    let component_ok = |c: &str| {
        !c.is_empty()
            && c.bytes().all(|b| {
                b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'.' || b == b'_' || b == b'-'
            })
            && c.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
            && c.bytes().last().is_some_and(|b| b.is_ascii_alphanumeric())
    };
    if repository.is_empty() || repository.len() > 255 || !repository.split('/').all(component_ok) {
        return Err(format!(
            "repository `{repository}` must be lowercase letters, digits and `._-`, in `/`-separated parts"
        ));
    }
    Ok(())
}

/// A word character, then up to 127 of `[A-Za-z0-9_.-]`.
fn check_tag(tag: &str) -> Result<(), String> {
    let ok = tag.len() <= 128
        && tag
            .bytes()
            .next()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        && tag
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "tag `{tag}` must be 1-128 characters of `[A-Za-z0-9_.-]`, not starting with `.` or `-`"
        ))
    }
}

/// The OCI cache directory under the state root: `$WARDEN_HOME/plugins/oci`, else
/// `$HOME/.local/state/warden/plugins/oci` (the state root's own rule; empty values count as
/// unset).
pub fn oci_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let set = |key: &str| env(key).filter(|v| !v.is_empty());
    let root = match set("WARDEN_HOME") {
        Some(root) => PathBuf::from(root),
        None => PathBuf::from(set("HOME")?)
            .join(".local")
            .join("state")
            .join("warden"),
    };
    let root = std::path::absolute(&root).unwrap_or(root);
    Some(root.join("plugins").join("oci"))
}

/// Where the component with sha256 `hex` sits in the cache at `dir`.
pub fn cached_component(dir: &Path, hex: &str) -> PathBuf {
    dir.join("sha256").join(format!("{hex}.wasm"))
}

/// Check the `path` / `source` / `sha256` keys of an entry declared in `file`; for an entry
/// with a source, the cache file its component is read from.
pub fn check_spec(spec: &PluginSpec, file: &Path) -> Result<Option<PathBuf>, ConfigError> {
    let invalid = |key: &str, message: String| ConfigError::Invalid {
        path: file.to_owned(),
        key: format!("plugins.{}.{key}", spec.name),
        message,
    };
    let has_path = !spec.path.as_os_str().is_empty();
    let Some(source) = &spec.source else {
        if has_path {
            return Ok(None);
        }
        return Err(invalid(
            "path",
            "a plugin needs `path` (a component file) or `source` (oci://…@sha256:…)".into(),
        ));
    };
    if has_path {
        return Err(invalid("source", "set `path` or `source`, not both".into()));
    }
    let reference = OciReference::parse(source).map_err(|why| invalid("source", why))?;
    if reference.digest.is_none() {
        return Err(invalid(
            "source",
            format!(
                "{source:?} names a tag, not a digest: a configured source must be pinned \
                 (`warden plugin add {source}` writes `oci://…:TAG@sha256:…`)"
            ),
        ));
    }
    let Some(pin) = spec
        .sha256
        .as_deref()
        .filter(|p| p.len() == 64 && p.bytes().all(|b| b.is_ascii_hexdigit()))
    else {
        return Err(invalid(
            "sha256",
            "a plugin with a `source` needs the `sha256` of its component (64 hex digits): its \
             cache file is found by it"
                .into(),
        ));
    };
    let dir = oci_cache_dir(&|key| std::env::var(key).ok()).ok_or_else(|| {
        invalid(
            "source",
            "no state directory for the plugin cache: set WARDEN_HOME (or HOME)".into(),
        )
    })?;
    Ok(Some(cached_component(&dir, &pin.to_ascii_lowercase())))
}

#[cfg(test)]
#[path = "plugin_source_tests.rs"]
mod tests;
