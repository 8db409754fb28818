//! Signed chain heads: a session's audit chain head (its last record's `seq` and `hash`)
//! signed with an operator's Ed25519 key (the plugin-signing key format of `warden plugin
//! keygen`) into `sessions/<id>/audit.sig`. `warden audit sign` signs on request; with
//! `[audit] sign_key`, every session is signed when `warden run` or `warden chat` ends it;
//! `warden audit verify --key PUB` then requires each log to hold its signed head.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::plugin::signature::{self, SigningKey, TrustedKey};
use crate::store::{self, ChainBreak, ChainHead, Home};

/// The signature file's name in a session directory.
const SIG_FILE: &str = "audit.sig";

/// The largest signature file read.
const MAX_SIG_BYTES: u64 = 64 * 1024;

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

/// Reads and parses the secret key file at `path`; the error names the file.
pub fn load_key(path: &Path) -> Result<SigningKey, String> {
    let bytes = read_bounded(path, MAX_SIG_BYTES)
        .map_err(|e| format!("{}: cannot read the signing key: {e}", path.display()))?;
    signature::parse_secret_key(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// Signs session `id`'s head as `[audit]` asks when a front end ends the session (leaves it,
/// or switches to another): `None` without `sign_key`.
pub fn end_session(
    home: &Home,
    id: &str,
    audit: &crate::config::AuditConfig,
) -> Option<Result<Signed, String>> {
    let path = audit.sign_key.as_deref()?;
    Some(load_key(path).and_then(|key| sign_session(home, id, &key)))
}

/// The line a front end shows about [`end_session`]'s outcome: `Err` for a failure.
pub fn describe(id: &str, outcome: &Result<Signed, String>) -> Result<String, String> {
    match outcome {
        Ok(Signed::Head { head, key }) => Ok(format!(
            "session {id}: audit head (record {}) signed with key {key}",
            head.seq
        )),
        Ok(Signed::NoHead) => Ok(format!("session {id}: no audit record to sign")),
        Err(e) => Err(format!("session {id} was not signed: {e}")),
    }
}

/// What signing a session did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Signed {
    /// The head was signed.
    Head {
        /// The head signed.
        head: ChainHead,
        /// The key's fingerprint.
        key: String,
    },
    /// The log has no chained record: nothing to sign.
    NoHead,
}

/// Walks session `id`'s log and signs its head with `key`. A broken log is not signed: the
/// error says why.
pub fn sign_session(home: &Home, id: &str, key: &SigningKey) -> Result<Signed, String> {
    let report = store::walk_audit(home, id, &[], None, |_, _| {}).map_err(|e| e.to_string())?;
    if let Some(broken) = &report.broken {
        return Err(format!("the log is broken: {broken}"));
    }
    match report.head {
        Some(head) => sign_head(home, id, &head, key),
        None => Ok(Signed::NoHead),
    }
}

/// Signs `head` of session `id` with `key` into its `audit.sig` (a new file renamed over the
/// old one: a crash leaves one signature or the other).
pub fn sign_head(
    home: &Home,
    id: &str,
    head: &ChainHead,
    key: &SigningKey,
) -> Result<Signed, String> {
    let signed = SignedHead {
        session: id.to_owned(),
        seq: head.seq,
        hash: head.hash.clone(),
        key: key.fingerprint(),
        signature: signature::sign_message(&store::head_message(id, head), key),
    };
    let path = sig_path(home, id)?;
    let mut text = serde_json::to_vec(&signed).map_err(|e| format!("{}: {e}", path.display()))?;
    text.push(b'\n');
    let tmp = path.with_extension("sig.new");
    match fs::remove_file(&tmp) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(format!("cannot remove {}: {e}", tmp.display())),
    }
    let mut file = fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(&tmp)
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    file.write_all(&text)
        .and_then(|()| file.sync_all())
        .map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
    fs::rename(&tmp, &path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok(Signed::Head {
        head: head.clone(),
        key: signed.key,
    })
}

/// The head session `id`'s `audit.sig` names, signed by `key`; or the problem with the
/// signature (missing, unreadable, another key's or another session's) as a chain break.
pub fn signed_head(
    home: &Home,
    id: &str,
    key: &TrustedKey,
) -> Result<Result<ChainHead, ChainBreak>, String> {
    let path = sig_path(home, id)?;
    let broken = |detail: String| Err(ChainBreak::Signature { detail });
    let bytes = match read_bounded(&path, MAX_SIG_BYTES) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Ok(broken(format!(
                "no signature ({} is missing)",
                path.display()
            )));
        }
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let Ok(signed) = serde_json::from_slice::<SignedHead>(&bytes) else {
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

fn sig_path(home: &Home, id: &str) -> Result<PathBuf, String> {
    let audit = home.audit_path(id).map_err(|e| e.to_string())?;
    Ok(audit.with_file_name(SIG_FILE))
}

/// A regular file's bytes, not followed through a symbolic link, opened without blocking (a
/// FIFO in its place does not hang), at most `max` bytes (more is an error).
fn read_bounded(path: &Path, max: u64) -> std::io::Result<Vec<u8>> {
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut bytes = Vec::new();
    file.take(max + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > max {
        return Err(std::io::Error::other(format!("larger than {max} bytes")));
    }
    Ok(bytes)
}
