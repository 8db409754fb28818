//! Managed policy at the commands that fetch or write plugin entries (`plugin add`, `update`,
//! `update --rollback`, `pin`, `fetch`): the same `policy.allowed_sources` and
//! `policy.require_signed` the loader applies, checked before a registry is contacted (the
//! source) and before a component is cached or an entry written (the signature).

use std::path::Path;

use crate::cli::exit::CliError;
use crate::config::{PolicyConfig, glob_match};
use crate::plugin::signature::{SigningPolicy, TrustedKey, signed_by, trusted_keys, verify};

/// The policy in force for one command.
pub(super) struct Admission {
    allowed: Option<Vec<String>>,
    signing: Option<SigningPolicy>,
    keys: Vec<TrustedKey>,
    managed: String,
}

impl Admission {
    /// The managed policy of `policy`; an unreadable trusted key is a usage error.
    pub fn new(policy: &PolicyConfig) -> Result<Self, CliError> {
        let signing =
            SigningPolicy::from_config(policy).map_err(|err| CliError::usage(err.to_string()))?;
        let managed = policy.signing_from.as_ref().map_or_else(
            || "(managed policy)".to_owned(),
            |p| p.display().to_string(),
        );
        let keys = trusted_keys(policy)
            .map_err(|why| CliError::usage(format!("{managed}: `policy.trusted_keys`: {why}")))?;
        Ok(Self {
            allowed: policy.allowed_sources.clone(),
            signing,
            keys,
            managed,
        })
    }

    /// Refuse `source` (an `oci://` reference as written, or what a file is matched as) unless
    /// `policy.allowed_sources` lists it; `what` names the plugin, `outcome` what was not done.
    pub fn source(&self, what: &str, source: &str, outcome: &str) -> Result<(), CliError> {
        let Some(allowed) = &self.allowed else {
            return Ok(());
        };
        if allowed.iter().any(|glob| glob_match(glob, source)) {
            return Ok(());
        }
        Err(CliError::usage(format!(
            "{what}: refused by managed policy `policy.allowed_sources` in {}: `{source}` matches none of {allowed:?}; {outcome}",
            self.managed
        )))
    }

    /// Refuse the component `bytes` of `what` (`plugin kw`, `resolver`, a file and a plugin;
    /// read from `path`) unless a trusted key signed them, when `policy.require_signed` is
    /// set.
    pub fn signed(
        &self,
        what: &str,
        path: &Path,
        bytes: &[u8],
        outcome: &str,
    ) -> Result<(), CliError> {
        match &self.signing {
            Some(policy) => policy
                .check_described(what, path, bytes)
                .map_err(|err| CliError::usage(format!("{err}; {outcome}"))),
            None => Ok(()),
        }
    }

    /// Who signed `bytes`, for a person to read: a trusted key by fingerprint and origin, an
    /// untrusted one by fingerprint, or `unsigned`.
    pub fn signer(&self, bytes: &[u8]) -> String {
        describe_signer(bytes, &self.keys)
    }
}

/// Who signed `bytes`, checked against `keys` (see [`Admission::signer`]).
pub(super) fn describe_signer(bytes: &[u8], keys: &[TrustedKey]) -> String {
    if let Ok(key) = verify(bytes, keys) {
        return format!("key {} ({})", key.fingerprint(), key.origin);
    }
    match signed_by(bytes) {
        None => "unsigned".to_owned(),
        Some(Some(id)) => format!("key {id} (not a trusted key)"),
        Some(None) => "an unnamed key (not a trusted key)".to_owned(),
    }
}
