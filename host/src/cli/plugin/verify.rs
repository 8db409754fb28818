//! `warden plugin verify FILE|oci://… [--key PUB]`: who signed a component, checked against one public
//! key or against `policy.trusted_keys` of the configuration in force. Exit 2 naming the file
//! and why when it is unsigned, changed since it was signed, or signed by another key.

use std::path::Path;

use crate::cli::common::load_config;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::front::workspace::Workspace;
use crate::plugin::signature::{TrustedKey, trusted_key, trusted_keys, verify};
use crate::plugin::{MAX_COMPONENT_BYTES, read_component};

/// Verify `file` against `key`, or the trusted keys of the workspace `dir`'s configuration.
pub(crate) fn verify_file(
    file: &Path,
    key: Option<&Path>,
    dir: Option<&Path>,
) -> Result<u8, CliError> {
    let (keys, against) = match key {
        Some(key) => {
            let trusted = trusted_key(&key.to_string_lossy()).map_err(CliError::usage)?;
            (vec![trusted], format!("the key {}", key.display()))
        }
        None => {
            let workspace = Workspace::find(dir)?.root;
            let loaded = load_config(&workspace)?;
            let policy = &loaded.config.policy;
            let from = policy
                .signing_from
                .as_ref()
                .map_or_else(|| "no managed file".to_owned(), |p| p.display().to_string());
            let keys = trusted_keys(policy)
                .map_err(|why| CliError::usage(format!("{from}: `policy.trusted_keys`: {why}")))?;
            if keys.is_empty() {
                return Err(CliError::usage(format!(
                    "{}: no key to verify against: `policy.trusted_keys` is empty ({from}); pass --key FILE.pub",
                    file.display()
                )));
            }
            (keys, format!("`policy.trusted_keys` ({from})"))
        }
    };
    let text = file.to_string_lossy();
    let bytes = if text.starts_with(crate::config::OCI_SCHEME) {
        super::oci_common::inspect_reference(&text)?.bytes.clone()
    } else {
        read_component(file, MAX_COMPONENT_BYTES).map_err(|err| CliError::usage(err.to_string()))?
    };
    match verify(&bytes, &keys) {
        Ok(found) => {
            outln!("{}: signed by {}", file.display(), describe(found));
            Ok(EXIT_OK)
        }
        Err(why) => Err(CliError::usage(format!(
            "{}: signature not accepted against {against}: {why}",
            file.display()
        ))),
    }
}

fn describe(key: &TrustedKey) -> String {
    format!("key {} ({})", key.fingerprint(), key.origin)
}
