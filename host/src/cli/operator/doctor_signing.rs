//! `warden doctor`: the signature policy in force (`policy.require_signed`,
//! `policy.trusted_keys`, `policy.allowed_sources`) and, under it, whether each configured
//! plugin's source is allowed and its file signed by a trusted key.

use super::doctor::Report;
use crate::config::Config;
use crate::plugin::signature::{trusted_keys, verify};
use crate::plugin::{MAX_COMPONENT_BYTES, read_component};
use crate::setup::plugin_policy::{entry_source, glob_match};

/// One line for the policy, then one per plugin it concerns.
pub(super) fn check_signing(report: &mut Report, config: &Config) {
    let policy = &config.policy;
    if !policy.require_signed && policy.allowed_sources.is_none() && policy.trusted_keys.is_empty()
    {
        report.info("plugin signatures not required (no `policy.require_signed`)");
        return;
    }
    let from = policy
        .signing_from
        .as_ref()
        .map_or_else(|| "managed policy".to_owned(), |p| p.display().to_string());
    let keys = match trusted_keys(policy) {
        Ok(keys) => keys,
        Err(why) => return report.fail(&format!("`policy.trusted_keys` ({from}): {why}")),
    };
    let fingerprints: Vec<String> = keys
        .iter()
        .map(|k| format!("{} ({})", k.fingerprint(), k.origin))
        .collect();
    report.info(&format!(
        "signature policy ({from}): require_signed = {}, trusted keys [{}], allowed sources {}",
        policy.require_signed,
        fingerprints.join(", "),
        policy
            .allowed_sources
            .as_ref()
            .map_or_else(|| "any".to_owned(), |s| format!("{s:?}"))
    ));
    for entry in &config.plugins {
        let source = entry_source(entry);
        if let Some(allowed) = &policy.allowed_sources
            && !allowed.iter().any(|glob| glob_match(glob, &source))
        {
            report.fail(&format!(
                "plugin {}: source `{source}` not in `policy.allowed_sources`",
                entry.name
            ));
            continue;
        }
        if !policy.require_signed || source.starts_with("builtin:") {
            continue;
        }
        let verdict = read_component(&entry.path, MAX_COMPONENT_BYTES)
            .map_err(|err| err.to_string())
            .and_then(|bytes| {
                verify(&bytes, &keys)
                    .map(|key| key.fingerprint())
                    .map_err(|why| why.to_string())
            });
        match verdict {
            Ok(key) => report.ok(&format!(
                "plugin {} signed by trusted key {key}",
                entry.name
            )),
            Err(why) => report.fail(&format!(
                "plugin {} ({}): {why} (`policy.require_signed`)",
                entry.name,
                entry.path.display()
            )),
        }
    }
}
