//! `warden audit verify [ID] [--all] [-C DIR] [--json] [--key PUB]`: checks the hash chain of
//! each audit log (one session, the workspace's sessions, or every session) and names the first
//! record edited, removed, reordered, cut short or out of chain, or (with `--key`) a signed head
//! that does not hold; exit 1 when any log is broken. `warden audit sign` checks the same logs
//! before signing their heads.

use std::path::Path;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::session::resolve;
use crate::front::workspace::Workspace;
use crate::store::{self, ChainBreak, ChainHead, ChainReport, Home};

/// Which sessions: one, those of the workspace, or (`all`) every one.
pub(crate) struct Which<'a> {
    pub(crate) id: Option<&'a str>,
    pub(crate) all: bool,
    pub(crate) dir: Option<&'a Path>,
}

/// The sessions asked for.
fn sessions(home: &Home, which: &Which<'_>) -> Result<Vec<String>, CliError> {
    let sessions = store::list(home).map_err(|err| CliError::failure(err.to_string()))?;
    Ok(match which.id {
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
    })
}

/// Each session asked for and what checking its log found; `signed` gives the signed head
/// each must hold, or the signature's own problem.
fn checked(
    home: &Home,
    which: &Which<'_>,
    mut signed: impl FnMut(&str) -> Result<Option<Result<ChainHead, ChainBreak>>, CliError>,
) -> Result<Vec<(String, ChainReport)>, CliError> {
    let ids = sessions(home, which)?;
    // Every session's anchor, to name the session an out-of-chain record came from.
    let anchors: Vec<(String, String)> = store::list(home)
        .map_err(|err| CliError::failure(err.to_string()))?
        .iter()
        .filter_map(|s| Some((s.id.clone(), store::session_anchor(home, &s.id).ok()?)))
        .collect();
    let mut results = Vec::new();
    for id in ids {
        let others: Vec<(String, String)> =
            anchors.iter().filter(|(o, _)| *o != id).cloned().collect();
        let signature = signed(&id)?;
        let head = match &signature {
            Some(Ok(head)) => Some(head),
            _ => None,
        };
        let mut report = store::walk_audit(home, &id, &others, head, |_, _| {})
            .map_err(|err| CliError::failure(err.to_string()))?;
        if report.broken.is_none()
            && let Some(Err(problem)) = signature
        {
            report.broken = Some(problem);
        }
        results.push((id, report));
    }
    Ok(results)
}

/// Sign the heads of the intact logs asked for.
pub(crate) fn sign(which: Which<'_>, key: &Path) -> Result<u8, CliError> {
    let home = home()?;
    let results = checked(&home, &which, |_| Ok(None))?;
    if results.is_empty() {
        outln!("no sessions to sign");
    }
    super::audit_sign::sign(&home, &results, key)
}

/// Verify the audit logs asked for.
pub(crate) fn verify(which: Which<'_>, json: bool, key: Option<&str>) -> Result<u8, CliError> {
    let key = key.map(super::audit_sign::public_key).transpose()?;
    let home = home()?;
    let results = checked(&home, &which, |id| match &key {
        Some(key) => super::audit_sign::signed_head(&home, id, key).map(Some),
        None => Ok(None),
    })?;
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
            outln!("{}", line(&home, id, report));
        }
    }
    Ok(if broken { EXIT_FAILURE } else { EXIT_OK })
}

/// One line per session.
fn line(home: &Home, id: &str, r: &ChainReport) -> String {
    if let Some(broken) = &r.broken {
        let path = home
            .audit_path(id)
            .map(|p| p.display().to_string())
            .unwrap_or_default();
        return format!("{id}: broken: {path}: {broken}");
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
    if let Some(torn) = r.torn_line {
        out.push_str(&format!(
            "; its last line ({torn}), cut short by a crash, skipped"
        ));
    }
    out
}
