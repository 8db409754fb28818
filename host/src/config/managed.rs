//! The managed layer's file: which one is in force, and reading it so that a policy that exists
//! but cannot be used stops warden instead of silently applying no policy.
//!
//! The system file ([`SYSTEM_MANAGED_PATH`]) always wins: while anything exists at that path,
//! `$WARDEN_MANAGED_CONFIG` is ignored (with a warning), so a user cannot replace or weaken the
//! operator's policy. Only where there is no system file may the variable name one.

use std::io::{ErrorKind, Read};
use std::path::{Path, PathBuf};

use serde::Serialize;
use sha2::{Digest, Sha256};

use super::error::ConfigError;

/// The system managed file.
pub const SYSTEM_MANAGED_PATH: &str = "/etc/warden/managed.toml";

/// The variable that may name a managed file where no system file exists.
pub const MANAGED_CONFIG_VAR: &str = "WARDEN_MANAGED_CONFIG";

/// Largest managed file read; a policy is a few kilobytes.
const MAX_MANAGED_BYTES: u64 = 1 << 20;

/// Which managed file is in force: what `warden doctor` and `warden config show` report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ManagedSource {
    /// The file read.
    pub path: PathBuf,
    /// sha256 (hex) of its bytes, as read.
    pub sha256: String,
    /// True for the system file, false for one named by `$WARDEN_MANAGED_CONFIG`.
    pub system: bool,
}

/// The managed path to read, whether it is the system one, and a warning when the variable
/// was ignored.
pub(crate) fn choose(
    system: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> (PathBuf, bool, Option<String>) {
    let named = env(MANAGED_CONFIG_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from);
    // Anything at the system path, even something unreadable, is the system policy: only a
    // path that certainly does not exist lets the variable choose.
    let system_absent = matches!(
        std::fs::symlink_metadata(system),
        Err(err) if err.kind() == ErrorKind::NotFound
    );
    match named {
        Some(named) if system_absent => (named, false, None),
        Some(named) if named != system => (
            system.to_owned(),
            true,
            Some(format!(
                "{MANAGED_CONFIG_VAR} is ignored: the system managed file {} is in force",
                system.display()
            )),
        ),
        _ => (system.to_owned(), true, None),
    }
}

/// The text of the managed file at `path`, `None` when nothing is there. Anything that exists
/// but is not a readable regular file of UTF-8 (a dangling symbolic link, a directory, a FIFO,
/// a file without read permission) is an error.
pub(crate) fn read(path: &Path) -> Result<Option<String>, ConfigError> {
    let unusable = |message: String| ConfigError::Unusable {
        path: path.to_owned(),
        message,
    };
    match std::fs::symlink_metadata(path) {
        Ok(_) => {}
        Err(err) if err.kind() == ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(unusable(err.to_string())),
    }
    let meta = std::fs::metadata(path).map_err(|err| {
        if err.kind() == ErrorKind::NotFound {
            unusable("a symbolic link to nothing".into())
        } else {
            unusable(err.to_string())
        }
    })?;
    if !meta.is_file() {
        return Err(unusable(
            "not a regular file (a directory, FIFO, socket or device)".into(),
        ));
    }
    let file = std::fs::File::open(path).map_err(|err| unusable(err.to_string()))?;
    let mut bytes = Vec::new();
    file.take(MAX_MANAGED_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|err| unusable(err.to_string()))?;
    if bytes.len() as u64 > MAX_MANAGED_BYTES {
        return Err(unusable(format!("larger than {MAX_MANAGED_BYTES} bytes")));
    }
    String::from_utf8(bytes)
        .map(Some)
        .map_err(|_| unusable("not UTF-8 text".into()))
}

/// The source record for managed `text` read from `path`.
pub(crate) fn source(path: &Path, text: &str, system: bool) -> ManagedSource {
    ManagedSource {
        path: path.to_owned(),
        sha256: hex::encode(Sha256::digest(text.as_bytes())),
        system,
    }
}
