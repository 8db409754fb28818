//! `warden trust [-C DIR] [--revoke] [--json]`: trust the workspace's project configuration to
//! run the code it declares (its plugins and resolver), as declared now; or revoke that trust.
//! On a terminal it first shows what it would trust (each entry with its command or component
//! and grants) and asks; elsewhere (a script, `--json`) it records at once and lists it.
//!
//! - `gate`: the configuration the commands that run plugins use, and what they do while
//!   trust is waiting.

mod gate;

pub(crate) use gate::{WhenWaiting, load_config_trusted};

use std::io::IsTerminal;
use std::path::Path;

use serde_json::json;

use super::common::{confirm, home, load_config};
use super::exit::{CliError, EXIT_OK};
use super::out::outln;
use crate::domain::escape::escape;
use crate::front::workspace::Workspace;
use crate::setup::trust::{self, TrustState};
use crate::store::Trusted;

/// Record (or with `revoke` remove) trust in the project code of the workspace.
pub(crate) fn trust_command(dir: Option<&Path>, revoke: bool, json: bool) -> Result<u8, CliError> {
    let root = Workspace::find(dir)?.root;
    let home = home()?;
    if revoke {
        let revoked =
            Trusted::revoke(&home, &root).map_err(|err| CliError::usage(err.to_string()))?;
        if json {
            outln!("{}", json!({"workspace": root, "revoked": revoked}));
        } else if revoked {
            outln!(
                "trust of {} revoked: its project plugins no longer load",
                root.display()
            );
        } else {
            outln!("{} was not trusted: nothing to revoke", root.display());
        }
        return Ok(EXIT_OK);
    }
    let loaded = load_config(&root)?;
    super::tracked_denied::warn_tracked_denied(&root, &loaded.config.fileref.deny);
    let state =
        trust::check(&loaded, &root, &home).map_err(|err| CliError::usage(err.to_string()))?;
    if let TrustState::Forbidden { file } = &state {
        return Err(CliError::usage(format!(
            "managed policy forbids trusting projects: `policy.allow_trust = false` in {}",
            file.display()
        )));
    }
    let Some(code) = &loaded.project_code else {
        if json {
            outln!(
                "{}",
                json!({"workspace": root, "trusted": false, "declared": []})
            );
        } else {
            outln!(
                "{}: the project configuration declares no plugins and no resolver; nothing needs trust",
                root.display()
            );
        }
        return Ok(EXIT_OK);
    };
    let trusted = Trusted::read(&home).map_err(|err| CliError::usage(err.to_string()))?;
    let pending = trust::pending(code, &root, &trusted, &loaded.dev_overrides);
    refuse_unreadable(&pending)?;
    // What managed policy refuses at load is not trusted either.
    crate::setup::plugin_policy::check_project_code(&loaded.config, code).map_err(|err| {
        CliError::usage(format!(
            "{}: nothing was trusted: {err}",
            pending.file.display()
        ))
    })?;
    // On a terminal the person reads what would run before saying yes.
    let asked = !json && std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if asked {
        ask(&root, &pending)?;
    }
    trust::record(&home, &pending).map_err(|err| CliError::failure(err.to_string()))?;
    if json {
        let value = json!({
            "workspace": root,
            "trusted": true,
            "digest": pending.digest,
            "declared": pending.declared,
        });
        outln!("{value}");
        return Ok(EXIT_OK);
    }
    outln!("trusted {} (digest {})", root.display(), pending.digest);
    if let TrustState::TrustedByPolicy { file } = &state {
        outln!(
            "(managed policy already trusts it: `policy.trusted_paths` in {})",
            file.display()
        );
    }
    if asked {
        return Ok(EXIT_OK);
    }
    for declared in &pending.declared {
        outln!("  {}", escape(&trust::describe_trusted(declared)));
    }
    if pending.previous.is_some() {
        let changes = gate::change_lines(&pending, true);
        if !changes.is_empty() {
            outln!("changed since it was last trusted:");
            for line in changes {
                outln!("{line}");
            }
        }
    }
    Ok(EXIT_OK)
}

/// Show what trusting `root` would let run (each entry with its command or component and its
/// grants, and what changed since it was last trusted), then ask; anything but yes records
/// nothing (exit 1).
fn ask(root: &Path, pending: &trust::Pending) -> Result<(), CliError> {
    eprintln!(
        "{} declares, in {}:",
        root.display(),
        pending.file.display()
    );
    for declared in &pending.declared {
        eprintln!("  {}", escape(&trust::describe(declared)));
    }
    if pending.previous.is_some() {
        let changes = gate::change_lines(pending, true);
        if !changes.is_empty() {
            eprintln!("changed since it was last trusted:");
            for line in changes {
                eprintln!("{line}");
            }
        }
    }
    if confirm("trust it: let this code run and these settings apply? [y/N] ") {
        Ok(())
    } else {
        Err(CliError::failure(format!(
            "nothing was trusted: {} stays as it was",
            root.display()
        )))
    }
}

/// Trust is given to content: a declared component that cannot be read has none to trust, so
/// nothing is recorded until it can be.
fn refuse_unreadable(pending: &trust::Pending) -> Result<(), CliError> {
    let unreadable: Vec<String> = pending
        .declared
        .iter()
        .filter_map(|d| {
            let why = d.value.get("component_sha256")?.as_str()?;
            let why = why.strip_prefix("unreadable: ")?;
            let path = d.value.get("path").and_then(|p| p.as_str()).unwrap_or("?");
            Some(format!("{} ({path}): {why}", d.id))
        })
        .collect();
    if unreadable.is_empty() {
        return Ok(());
    }
    Err(CliError::usage(format!(
        "{}: nothing was trusted: trust records the content of each component, and {} cannot be read; build or copy it, then run `warden trust` again",
        pending.file.display(),
        unreadable.join("; ")
    )))
}
