//! `warden audit sign [ID] [--all] [-C DIR] --key SECRET` signs the head of each intact audit
//! log with an operator's Ed25519 key into `sessions/<id>/audit.sig` (the signing itself is
//! [`crate::worker::audit_sign`], shared with `[audit] sign_key` at a session's end);
//! `warden audit verify --key PUB` then also requires each log to hold its signed head.

use std::path::Path;

use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::signature::{self, TrustedKey};
use crate::store::{ChainBreak, ChainHead, ChainReport, Home};
use crate::worker::audit_sign::{self as core, Signed};

/// Sign the head of each session's intact log in `checked`; exit 1 when one cannot be.
pub(crate) fn sign(
    home: &Home,
    checked: &[(String, ChainReport)],
    key_file: &Path,
) -> Result<u8, CliError> {
    let key = core::load_key(key_file).map_err(|e| CliError::usage(format!("--key {e}")))?;
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
        match core::sign_head(home, id, head, &key).map_err(CliError::failure)? {
            Signed::Head { head, key } => outln!(
                "{id}: signed record {} (head {}) with key {key}",
                head.seq,
                head.hash.get(..16).unwrap_or(&head.hash),
            ),
            Signed::NoHead => outln!("{id}: not signed: no chain head"),
        }
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
    core::signed_head(home, id, key).map_err(CliError::failure)
}
