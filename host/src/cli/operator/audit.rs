//! `warden audit [ID] [--json] [--since T]`: what left the machine, per turn — each file
//! (path, bytes, sha256, truncated), each plugin decision, what each interceptor in `shadow`
//! mode would have decided beside the chain, each model request (provider, model,
//! bytes, items) with its outcome (`ok`, `failed: why`, `cancelled`; unknown in files written
//! before outcomes were recorded); a cancelled turn shows the prompt's sha256, never its text.
//! A compaction is a group of its own, holding its summary request and the files it re-read.

use std::time::SystemTime;

use serde_json::{Value, json};

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_FAILURE, EXIT_OK};
use crate::cli::out::outln;
use crate::cli::session::resolve;
use crate::store::{self, AuditEvent, AuditRecord, ChainHead, Home};

/// One turn as the audit log shows it.
#[derive(Debug, Default)]
struct Turn {
    session: String,
    started: Option<SystemTime>,
    /// The history range a compaction replaced (a compaction's group, not a prompt's turn).
    compaction: Option<(u64, u64)>,
    prompt_sha256: Option<String>,
    prompt_bytes: Option<u64>,
    cancelled_by: Option<String>,
    files: Vec<Value>,
    decisions: Vec<Value>,
    requests: Vec<Value>,
    tools: Vec<Value>,
    /// What interceptors in `shadow` mode would have decided.
    shadow: Vec<Value>,
    other: Vec<Value>,
}

impl Turn {
    fn outcome(&self) -> &'static str {
        let last = self.requests.last().map(|r| r["outcome"].as_str());
        if self.cancelled_by.is_some() || last == Some(Some("cancelled")) {
            "cancelled"
        } else if last == Some(Some("failed")) {
            "failed"
        } else if self.compaction.is_some() {
            "compacted"
        } else if self.requests.is_empty() {
            "no model request"
        } else {
            "sent"
        }
    }

    fn to_json(&self) -> Value {
        json!({
            "session": self.session,
            "started": self.started.map(ts),
            "kind": if self.compaction.is_some() { "compact" } else { "turn" },
            "replaces": self.compaction.map(|(from, to)| json!({"from": from, "to": to})),
            "prompt_sha256": self.prompt_sha256,
            "prompt_bytes": self.prompt_bytes,
            "outcome": self.outcome(),
            "cancelled_by": self.cancelled_by,
            "files": self.files,
            "decisions": self.decisions,
            "requests": self.requests,
            "tools": self.tools,
            "shadow": self.shadow,
            "other": self.other,
        })
    }
}

fn ts(t: SystemTime) -> String {
    humantime::format_rfc3339_seconds(t).to_string()
}

/// Print the audit log of one session, or of all, grouped by turn.
pub(crate) fn audit(id: Option<&str>, json: bool, since: Option<&str>) -> Result<u8, CliError> {
    let since = since
        .map(|t| {
            humantime::parse_rfc3339_weak(t).map_err(|err| {
                CliError::usage(format!(
                    "--since {t:?}: {err} (use RFC 3339, e.g. 2026-01-31T09:00:00Z)"
                ))
            })
        })
        .transpose()?;
    let home = home()?;
    let ids: Vec<String> = match id {
        Some(id) => vec![resolve(&home, id)?],
        None => store::list(&home)
            .map_err(|err| CliError::failure(err.to_string()))?
            .into_iter()
            .map(|s| s.id)
            .collect(),
    };
    // A log that does not verify is named and left out; the others are still shown.
    let mut turns = Vec::new();
    let mut failed = false;
    for id in &ids {
        match turns_of(&home, id) {
            Ok(more) => turns.extend(more),
            Err(err) if ids.len() > 1 => {
                eprintln!("warden: {}", err.message);
                failed = true;
            }
            Err(err) => return Err(err),
        }
    }
    let code = if failed { EXIT_FAILURE } else { EXIT_OK };
    turns.retain(|t| since.is_none_or(|s| t.started.is_some_and(|started| started >= s)));
    if json {
        let list: Vec<Value> = turns.iter().map(Turn::to_json).collect();
        outln!("{}", json!({ "turns": list }));
        return Ok(code);
    }
    if turns.is_empty() {
        outln!("no audited turns");
    }
    for turn in &turns {
        print_turn(turn);
    }
    Ok(code)
}

fn turns_of(home: &Home, id: &str) -> Result<Vec<Turn>, CliError> {
    let (records, warnings) =
        store::read_audit_linked(home, id).map_err(|err| CliError::failure(err.to_string()))?;
    for warning in warnings {
        eprintln!("warning [store]: {warning}");
    }
    Ok(group(id, records))
}

/// The number of entries in each list of `turn`.
fn counts(turn: &Turn) -> [usize; 6] {
    [
        turn.files.len(),
        turn.decisions.len(),
        turn.requests.len(),
        turn.tools.len(),
        turn.shadow.len(),
        turn.other.len(),
    ]
}

/// Gives the entry a record just added to `turn` (beyond `before`) the record's chain link.
fn link(turn: &mut Turn, before: [usize; 6], head: Option<&ChainHead>) {
    let Some(head) = head else {
        return;
    };
    let lists = [
        &mut turn.files,
        &mut turn.decisions,
        &mut turn.requests,
        &mut turn.tools,
        &mut turn.shadow,
        &mut turn.other,
    ];
    for (list, before) in lists.into_iter().zip(before) {
        if list.len() > before
            && let Some(Value::Object(map)) = list.last_mut()
        {
            map.insert("seq".into(), json!(head.seq));
            map.insert("hash".into(), json!(head.hash));
        }
    }
}

/// Split a session's records into turns at each `turn_started` (records written before turns
/// were marked form one turn of their own).
/// Each entry carries its record's `seq` and `hash` (none for a record written before the
/// chain).
fn group(id: &str, records: Vec<(AuditRecord, Option<ChainHead>)>) -> Vec<Turn> {
    let mut turns: Vec<Turn> = Vec::new();
    // The group records go to: the last, or, after a compaction that ran inside a turn, that
    // turn again.
    let mut current = 0usize;
    for (record, head) in records {
        let starts = matches!(
            record.event,
            AuditEvent::TurnStarted { .. } | AuditEvent::CompactionStarted { .. }
        );
        if starts || turns.is_empty() {
            turns.push(Turn {
                session: id.to_owned(),
                started: Some(record.ts),
                ..Turn::default()
            });
            current = turns.len() - 1;
        }
        if matches!(record.event, AuditEvent::CompactionEnded { .. }) {
            // What follows belongs to the group before the compaction (the turn it ran in,
            // or, after a `/compact`, nothing until the next turn starts one).
            current = current.saturating_sub(1);
            continue;
        }
        let Some(turn) = turns.get_mut(current) else {
            continue;
        };
        let before = counts(turn);
        let at = ts(record.ts);
        match record.event {
            AuditEvent::TurnStarted {
                prompt_sha256,
                prompt_bytes,
            } => {
                turn.prompt_sha256 = Some(prompt_sha256);
                turn.prompt_bytes = Some(prompt_bytes);
            }
            AuditEvent::TurnCancelled {
                plugin,
                prompt_sha256,
            } => {
                turn.cancelled_by = Some(plugin);
                turn.prompt_sha256.get_or_insert(prompt_sha256);
            }
            AuditEvent::FileSent {
                path,
                bytes,
                sha256,
                truncated,
            } => turn.files.push(json!({
                "path": path, "bytes": bytes, "sha256": sha256, "truncated": truncated, "ts": at,
            })),
            AuditEvent::PluginDecision {
                plugin,
                hook,
                decision,
                reason,
            } => turn.decisions.push(json!({
                "plugin": plugin, "hook": hook, "decision": decision, "reason": reason, "ts": at,
            })),
            AuditEvent::ModelRequest {
                provider,
                model,
                items,
                bytes,
            } => turn.requests.push(json!({
                "provider": provider, "model": model, "items": items, "bytes": bytes, "ts": at,
            })),
            AuditEvent::CompactionStarted { from, to } => turn.compaction = Some((from, to)),
            AuditEvent::ModelOutcome {
                outcome,
                reason,
                usage,
            } => {
                if let Some(request) = turn.requests.last_mut() {
                    request["outcome"] = json!(outcome);
                    if let Some(reason) = reason {
                        request["reason"] = json!(reason);
                    }
                    if let Some(usage) = usage {
                        request["usage"] = json!(usage);
                    }
                }
            }
            AuditEvent::ShadowDecision { .. } => {
                let mut value = serde_json::to_value(&record.event).unwrap_or(Value::Null);
                if let Some(map) = value.as_object_mut() {
                    map.remove("type");
                    map.insert("ts".into(), json!(at));
                }
                turn.shadow.push(value);
            }
            AuditEvent::ToolCall { .. } => {
                let mut value = serde_json::to_value(&record.event).unwrap_or(Value::Null);
                if let Some(map) = value.as_object_mut() {
                    map.remove("type");
                    map.insert("ts".into(), json!(at));
                }
                turn.tools.push(value);
            }
            // What each call point was asked, by reference to the history: the input of
            // `warden plugin replay`, not something that left the machine.
            AuditEvent::Point(_) => {}
            other => turn.other.push(json!({ "event": other, "ts": at })),
        }
        link(turn, before, head.as_ref());
    }
    turns
}

/// `tool read_file (built-in): denied by plugin:guard: reason; 24 bytes in, 60 out`; a shell
/// call that asked to leave the default sandbox adds `; escalation network to HOST: why`.
fn tool_line(t: &Value) -> String {
    let text = |key: &str| t[key].as_str().unwrap_or("");
    let owner = match t["plugin"].as_str() {
        Some(plugin) => {
            let grants = &t["grants"];
            let list = |key: &str| {
                grants[key]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .collect::<Vec<_>>()
                            .join(",")
                    })
                    .unwrap_or_default()
            };
            format!(
                "plugin {plugin}, fs {}, hosts [{}], env [{}]",
                grants["fs"].as_str().unwrap_or("none"),
                list("allowed_hosts"),
                list("env")
            )
        }
        None => "built-in".to_owned(),
    };
    let reason = t["reason"]
        .as_str()
        .map(|r| format!(": {}", crate::domain::escape::escape(r)))
        .unwrap_or_default();
    let approval = t["approval"]
        .as_str()
        .map(|a| format!(", approval {a}"))
        .unwrap_or_default();
    // The rule that asked (the person then decided), or that allowed it.
    let approval = match t["rule"].as_str() {
        Some(rule) if !text("by").starts_with("rule:") => {
            format!("{approval}, rule {}", crate::domain::escape::escape(rule))
        }
        _ => approval,
    };
    let http = match t.get("http") {
        Some(h) if h.is_object() => format!(
            "; http {} requests ({} refused), {} bytes out, {} in",
            h["requests"], h["refused"], h["bytes_out"], h["bytes_in"]
        ),
        _ => String::new(),
    };
    let escalation = match t.get("escalation") {
        Some(e) if e.is_object() => {
            let hosts: Vec<&str> = e["hosts"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .collect();
            let to = if hosts.is_empty() {
                String::new()
            } else {
                format!(" to {}", hosts.join(", "))
            };
            crate::domain::escape::escape(&format!(
                "; escalation {}{to}: {}",
                e["kind"].as_str().unwrap_or("?"),
                e["reason"].as_str().unwrap_or("")
            ))
            .into_owned()
        }
        _ => String::new(),
    };
    let failure = t["plugin_failure"]
        .as_str()
        .map(|f| format!("; plugin failed: {}", crate::domain::escape::escape(f)))
        .unwrap_or_default();
    format!(
        "tool {} ({owner}): {} by {}{reason}{approval}{escalation}; {} bytes in, {} out{http}{failure}",
        text("tool"),
        text("decision"),
        text("by"),
        t["bytes_in"],
        t["bytes_out"],
    )
}

/// `shadow guard at pre-tool-call write_file c2: would deny, the chain decided allow — why`
/// (`, the same` when it agreed).
fn shadow_line(s: &Value) -> String {
    let text = |key: &str| crate::domain::escape::escape(s[key].as_str().unwrap_or(""));
    let call = match (s["tool"].as_str(), s["call_id"].as_str()) {
        (Some(tool), Some(id)) => format!(
            " {} {}",
            crate::domain::escape::escape(tool),
            crate::domain::escape::escape(id)
        ),
        _ => String::new(),
    };
    let verdict = if s["differs"] == true {
        format!("the chain decided {}", text("chain"))
    } else {
        "as the chain did".to_owned()
    };
    let reason = s["reason"]
        .as_str()
        .map(|r| format!(" — {}", crate::domain::escape::escape(r)))
        .unwrap_or_default();
    format!(
        "shadow {} at {}{call}: would {}, {verdict}{reason}",
        text("plugin"),
        text("point"),
        text("decision"),
    )
}

fn print_turn(turn: &Turn) {
    let started = turn.started.map(ts).unwrap_or_default();
    let prompt = turn
        .prompt_sha256
        .as_deref()
        .map(|h| {
            format!(
                " prompt sha256 {h} ({} bytes)",
                turn.prompt_bytes.unwrap_or(0)
            )
        })
        .unwrap_or_default();
    let what = match turn.compaction {
        Some((from, to)) => format!(" compaction of history {from}–{to}"),
        None => String::new(),
    };
    outln!(
        "── {started} session {}:{what} {}{prompt}",
        turn.session,
        turn.outcome()
    );
    if let Some(plugin) = &turn.cancelled_by {
        outln!("   cancelled by plugin {plugin}; nothing of the prompt was sent");
    }
    for f in &turn.files {
        outln!(
            "   file {}  {} bytes  sha256 {}{}",
            f["path"].as_str().unwrap_or(""),
            f["bytes"],
            f["sha256"].as_str().unwrap_or(""),
            if f["truncated"] == true {
                "  truncated"
            } else {
                ""
            }
        );
    }
    for d in &turn.decisions {
        let reason = d["reason"]
            .as_str()
            .map(|r| format!(": {r}"))
            .unwrap_or_default();
        outln!(
            "   plugin {} at {}: {}{reason}",
            d["plugin"].as_str().unwrap_or(""),
            d["hook"].as_str().unwrap_or(""),
            d["decision"].as_str().unwrap_or(""),
        );
    }
    for t in &turn.tools {
        outln!("   {}", tool_line(t));
    }
    for s in &turn.shadow {
        outln!("   {}", shadow_line(s));
    }
    for r in &turn.requests {
        let outcome = match (r["outcome"].as_str(), r["reason"].as_str()) {
            (Some("failed"), Some(why)) => {
                format!(" — failed: {}", crate::domain::escape::escape(why))
            }
            (Some(outcome), _) => format!(" — {outcome}"),
            (None, _) => String::new(),
        };
        let tokens = serde_json::from_value::<crate::domain::Usage>(r["usage"].clone())
            .map(|u| format!("; {}", crate::front::usage::tokens_line(&u)))
            .unwrap_or_default();
        outln!(
            "   request to {} model {}: {} items, {} bytes{outcome}{tokens}",
            r["provider"].as_str().unwrap_or(""),
            r["model"].as_str().unwrap_or("?"),
            r["items"],
            r["bytes"],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tool_line_shows_the_plugins_http_figures_and_failure() {
        let line = tool_line(&json!({
            "tool": "fetcher", "plugin": "web", "decision": "allowed", "by": "default",
            "grants": {"fs": "none", "allowed_hosts": ["api.example.com"], "env": []},
            "bytes_in": 12, "bytes_out": 40, "is_error": true,
            "http": {"requests": 2, "refused": 1, "bytes_out": 30, "bytes_in": 400},
            "plugin_failure": "call ran past its 200 ms deadline\n",
        }));
        assert_eq!(
            line,
            "tool fetcher (plugin web, fs none, hosts [api.example.com], env []): allowed by default; \
             12 bytes in, 40 out; http 2 requests (1 refused), 30 bytes out, 400 in; \
             plugin failed: call ran past its 200 ms deadline\\n"
        );
        let plain = tool_line(&json!({
            "tool": "read_file", "decision": "allowed", "by": "default",
            "bytes_in": 2, "bytes_out": 3, "is_error": false,
        }));
        assert_eq!(
            plain,
            "tool read_file (built-in): allowed by default; 2 bytes in, 3 out"
        );
    }

    fn record(event: AuditEvent) -> (AuditRecord, Option<ChainHead>) {
        let record = AuditRecord {
            ts: SystemTime::UNIX_EPOCH,
            event,
        };
        (record, None)
    }

    fn request(items: u64) -> (AuditRecord, Option<ChainHead>) {
        record(AuditEvent::ModelRequest {
            provider: "openai".into(),
            model: None,
            items,
            bytes: 1,
        })
    }

    fn outcome(outcome: &str) -> (AuditRecord, Option<ChainHead>) {
        record(AuditEvent::ModelOutcome {
            outcome: outcome.into(),
            reason: None,
            usage: None,
        })
    }

    #[test]
    fn a_compaction_inside_a_turn_is_its_own_group_and_the_turn_goes_on_after_it() {
        let turns = group(
            "s",
            vec![
                record(AuditEvent::TurnStarted {
                    prompt_sha256: "h".into(),
                    prompt_bytes: 2,
                }),
                record(AuditEvent::CompactionStarted { from: 1, to: 9 }),
                request(10),
                outcome("ok"),
                record(AuditEvent::FileSent {
                    path: "a.txt".into(),
                    bytes: 1,
                    sha256: "x".into(),
                    truncated: false,
                }),
                record(AuditEvent::CompactionEnded {
                    outcome: "ok".into(),
                }),
                request(3),
                outcome("cancelled"),
            ],
        );
        assert_eq!(turns.len(), 2);
        assert_eq!(turns[0].requests.len(), 1);
        assert_eq!(turns[0].requests[0]["items"], 3);
        assert_eq!(turns[0].outcome(), "cancelled");
        assert_eq!(turns[1].compaction, Some((1, 9)));
        assert_eq!(turns[1].files.len(), 1);
        assert_eq!(turns[1].outcome(), "compacted");
        // A log written before outcomes were recorded: the request has none.
        let old = group("s", vec![request(1)]);
        assert_eq!(old[0].outcome(), "sent");
        assert!(old[0].requests[0].get("outcome").is_none());
    }
}
