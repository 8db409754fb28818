//! `warden plugin shadow-report [--since DURATION|DATE] [--json]`: every call point where an
//! interceptor in `shadow` mode would have decided otherwise than the chain did, from the
//! `shadow_decision` records of every session's audit log, oldest first.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::store::{self, AuditEvent};

/// Print the disagreements.
pub(crate) fn report(since: Option<&str>, json: bool) -> Result<u8, CliError> {
    let since = since.map(parse_since).transpose()?;
    let home = home()?;
    let sessions = store::list(&home).map_err(|err| CliError::failure(err.to_string()))?;
    let mut rows: Vec<(SystemTime, Value)> = Vec::new();
    for session in &sessions {
        let (records, warnings) = store::read_audit(&home, &session.id)
            .map_err(|err| CliError::failure(err.to_string()))?;
        for warning in warnings {
            eprintln!("warning [store]: {warning}");
        }
        for record in records {
            if since.is_some_and(|s| record.ts < s) {
                continue;
            }
            let AuditEvent::ShadowDecision {
                plugin,
                sha256,
                point,
                tool,
                call_id,
                decision,
                reason,
                chain,
                differs: true,
            } = record.event
            else {
                continue;
            };
            rows.push((
                record.ts,
                json!({
                    "ts": humantime::format_rfc3339_seconds(record.ts).to_string(),
                    "session": session.id,
                    "point": point,
                    "tool": tool,
                    "call_id": call_id,
                    "plugin": plugin,
                    "sha256": sha256,
                    "decision": decision,
                    "reason": reason,
                    "chain": chain,
                }),
            ));
        }
    }
    rows.sort_by_key(|(ts, _)| *ts);
    if json {
        let calls: Vec<Value> = rows.into_iter().map(|(_, v)| v).collect();
        outln!("{}", json!({ "calls": calls }));
        return Ok(EXIT_OK);
    }
    if rows.is_empty() {
        outln!("no shadow decision differs from the chain");
    }
    for (_, row) in &rows {
        outln!("{}", line(row));
    }
    Ok(EXIT_OK)
}

/// `2h`, `3days` (that long before now) or an RFC 3339 time.
fn parse_since(text: &str) -> Result<SystemTime, CliError> {
    if let Ok(ago) = humantime::parse_duration(text) {
        return Ok(SystemTime::now()
            .checked_sub(ago)
            .unwrap_or(SystemTime::UNIX_EPOCH));
    }
    humantime::parse_rfc3339_weak(text).map_err(|err| {
        CliError::usage(format!(
            "--since {text:?}: neither a duration (`2h`, `3days`) nor a time ({err}; e.g. 2026-01-31T09:00:00Z)"
        ))
    })
}

fn line(row: &Value) -> String {
    let text = |key: &str| row[key].as_str().unwrap_or_default().to_owned();
    let mut out = format!("{} {} {}", text("ts"), text("session"), text("point"));
    if let Some(tool) = row["tool"].as_str() {
        out.push_str(&format!(" {tool} {}", text("call_id")));
    }
    let sha = text("sha256");
    out.push_str(&format!(
        ": {} ({}) would {}, the chain decided {}",
        text("plugin"),
        sha.get(..12).unwrap_or(&sha),
        text("decision"),
        text("chain")
    ));
    if let Some(reason) = row["reason"].as_str() {
        out.push_str(&format!(" — {reason}"));
    }
    out
}
