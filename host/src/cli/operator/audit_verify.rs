//! `warden audit verify [ID] [--all] [-C DIR] [--json]`: checks the hash chain of each audit
//! log (one session, the workspace's sessions, or every session) and names the first record
//! edited, removed, reordered, cut short or out of chain; exit 1 when any log is broken.

use std::fs;
use std::path::Path;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::session::resolve;
use crate::cli::workspace::Workspace;
use crate::store::{self, ChainReport, Home};

/// Verify the audit logs asked for.
pub(crate) fn verify(
    id: Option<&str>,
    all: bool,
    dir: Option<&Path>,
    json: bool,
) -> Result<u8, CliError> {
    let home = home()?;
    let sessions = store::list(&home).map_err(|err| CliError::failure(err.to_string()))?;
    let ids: Vec<String> = match id {
        Some(id) => vec![resolve(&home, id)?],
        None if all => sessions.iter().map(|s| s.id.clone()).collect(),
        None => {
            let root = Workspace::find(dir)?.root;
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
        .filter_map(|s| Some((s.id.clone(), store::session_anchor(&home, &s.id).ok()?)))
        .collect();
    let mut results = Vec::new();
    for id in &ids {
        results.push((id.clone(), check(&home, id, &anchors)?));
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

fn check(home: &Home, id: &str, anchors: &[(String, String)]) -> Result<ChainReport, CliError> {
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
    Ok(store::verify_chain(&bytes, &anchor, &others))
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
