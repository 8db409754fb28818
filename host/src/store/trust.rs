//! The trust file, `$WARDEN_HOME/trust.json`: which workspace roots the person trusts to run
//! the code their project configuration declares, and what exactly was trusted.
//!
//! ```json
//! {"format": "warden-trust", "version": 1,
//!  "workspaces": {"/abs/root": {"digest": "<sha256 hex>", "trusted_at": "<RFC 3339>",
//!                               "declared": [ {"id": "plugin:x", "kind": "tool", "value": {…}} ]}}}
//! ```
//!
//! The file is replaced atomically (temp file, fsync, rename, directory fsync), under an
//! exclusive lock on `trust.lock` so that concurrent updates keep each other's records. One that cannot
//! be parsed, or is of another format or version, is an error naming it
//! ([`StoreError::TrustFile`]) and never counts as trusting anything; it is not overwritten.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::StoreError;
use super::fsio::{format_ts, now, write_atomic};
use super::home::Home;

/// The trust file's name under the state root.
pub const TRUST_FILE: &str = "trust.json";
/// The lock file held while the trust file is updated.
const TRUST_LOCK_FILE: &str = "trust.lock";
/// The format name in the file.
pub const TRUST_FORMAT: &str = "warden-trust";
/// The version this build reads and writes.
pub const TRUST_VERSION: u32 = 1;

/// Largest trust file read (each trusted workspace takes a few kilobytes).
const MAX_TRUST_BYTES: u64 = 16 << 20;

/// What was trusted for one workspace root.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TrustRecord {
    /// The digest of the declarations trusted.
    pub digest: String,
    /// When (RFC 3339, UTC).
    pub trusted_at: String,
    /// The declarations trusted, each `{id, kind, value}`: kept to show what changed.
    pub declared: Vec<serde_json::Value>,
}

impl TrustRecord {
    /// A record made now.
    pub fn now(digest: String, declared: Vec<serde_json::Value>) -> Self {
        Self {
            digest,
            trusted_at: format_ts(now()),
            declared,
        }
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFileBody {
    format: String,
    version: u32,
    workspaces: BTreeMap<PathBuf, TrustRecord>,
}

/// The trusted workspaces, as read from the trust file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Trusted {
    workspaces: BTreeMap<PathBuf, TrustRecord>,
}

impl Trusted {
    /// The path of the trust file under `home`.
    pub fn path(home: &Home) -> PathBuf {
        home.root().join(TRUST_FILE)
    }

    /// Read the trust file of `home` (absent: nothing is trusted).
    pub fn read(home: &Home) -> Result<Self, StoreError> {
        let path = Self::path(home);
        let bad = |reason: String| StoreError::TrustFile {
            path: path.clone(),
            reason,
        };
        let meta = match std::fs::metadata(&path) {
            Ok(meta) => meta,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Self::default()),
            Err(err) => return Err(bad(err.to_string())),
        };
        if !meta.is_file() {
            return Err(bad("not a regular file".into()));
        }
        if meta.len() > MAX_TRUST_BYTES {
            return Err(bad(format!("larger than {MAX_TRUST_BYTES} bytes")));
        }
        let bytes = std::fs::read(&path).map_err(|err| bad(err.to_string()))?;
        let body: TrustFileBody =
            serde_json::from_slice(&bytes).map_err(|err| bad(err.to_string()))?;
        if body.format != TRUST_FORMAT || body.version != TRUST_VERSION {
            return Err(bad(format!(
                "format {:?} version {} (this warden reads {TRUST_FORMAT:?} version {TRUST_VERSION})",
                body.format, body.version
            )));
        }
        Ok(Self {
            workspaces: body.workspaces,
        })
    }

    /// What was trusted for `root`, if anything.
    pub fn get(&self, root: &Path) -> Option<&TrustRecord> {
        self.workspaces.get(root)
    }

    /// Record `record` for `root` in the trust file of `home` (read again first, so that a
    /// corrupt file is never overwritten).
    pub fn record(home: &Home, root: &Path, record: TrustRecord) -> Result<(), StoreError> {
        let _lock = update_lock(home)?;
        let mut trusted = Self::read(home)?;
        trusted.workspaces.insert(root.to_owned(), record);
        trusted.write(home)
    }

    /// Remove the trust of `root`; false when it was not trusted.
    pub fn revoke(home: &Home, root: &Path) -> Result<bool, StoreError> {
        let _lock = update_lock(home)?;
        let mut trusted = Self::read(home)?;
        if trusted.workspaces.remove(root).is_none() {
            return Ok(false);
        }
        trusted.write(home)?;
        Ok(true)
    }

    fn write(self, home: &Home) -> Result<(), StoreError> {
        let path = Self::path(home);
        let body = TrustFileBody {
            format: TRUST_FORMAT.into(),
            version: TRUST_VERSION,
            workspaces: self.workspaces,
        };
        let mut bytes = serde_json::to_vec_pretty(&body).map_err(|source| StoreError::Encode {
            path: path.clone(),
            source,
        })?;
        bytes.push(b'\n');
        std::fs::create_dir_all(home.root()).map_err(StoreError::io("create", home.root()))?;
        write_atomic(home.root(), TRUST_FILE, &bytes)
    }
}

/// An exclusive lock on `trust.lock` beside the trust file, held while it is read, changed and
/// replaced, so that two processes trusting at once both keep their record. Released when the
/// returned file is dropped (or the process dies).
fn update_lock(home: &Home) -> Result<std::fs::File, StoreError> {
    let path = home.root().join(TRUST_LOCK_FILE);
    std::fs::create_dir_all(home.root()).map_err(StoreError::io("create", home.root()))?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(StoreError::io("open lock file", &path))?;
    file.lock().map_err(StoreError::io("lock", &path))?;
    Ok(file)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn trust_is_recorded_read_back_and_revoked() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path().join("state"));
        assert_eq!(Trusted::read(&home).unwrap(), Trusted::default());
        let root = Path::new("/w/repo");
        let record = TrustRecord::now("ab".repeat(32), vec![serde_json::json!({"id": "plugin:x"})]);
        Trusted::record(&home, root, record.clone()).unwrap();
        Trusted::record(&home, Path::new("/w/other"), record.clone()).unwrap();
        let read = Trusted::read(&home).unwrap();
        assert_eq!(read.get(root), Some(&record));
        assert!(Trusted::revoke(&home, root).unwrap());
        assert!(!Trusted::revoke(&home, root).unwrap());
        let read = Trusted::read(&home).unwrap();
        assert_eq!(read.get(root), None);
        assert!(read.get(Path::new("/w/other")).is_some());
    }

    #[test]
    fn concurrent_records_keep_each_other() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        std::thread::scope(|scope| {
            for i in 0..8 {
                let home = &home;
                scope.spawn(move || {
                    let root = PathBuf::from(format!("/w/{i}"));
                    Trusted::record(home, &root, TrustRecord::now(i.to_string(), Vec::new()))
                        .unwrap();
                });
            }
        });
        let read = Trusted::read(&home).unwrap();
        for i in 0..8 {
            assert!(read.get(&PathBuf::from(format!("/w/{i}"))).is_some(), "{i}");
        }
    }

    #[test]
    fn a_corrupt_file_is_an_error_naming_it_and_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::new(dir.path());
        let path = Trusted::path(&home);
        for bad in [
            &b"{not json"[..],
            br#"{"format":"other","version":1,"workspaces":{}}"#,
            br#"{"format":"warden-trust","version":9,"workspaces":{}}"#,
        ] {
            std::fs::write(&path, bad).unwrap();
            let err = Trusted::read(&home).unwrap_err().to_string();
            assert!(err.contains(&path.display().to_string()), "{err}");
            assert!(err.contains("no workspace is trusted"), "{err}");
            let record = TrustRecord::now("00".into(), Vec::new());
            assert!(Trusted::record(&home, Path::new("/w"), record).is_err());
            assert_eq!(std::fs::read(&path).unwrap(), bad);
        }
    }
}
