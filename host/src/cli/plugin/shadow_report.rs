//! `warden plugin shadow-report [--since DURATION|DATE] [-C DIR] [--json]`: every call point
//! where an interceptor in `shadow` mode would have decided otherwise than the chain did, from
//! the `shadow_decision` records of every session's audit log (of the sessions of DIR's
//! workspace with `-C`), oldest first, with the tool call's arguments (escaped, capped); then,
//! per plugin, how many of its shadow decisions differ from the chain.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::time::SystemTime;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::Item;
use crate::front::workspace::Workspace;
use crate::store::{self, AuditEvent, Home};

/// The most bytes of a call's arguments (as JSON) a row shows.
const MAX_ARGUMENTS: usize = 200;

/// A plugin's shadow decisions: how many, and how many differ from the chain.
#[derive(Default)]
struct Totals {
    decisions: u64,
    differ: u64,
}

/// Print the disagreements and the totals per plugin.
pub(crate) fn report(since: Option<&str>, dir: Option<&Path>, json: bool) -> Result<u8, CliError> {
    let since = since.map(parse_since).transpose()?;
    let workspace = dir.map(|d| Workspace::find(Some(d))).transpose()?;
    let home = home()?;
    let sessions = store::list(&home).map_err(|err| CliError::failure(err.to_string()))?;
    let mut rows: Vec<(SystemTime, Value)> = Vec::new();
    let mut totals: BTreeMap<String, Totals> = BTreeMap::new();
    for session in &sessions {
        if workspace
            .as_ref()
            .is_some_and(|w| !same_dir(&session.workspace, &w.root))
        {
            continue;
        }
        let (records, warnings) = store::read_audit(&home, &session.id)
            .map_err(|err| CliError::failure(err.to_string()))?;
        for warning in warnings {
            eprintln!("warning [store]: {warning}");
        }
        // The session's tool calls, read once and only when a row needs their arguments.
        let mut arguments: Option<HashMap<String, String>> = None;
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
                differs,
            } = record.event
            else {
                continue;
            };
            let total = totals.entry(plugin.clone()).or_default();
            total.decisions += 1;
            if !differs {
                continue;
            }
            total.differ += 1;
            let args = call_id.as_ref().and_then(|id| {
                arguments
                    .get_or_insert_with(|| call_arguments(&home, &session.id))
                    .get(id)
                    .cloned()
            });
            rows.push((
                record.ts,
                json!({
                    "ts": humantime::format_rfc3339_seconds(record.ts).to_string(),
                    "session": session.id,
                    "point": point,
                    "tool": tool,
                    "call_id": call_id,
                    "arguments": args,
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
        let totals: Vec<Value> = totals
            .iter()
            .map(|(plugin, t)| json!({"plugin": plugin, "decisions": t.decisions, "differ": t.differ}))
            .collect();
        outln!("{}", json!({ "calls": calls, "totals": totals }));
        return Ok(EXIT_OK);
    }
    if rows.is_empty() {
        outln!("no shadow decision differs from the chain");
    }
    for (_, row) in &rows {
        outln!("{}", line(row));
    }
    for (plugin, t) in &totals {
        outln!(
            "{}: {} of {} shadow decisions differ from the chain",
            crate::domain::escape::escape(plugin),
            t.differ,
            t.decisions
        );
    }
    Ok(EXIT_OK)
}

/// Whether two directories are the same (compared canonically when both exist).
fn same_dir(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// The arguments of each tool call session `id` committed, by call id: compact JSON, escaped
/// and capped at [`MAX_ARGUMENTS`] bytes. A history that cannot be read gives none (the
/// rows still show).
fn call_arguments(home: &Home, id: &str) -> HashMap<String, String> {
    let Ok(loaded) = store::load(home, id) else {
        return HashMap::new();
    };
    loaded
        .items()
        .filter_map(|item| match item {
            Item::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        })
        .flatten()
        .map(|call| {
            let text = serde_json::to_string(&call.arguments).unwrap_or_default();
            (
                call.id.clone(),
                crate::domain::escape::escape_capped(&text, MAX_ARGUMENTS),
            )
        })
        .collect()
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
    let text = |key: &str| {
        crate::domain::escape::escape(row[key].as_str().unwrap_or_default()).into_owned()
    };
    let mut out = format!("{} {} {}", text("ts"), text("session"), text("point"));
    if row["tool"].is_string() {
        out.push_str(&format!(" {} {}", text("tool"), text("call_id")));
    }
    if row["arguments"].is_string() {
        out.push_str(&format!(" args {}", text("arguments")));
    }
    let sha = text("sha256");
    out.push_str(&format!(
        ": {} ({}) would {}, the chain decided {}",
        text("plugin"),
        sha.get(..12).unwrap_or(&sha),
        text("decision"),
        text("chain")
    ));
    if row["reason"].is_string() {
        out.push_str(&format!(" — {}", text("reason")));
    }
    out
}
