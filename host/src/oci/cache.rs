//! The content-addressed cache of pulled components: `<dir>/sha256/<hex>.wasm`, where `dir`
//! is `$WARDEN_HOME/plugins/oci`. A file is written through a temporary file and renamed,
//! only once its bytes hash to its name; a load reads it with no network.

use std::io::Write;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use super::error::OciError;
use crate::config::{cached_component, oci_cache_dir};

/// The cache directory.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

impl Cache {
    /// The cache at `dir`.
    pub fn at(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The cache under the state root the environment names (`$WARDEN_HOME`, else
    /// `~/.local/state/warden`).
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Self, OciError> {
        oci_cache_dir(env)
            .map(Self::at)
            .ok_or_else(|| OciError::Cache {
                path: PathBuf::from("$WARDEN_HOME/plugins/oci"),
                message: "no state directory: set WARDEN_HOME (or HOME)".into(),
            })
    }

    /// The directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Where the component with sha256 `hex` is (or would be) kept.
    pub fn component(&self, hex: &str) -> PathBuf {
        cached_component(&self.dir, hex)
    }

    /// Whether a file for sha256 `hex` is in the cache (`hex` being 64 lowercase hex digits:
    /// a name read from a config file never reaches outside the cache).
    pub fn holds(&self, hex: &str) -> bool {
        is_sha256_hex(hex) && self.component(hex).is_file()
    }

    /// The cached component with sha256 `hex`, if present and intact.
    pub fn read(&self, hex: &str) -> Option<Vec<u8>> {
        if !is_sha256_hex(hex) {
            return None;
        }
        let bytes = std::fs::read(self.component(hex)).ok()?;
        (hex::encode(Sha256::digest(&bytes)) == hex).then_some(bytes)
    }

    /// Keep `bytes`, whose sha256 must be `hex`; returns the file.
    pub fn store(&self, hex: &str, bytes: &[u8]) -> Result<PathBuf, OciError> {
        let actual = hex::encode(Sha256::digest(bytes));
        if actual != hex {
            return Err(OciError::DigestMismatch {
                what: "component for the cache".into(),
                expected: format!("sha256:{hex}"),
                actual: format!("sha256:{actual}"),
            });
        }
        let file = self.component(hex);
        let dir = file.parent().unwrap_or(&self.dir).to_owned();
        let fail = |path: &Path, err: std::io::Error| OciError::Cache {
            path: path.to_owned(),
            message: err.to_string(),
        };
        std::fs::create_dir_all(&dir).map_err(|err| fail(&dir, err))?;
        // A name of its own per process, so that two concurrent pulls never share one.
        let tmp = dir.join(format!(".{hex}.{}.tmp", std::process::id()));
        let written = std::fs::File::create(&tmp)
            .and_then(|mut out| out.write_all(bytes).and_then(|()| out.sync_all()))
            .and_then(|()| std::fs::rename(&tmp, &file));
        if let Err(err) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(fail(&file, err));
        }
        Ok(file)
    }
}

/// 64 lowercase hex digits.
fn is_sha256_hex(hex: &str) -> bool {
    hex.len() == 64
        && hex
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn stores_only_bytes_that_match_their_name_and_reads_them_back() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::at(dir.path().join("oci"));
        let hex = hex::encode(Sha256::digest(b"component"));
        let file = cache.store(&hex, b"component").unwrap();
        assert_eq!(
            file,
            dir.path()
                .join("oci")
                .join("sha256")
                .join(format!("{hex}.wasm"))
        );
        assert_eq!(cache.read(&hex).as_deref(), Some(&b"component"[..]));
        let err = cache.store(&hex, b"other").unwrap_err().to_string();
        assert!(err.contains("digest mismatch"), "{err}");
        std::fs::write(&file, b"tampered").unwrap();
        assert_eq!(cache.read(&hex), None);
        assert!(cache.holds(&hex));
        assert!(!cache.holds("../../../etc/passwd"));
        assert_eq!(cache.read("../sha256/x"), None);
        // Nothing but the one file is left behind.
        assert_eq!(
            std::fs::read_dir(file.parent().unwrap()).unwrap().count(),
            1
        );
    }
}
