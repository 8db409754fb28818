//! Signed chain heads: `warden audit sign [ID] [--all] [-C DIR] --key SECRET` signs the head
//! of each intact audit log with an operator's Ed25519 key (the plugin-signing key format of
//! `warden plugin keygen`) into `sessions/<id>/audit.sig`; `warden audit verify --key PUB`
//! then also requires each log to hold its signed head.

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::signature::{self, TrustedKey};
use crate::store::{self, ChainBreak, ChainHead, ChainReport, Home};

/// The signature file of a session's chain head.
#[derive(Debug, Serialize, Deserialize)]
struct SignedHead {
    session: String,
    seq: u64,
    hash: String,
    /// Fingerprint of the public key.
    key: String,
    /// Ed25519 signature of [`store::head_message`], base64.
    signature: String,
}

fn sig_path(home: &Home, id: &str) -> Result<PathBuf, CliError> {
    let audit = home
        .audit_path(id)
        .map_err(|err| CliError::failure(err.to_string()))?;
    Ok(audit.with_file_name("audit.sig"))
}

/// Sign the head of each session's intact log in `checked`; exit 1 when one cannot be.
pub(crate) fn sign(
    home: &Home,
    checked: &[(String, ChainReport)],
    key_file: &Path,
) -> Result<u8, CliError> {
    let bytes = fs::read(key_file)
        .map_err(|e| CliError::usage(format!("--key {}: {e}", key_file.display())))?;
    let key = signature::parse_secret_key(&bytes)
        .map_err(|e| CliError::usage(format!("--key {}: {e}", key_file.display())))?;
    let mut code = EXIT_OK;
    for (id, report) in checked {
        let head = match (&report.broken, &report.head) {
            (None, Some(head)) => head,
            (Some(broken), _) => {
                outln!("{id}: not signed: the log is broken: {broken}");
                code = EXIT_FAILURE;
                continue;
            }
            (None, None) => {
                outln!("{id}: not signed: {} (no chain head)", report.status());
                continue;
            }
        };
        let signed = SignedHead {
            session: id.clone(),
            seq: head.seq,
            hash: head.hash.clone(),
            key: key.fingerprint(),
            signature: signature::sign_message(&store::head_message(id, head), &key),
        };
        let path = sig_path(home, id)?;
        let text = serde_json::to_string(&signed)
            .map_err(|e| CliError::failure(format!("{}: {e}", path.display())))?;
        fs::write(&path, text + "\n")
            .map_err(|e| CliError::failure(format!("cannot write {}: {e}", path.display())))?;
        outln!(
            "{id}: signed record {} (head {}) with key {}",
            head.seq,
            head.hash.get(..16).unwrap_or(&head.hash),
            signed.key
        );
    }
    Ok(code)
}

/// The public key `--key` names: a key file, or an inline `ed25519:BASE64`.
pub(crate) fn public_key(entry: &str) -> Result<TrustedKey, CliError> {
    signature::trusted_key(entry).map_err(|e| CliError::usage(format!("--key: {e}")))
}

/// The head session `id`'s `audit.sig` names, signed by `key`; or the problem with the
/// signature (missing, unreadable, another key's or another session's).
pub(crate) fn signed_head(
    home: &Home,
    id: &str,
    key: &TrustedKey,
) -> Result<Result<ChainHead, ChainBreak>, CliError> {
    let path = sig_path(home, id)?;
    let broken = |detail: String| Err(ChainBreak::Signature { detail });
    let text = match read_sig(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(broken(format!(
                "no signature ({} is missing)",
                path.display()
            )));
        }
        Err(e) => {
            return Err(CliError::failure(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let Ok(signed) = serde_json::from_str::<SignedHead>(&text) else {
        return Ok(broken(format!("{} is not a signed head", path.display())));
    };
    let head = ChainHead {
        seq: signed.seq,
        hash: signed.hash,
    };
    if signed.session != id
        || !signature::verify_message(&store::head_message(id, &head), &signed.signature, key)
    {
        return Ok(broken(format!(
            "the signature in {} is not this key's over this session's head",
            path.display()
        )));
    }
    Ok(Ok(head))
}

/// The text of a signature file: a regular file, not followed through a symbolic link, opened
/// without blocking (a FIFO in its place does not hang `verify`), at most 64 KiB read.
fn read_sig(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    use std::os::unix::fs::OpenOptionsExt;
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut text = String::new();
    file.take(64 * 1024).read_to_string(&mut text)?;
    Ok(text)
}
