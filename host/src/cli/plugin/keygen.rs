//! `warden plugin keygen DIR`: a new Ed25519 key pair for signing plugins,
//! `DIR/warden-signing.key` (secret, mode 0600) and `DIR/warden-signing.pub`. An existing key
//! is never overwritten.

use std::io::Write;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::signature::{generate_key_pair, parse_secret_key};

/// File name of the secret key.
pub(super) const SECRET_FILE: &str = "warden-signing.key";
/// File name of the public key.
pub(super) const PUBLIC_FILE: &str = "warden-signing.pub";

/// Write a new key pair into `dir` (created if missing).
pub(crate) fn keygen(dir: &Path) -> Result<u8, CliError> {
    std::fs::create_dir_all(dir)
        .map_err(|err| CliError::usage(format!("{}: {err}", dir.display())))?;
    let secret_path = dir.join(SECRET_FILE);
    let public_path = dir.join(PUBLIC_FILE);
    for path in [&secret_path, &public_path] {
        if std::fs::symlink_metadata(path).is_ok() {
            return Err(CliError::usage(format!(
                "{}: already exists; refusing to overwrite a key (move it away first)",
                path.display()
            )));
        }
    }
    let (secret, public) = generate_key_pair();
    let fingerprint = parse_secret_key(secret.as_bytes())
        .map_err(CliError::failure)?
        .fingerprint();
    write_new(&secret_path, secret.as_bytes(), 0o600)?;
    write_new(&public_path, public.as_bytes(), 0o644)?;
    outln!(
        "secret key:  {} (mode 0600; keep it private)",
        secret_path.display()
    );
    outln!("public key:  {}", public_path.display());
    outln!("fingerprint: {fingerprint}");
    outln!(
        "trust it with `trusted_keys = [\"{}\"]` under [policy] in the managed file",
        public.trim()
    );
    Ok(EXIT_OK)
}

/// Create `path` exclusively (never through a symlink, never over a file) with `mode`.
fn write_new(path: &Path, bytes: &[u8], mode: u32) -> Result<(), CliError> {
    let fail = |err: std::io::Error| CliError::failure(format!("{}: {err}", path.display()));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path)
        .map_err(|err| {
            if err.kind() == std::io::ErrorKind::AlreadyExists {
                CliError::usage(format!(
                    "{}: already exists; refusing to overwrite a key",
                    path.display()
                ))
            } else {
                fail(err)
            }
        })?;
    file.write_all(bytes).map_err(fail)?;
    file.sync_all().map_err(fail)
}
