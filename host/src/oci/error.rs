//! Why a registry operation or the cache failed, each naming the reference or file.

use std::path::PathBuf;

/// One way pushing, resolving, fetching or caching a plugin failed.
#[derive(Debug, thiserror::Error)]
pub enum OciError {
    /// `--plain-http` asked for a registry that is not on this machine.
    #[error(
        "{registry}: plain HTTP is only used for a registry on this machine (localhost, 127.0.0.1, ::1); any other registry is reached over HTTPS"
    )]
    PlainHttpRefused {
        /// `HOST[:PORT]`.
        registry: String,
    },
    /// The registry could not be reached (refused, no such host, TLS failure, timeout).
    #[error("registry {registry} cannot be reached: {message}")]
    Unreachable {
        /// `HOST[:PORT]`.
        registry: String,
        /// What failed.
        message: String,
    },
    /// 401 or 403.
    #[error(
        "registry {registry} refused access ({status}) to {reference}: {credentials}; set WARDEN_REGISTRY_USER and WARDEN_REGISTRY_PASSWORD and add `[registries.hosts.\"{registry}\"]` to your user config, or log in with `docker login {registry}`"
    )]
    Denied {
        /// `HOST[:PORT]`.
        registry: String,
        /// The reference asked for.
        reference: String,
        /// `401 Unauthorized` or `403 Forbidden`.
        status: String,
        /// Which credentials were sent (never the secret).
        credentials: String,
    },
    /// No manifest (or repository) under that tag or digest.
    #[error("{reference}: not found in the registry (no such repository, tag or digest)")]
    NotFound {
        /// The reference asked for.
        reference: String,
    },
    /// The manifest is not a wasm component artifact.
    #[error("{reference}: not a wasm component artifact: {found}")]
    NotWasm {
        /// The reference asked for.
        reference: String,
        /// What it is instead.
        found: String,
    },
    /// Bytes whose digest is not the one asked for.
    #[error("{what}: digest mismatch: expected {expected}, got {actual}")]
    DigestMismatch {
        /// Which manifest or layer.
        what: String,
        /// The digest asked for.
        expected: String,
        /// The digest of what arrived.
        actual: String,
    },
    /// The layer is larger than the component size cap.
    #[error(
        "{reference}: its component is {size} bytes, over the {max}-byte cap (policy.max_component_mb)"
    )]
    TooLarge {
        /// The reference asked for.
        reference: String,
        /// Its size.
        size: u64,
        /// The cap.
        max: u64,
    },
    /// A response body past its cap (a manifest, a token, …); nothing more was read.
    #[error(
        "registry {registry}: {what} is larger than {}, the cap on it; nothing more was read", mib(*max)
    )]
    ResponseTooLarge {
        /// `HOST[:PORT]`.
        registry: String,
        /// What was being fetched.
        what: String,
        /// The cap, in bytes.
        max: u64,
    },
    /// A request that did not finish within the deadline.
    #[error(
        "registry {registry}: {what} did not finish within {seconds} s (registries.deadline_s = {seconds}); nothing was changed"
    )]
    Deadline {
        /// `HOST[:PORT]`.
        registry: String,
        /// What was being fetched.
        what: String,
        /// The deadline.
        seconds: u64,
    },
    /// A request during which nothing arrived for the idle timeout.
    #[error(
        "registry {registry}: {what}: nothing arrived for {seconds} s (registries.idle_timeout_s = {seconds}); nothing was changed"
    )]
    Idle {
        /// `HOST[:PORT]`.
        registry: String,
        /// What was being fetched.
        what: String,
        /// The idle timeout.
        seconds: u64,
    },
    /// Credentials could not be read.
    #[error("{}: {message}", path.display())]
    Credentials {
        /// The Docker config file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The cache could not be written or read.
    #[error("plugin cache {}: {message}", path.display())]
    Cache {
        /// File or directory.
        path: PathBuf,
        /// What failed.
        message: String,
    },
    /// The registry answered something else that cannot be used.
    #[error("{reference}: {message}")]
    Registry {
        /// The reference asked for.
        reference: String,
        /// What the registry or client said.
        message: String,
    },
}

impl OciError {
    /// True when the person must change something (a reference, credentials, a flag) rather
    /// than retry later: exit 2 rather than 1.
    pub fn is_usage(&self) -> bool {
        match self {
            Self::PlainHttpRefused { .. }
            | Self::Denied { .. }
            | Self::NotFound { .. }
            | Self::NotWasm { .. }
            | Self::TooLarge { .. }
            | Self::Credentials { .. } => true,
            Self::Unreachable { .. }
            | Self::ResponseTooLarge { .. }
            | Self::Deadline { .. }
            | Self::Idle { .. }
            | Self::DigestMismatch { .. }
            | Self::Cache { .. }
            | Self::Registry { .. } => false,
        }
    }
}

/// `bytes` as `4 MiB` when a whole number of MiB, else `N bytes`.
fn mib(bytes: u64) -> String {
    if bytes >= 1 << 20 && bytes.is_multiple_of(1 << 20) {
        format!("{} MiB", bytes >> 20)
    } else {
        format!("{bytes} bytes")
    }
}
