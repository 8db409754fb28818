//! `warden audit verify [ID] [--all] [-C DIR] [--json] [--key PUB]`: checks the hash chain of
//! each audit log (one session, the workspace's sessions, or every session) and names the first
//! record edited, removed, reordered, cut short or out of chain, or (with `--key`) a signed head
//! that does not hold; exit 1 when any log is broken. `warden audit sign` checks the same logs
//! before signing their heads.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::session::resolve;
use crate::cli::workspace::Workspace;
use crate::store::{self, ChainReport, Home};

/// Which sessions: one, those of the workspace, or (`all`) every one.
pub(crate) struct Which<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) all: bool,
    pub(crate) dir: Option<&'a Path>,
}

/// Each session asked for, its log's bytes and what checking its chain found.
fn checked(
    home: &Home,
    which: &Which<'_>,
) -> Result<Vec<(String, Vec<u8>, ChainReport)>, CliError> {
    let sessions = store::list(home).map_err(|err| CliError::failure(err.to_string()))?;
    let ids: Vec<String> = match which.id {
        Some(id) => vec![resolve(home, id)?],
        None if which.all => sessions.iter().map(|s| s.id.clone()).collect(),
        None => {
            let root = Workspace::find(which.dir)?.root;
            sessions
                .iter()
                .filter(|s| s.workspace == root)
                .map(|s| s.id.clone())
                .collect()
        }
    };
    // Every session's anchor, to name the session an out-of-chain record came from.
    let anchors: Vec<(String, String)> = sessions
        .iter()
        .filter_map(|s| Some((s.id.clone(), store::session_anchor(home, &s.id).ok()?)))
        .collect();
    let mut results = Vec::new();
    for id in ids {
        let (bytes, report) = check(home, &id, &anchors)?;
        results.push((id, bytes, report));
    }
    Ok(results)
}

/// Sign the heads of the intact logs asked for.
pub(crate) fn sign(which: Which<'_>, key: &Path) -> Result<u8, CliError> {
    let home = home()?;
    let results: Vec<(String, ChainReport)> = checked(&home, &which)?
        .into_iter()
        .map(|(id, _, report)| (id, report))
        .collect();
    if results.is_empty() {
        outln!("no sessions to sign");
    }
    super::audit_sign::sign(&home, &results, key)
}

/// Verify the audit logs asked for.
pub(crate) fn verify(which: Which<'_>, json: bool, key: Option<&str>) -> Result<u8, CliError> {
    let key = key.map(super::audit_sign::public_key).transpose()?;
    let home = home()?;
    let mut results = Vec::new();
    for (id, bytes, mut report) in checked(&home, &which)? {
        if let Some(key) = &key {
            super::audit_sign::check(&home, &id, &bytes, key, &mut report)?;
        }
        results.push((id, report));
    }
    let broken = results.iter().any(|(_, r)| r.broken.is_some());
    if json {
        let list: Vec<Value> = results
            .iter()
            .map(|(id, r)| {
                let mut v = json!({ "session": id, "status": r.status() });
                if let (Value::Object(map), Ok(Value::Object(fields))) =
                    (&mut v, serde_json::to_value(r))
                {
                    map.extend(fields);
                }
                v
            })
            .collect();
        outln!("{}", json!({ "ok": !broken, "sessions": list }));
    } else {
        if results.is_empty() {
            outln!("no sessions to verify");
        }
        for (id, report) in &results {
            outln!("{}", line(id, report));
        }
    }
    Ok(if broken { EXIT_FAILURE } else { EXIT_OK })
}

fn check(
    home: &Home,
    id: &str,
    anchors: &[(String, String)],
) -> Result<(Vec<u8>, ChainReport), CliError> {
    let anchor =
        store::session_anchor(home, id).map_err(|err| CliError::failure(err.to_string()))?;
    let path = home
        .audit_path(id)
        .map_err(|err| CliError::failure(err.to_string()))?;
    let bytes = match fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
        Err(e) => {
            return Err(CliError::failure(format!(
                "cannot read {}: {e}",
                path.display()
            )));
        }
    };
    let others: Vec<(String, String)> = anchors.iter().filter(|(o, _)| o != id).cloned().collect();
    let report = store::verify_chain(&bytes, &anchor, &others);
    Ok((bytes, report))
}

/// One line per session.
fn line(id: &str, r: &ChainReport) -> String {
    if let Some(broken) = &r.broken {
        return format!("{id}: broken: {broken}");
    }
    let Some(head) = &r.head else {
        return if r.records == 0 {
            format!("{id}: empty")
        } else {
            format!(
                "{id}: unchained: {} records written before the audit chain; nothing to verify",
                r.records
            )
        };
    };
    let mut out = format!(
        "{id}: intact: {} records, chain head {} (record {})",
        r.records,
        head.hash.get(..16).unwrap_or(&head.hash),
        head.seq
    );
    if r.unchained > 0 {
        out.push_str(&format!(
            "; the first {} written before the chain are unchained",
            r.unchained
        ));
    }
    if r.torn > 0 {
        out.push_str(&format!("; {} lines cut short by a crash skipped", r.torn));
    }
    out
}
