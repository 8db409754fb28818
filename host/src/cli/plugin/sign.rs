//! `warden plugin sign FILE --key KEY [-o OUT]`: embed an Ed25519 signature in a component
//! (replacing an earlier one), in place (atomically) or into OUT.

use std::io::Write;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::Path;

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::signature::{parse_secret_key, sign};
use crate::plugin::{MAX_COMPONENT_BYTES, read_component, sha256_hex};

/// Sign `file` with the secret key in `key`; write to `out` or back to `file`.
pub(crate) fn sign_file(file: &Path, key: &Path, out: Option<&Path>) -> Result<u8, CliError> {
    let secret = std::fs::read(key)
        .map_err(|err| CliError::usage(format!("{}: cannot read key: {err}", key.display())))?;
    let key_pair = parse_secret_key(&secret)
        .map_err(|why| CliError::usage(format!("{}: {why}", key.display())))?;
    let bytes = read_component(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let signed = sign(&bytes, &key_pair)
        .map_err(|why| CliError::usage(format!("{}: {why}", file.display())))?;
    let target = out.unwrap_or(file);
    write_component(target, &signed)?;
    outln!(
        "signed {} with key {} (sha256 {})",
        target.display(),
        key_pair.fingerprint(),
        sha256_hex(&signed)
    );
    Ok(EXIT_OK)
}

/// Write `bytes` to `path` through a new temporary file beside it and a rename, so that a
/// reader sees the old file or the new one, never a part; an existing file's mode is kept.
pub(super) fn write_component(path: &Path, bytes: &[u8]) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", path.display()));
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| CliError::usage(format!("{}: not a file name", path.display())))?;
    let mode = std::fs::metadata(path).ok().map(|m| m.permissions().mode());
    let temp = dir.join(format!(
        ".{}.{:08x}.warden-tmp",
        name.to_string_lossy(),
        fastrand::u32(..)
    ));
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o644)
            .custom_flags(libc::O_NOFOLLOW)
            .open(&temp)?;
        file.write_all(bytes)?;
        if let Some(mode) = mode {
            file.set_permissions(std::fs::Permissions::from_mode(mode & 0o7777))?;
        }
        file.sync_all()?;
        drop(file);
        std::fs::rename(&temp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written.map_err(fail)
}
