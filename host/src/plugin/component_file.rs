//! Component bytes: reading a component file (only a regular file, and never more than the
//! maximum component size), their sha256, and the built-in resolver's bytes. A FIFO, a device,
//! a socket or a directory is refused before it is read, so that a plugin path naming
//! `/dev/zero` or a FIFO cannot hang warden or exhaust its memory.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::error::PluginError;
use crate::config::MAX_COMPONENT_MB;

/// The default (and largest) component size read, in bytes.
pub const MAX_COMPONENT_BYTES: u64 = MAX_COMPONENT_MB << 20;

/// The built-in resolver component, compiled from `plugins/file-ref` at build time.
pub static BUILTIN_RESOLVER: &[u8] = include_bytes!(env!("WARDEN_FILE_REF_WASM"));

/// Hex sha256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}

/// The bytes of the component at `path`, which must be a regular file of at most `max_bytes`.
pub fn read_component(path: &Path, max_bytes: u64) -> Result<Vec<u8>, PluginError> {
    let refused = |reason: String| PluginError::Refused {
        what: path.display().to_string(),
        reason,
    };
    let read_err = |source| PluginError::Read {
        path: path.to_owned(),
        source,
    };
    let not_regular = || {
        refused(
            "not a regular file (a FIFO, device, socket or directory is never read as a plugin)"
                .into(),
        )
    };
    let too_large = || {
        refused(format!(
            "larger than the {} MiB maximum component size",
            max_bytes >> 20
        ))
    };
    // Checked before opening: opening a FIFO for reading would wait for a writer.
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    if meta.len() > max_bytes {
        return Err(too_large());
    }
    // Non-blocking open, then checked again on the handle: a FIFO swapped in after the check
    // neither blocks the open nor gets read.
    let file: File = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if !meta.is_file() {
        return Err(not_regular());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len().min(max_bytes)).unwrap_or(0));
    file.take(max_bytes.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(read_err)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large());
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[test]
    fn only_regular_files_within_the_cap_are_read() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("c.wasm");
        std::fs::write(&file, b"0123456789").unwrap();
        assert_eq!(read_component(&file, 10).unwrap(), b"0123456789");
        let err = read_component(&file, 9).unwrap_err().to_string();
        assert!(err.contains("maximum component size"), "{err}");
        let err = read_component(dir.path(), 10).unwrap_err().to_string();
        assert!(err.contains("not a regular file"), "{err}");
        let err = read_component(Path::new("/dev/zero"), 10)
            .unwrap_err()
            .to_string();
        assert!(err.contains("not a regular file"), "{err}");
    }
}
