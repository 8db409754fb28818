//! What a command hook answered, read as Claude Code and Codex read it: exit 2 blocks with
//! standard error as the reason; exit 0 hands over standard output — a JSON object
//! (`decision`, `reason`, `continue`, `stopReason`, `systemMessage`, `hookSpecificOutput`), or
//! on `UserPromptSubmit` and `SessionStart` plain text that is context. Any other exit is a
//! failure, as is output that is neither. Fields warden does not act on at the event are
//! listed ([`HookReply::unhonoured`]) for the caller to name once; none is dropped silently.

use serde_json::{Map, Value};

use super::hook_event::HookEvent;

/// A `PreToolUse` hook's `permissionDecision`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Permission {
    /// No objection (warden's rules, mode and approval still apply).
    Allow,
    /// Deny the call.
    Deny,
    /// Ask the person.
    Ask,
}

/// A hook's answer, read.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookReply {
    /// Exit 2 (standard error) or `decision: "block"` (`reason`): why.
    pub block: Option<String>,
    /// `permissionDecision` and its reason (`PreToolUse`).
    pub permission: Option<(Permission, Option<String>)>,
    /// `updatedInput` (`PreToolUse`), in Claude Code's keys.
    pub updated_input: Option<Value>,
    /// `additionalContext`, or plain output where it is context.
    pub context: Option<String>,
    /// `updatedToolOutput` / `updatedMCPToolOutput` (`PostToolUse`), as text.
    pub updated_output: Option<String>,
    /// `continue: false`: `stopReason`, or a default.
    pub stop: Option<String>,
    /// `systemMessage`: for the person.
    pub system_message: Option<String>,
    /// Fields given that warden does not act on at this event.
    pub unhonoured: Vec<String>,
}

/// Read what a hook run for `event` left: its exit `code`, `stdout` and `stderr`.
pub fn parse_reply(
    event: HookEvent,
    code: i32,
    stdout: &str,
    stderr: &str,
) -> Result<HookReply, String> {
    match code {
        0 => {}
        2 => {
            let reason = stderr.trim();
            // Some SDKs exit 2 with their JSON answer on standard output and nothing on
            // standard error: its reason is the best one there is.
            let from_json = || {
                let value: Value = serde_json::from_str(stdout.trim()).ok()?;
                let reason = value.get("reason").or_else(|| {
                    value
                        .get("hookSpecificOutput")?
                        .get("permissionDecisionReason")
                })?;
                reason
                    .as_str()
                    .filter(|r| !r.trim().is_empty())
                    .map(str::to_owned)
            };
            return Ok(HookReply {
                block: Some(if reason.is_empty() {
                    from_json().unwrap_or_else(|| {
                        "blocked by the hook (exit 2, nothing on standard error)".to_owned()
                    })
                } else {
                    reason.to_owned()
                }),
                ..HookReply::default()
            });
        }
        other => {
            let said = stderr.trim();
            return Err(if said.is_empty() {
                format!("exited with status {other}")
            } else {
                format!("exited with status {other}: {}", first_chars(said, 400))
            });
        }
    }
    let text = stdout.trim();
    if text.is_empty() {
        return Ok(HookReply::default());
    }
    if !text.starts_with('{') {
        return Ok(match event {
            HookEvent::UserPromptSubmit | HookEvent::SessionStart => HookReply {
                context: Some(text.to_owned()),
                ..HookReply::default()
            },
            // Claude Code shows other plain output in its transcript view only.
            _ => HookReply::default(),
        });
    }
    let value: Value =
        serde_json::from_str(text).map_err(|e| format!("its output is not valid JSON: {e}"))?;
    let Value::Object(map) = value else {
        return Err("its output is not a JSON object".into());
    };
    read_object(event, &map)
}

/// A reply's fields in key order, however the hook wrote them: when two fields decide the
/// same thing, the same one wins every time.
fn by_key(map: &Map<String, Value>) -> Vec<(&String, &Value)> {
    let mut fields: Vec<(&String, &Value)> = map.iter().collect();
    fields.sort_by(|a, b| a.0.cmp(b.0));
    fields
}

fn read_object(event: HookEvent, map: &Map<String, Value>) -> Result<HookReply, String> {
    let mut reply = HookReply::default();
    let reason = string(map, "reason")?;
    for (key, value) in by_key(map) {
        match key.as_str() {
            "continue" => {
                let go_on = value.as_bool().ok_or("`continue` is not true or false")?;
                if !go_on {
                    if can_stop(event) {
                        reply.stop = Some(
                            string(map, "stopReason")?
                                .unwrap_or_else(|| format!("a {event} hook stopped the turn")),
                        );
                    } else {
                        reply.unhonoured.push("continue".into());
                    }
                }
            }
            "stopReason" | "reason" | "hookSpecificOutput" => {}
            "suppressOutput" => {
                // warden never shows a hook's output: nothing to suppress.
                value
                    .as_bool()
                    .ok_or("`suppressOutput` is not true or false")?;
            }
            "systemMessage" => reply.system_message = string(map, key)?,
            "decision" => match (value.as_str(), event) {
                (None, _) if value.is_null() => {}
                (Some("block"), e) if can_block(e) => {
                    reply.block = Some(
                        reason
                            .clone()
                            .unwrap_or_else(|| format!("blocked by a {event} hook")),
                    );
                }
                // The older `PreToolUse` spelling.
                (Some("approve"), HookEvent::PreToolUse) => {
                    reply.permission = Some((Permission::Allow, reason.clone()));
                }
                (Some("block" | "approve"), _) => reply.unhonoured.push("decision".into()),
                _ => return Err(format!("`decision` is {value}, not \"block\"")),
            },
            other => reply.unhonoured.push(other.to_owned()),
        }
    }
    if let Some(specific) = map.get("hookSpecificOutput")
        && !specific.is_null()
    {
        let Value::Object(specific) = specific else {
            return Err("`hookSpecificOutput` is not a JSON object".into());
        };
        read_specific(event, specific, &mut reply)?;
    }
    Ok(reply)
}

/// `hookSpecificOutput`'s fields at `event`.
fn read_specific(
    event: HookEvent,
    map: &Map<String, Value>,
    reply: &mut HookReply,
) -> Result<(), String> {
    for (key, value) in by_key(map) {
        match (key.as_str(), event) {
            ("hookEventName", _) => {}
            ("permissionDecision", HookEvent::PreToolUse) => {
                let decision = match value.as_str() {
                    Some("allow") => Permission::Allow,
                    Some("deny") => Permission::Deny,
                    Some("ask") => Permission::Ask,
                    _ if value.is_null() => continue,
                    _ => {
                        return Err(format!(
                            "`permissionDecision` is {value}, not \"allow\", \"deny\" or \"ask\""
                        ));
                    }
                };
                reply.permission = Some((decision, string(map, "permissionDecisionReason")?));
            }
            ("permissionDecisionReason", HookEvent::PreToolUse) => {}
            ("updatedInput", HookEvent::PreToolUse) if !value.is_null() => {
                if !value.is_object() {
                    return Err("`updatedInput` is not a JSON object".into());
                }
                reply.updated_input = Some(value.clone());
            }
            ("updatedToolOutput" | "updatedMCPToolOutput", HookEvent::PostToolUse)
                if !value.is_null() =>
            {
                reply.updated_output = Some(match value {
                    Value::String(text) => text.clone(),
                    other => other.to_string(),
                });
            }
            (
                "additionalContext",
                HookEvent::PreToolUse
                | HookEvent::PostToolUse
                | HookEvent::UserPromptSubmit
                | HookEvent::SessionStart,
            ) => {
                reply.context = string(map, key)?.filter(|c| !c.trim().is_empty());
            }
            (_, _) if value.is_null() => {}
            (other, _) => reply.unhonoured.push(format!("hookSpecificOutput.{other}")),
        }
    }
    Ok(())
}

/// Events whose `decision: "block"` warden acts on.
fn can_block(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::UserPromptSubmit
            | HookEvent::PreToolUse
            | HookEvent::PostToolUse
            | HookEvent::Stop
            | HookEvent::SubagentStop
    )
}

/// Events whose `continue: false` warden acts on: the prompt is cancelled, the call denied,
/// the turn ends.
fn can_stop(event: HookEvent) -> bool {
    matches!(
        event,
        HookEvent::UserPromptSubmit
            | HookEvent::SessionStart
            | HookEvent::PreToolUse
            | HookEvent::Stop
            | HookEvent::SubagentStop
    )
}

/// `map[key]` as a string: absent or `null` is `None`, another type an error.
fn string(map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(other) => Err(format!("`{key}` is {other}, not a string")),
    }
}

/// The first `n` characters of `text`, with an ellipsis when cut.
fn first_chars(text: &str, n: usize) -> String {
    match text.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn ok(event: HookEvent, stdout: &str) -> HookReply {
        match parse_reply(event, 0, stdout, "") {
            Ok(reply) => reply,
            Err(err) => panic!("{stdout}: {err}"),
        }
    }

    #[test]
    fn exit_two_blocks_with_standard_error_and_other_codes_fail() {
        let reply = parse_reply(HookEvent::PreToolUse, 2, "{}", "no rm -rf\n");
        assert_eq!(reply.map(|r| r.block), Ok(Some("no rm -rf".to_owned())));
        let sdk = parse_reply(
            HookEvent::PreToolUse,
            2,
            r#"{"decision":"block","reason":"no"}"#,
            "",
        );
        assert_eq!(sdk.map(|r| r.block), Ok(Some("no".to_owned())));
        let failed = parse_reply(HookEvent::PreToolUse, 1, "", "Traceback …");
        assert_eq!(failed, Err("exited with status 1: Traceback …".to_owned()));
        assert!(parse_reply(HookEvent::PreToolUse, 0, "{not json", "").is_err());
        assert!(parse_reply(HookEvent::PreToolUse, 0, "{\"decision\": 3}", "").is_err());
    }

    #[test]
    fn plain_output_is_context_where_documented_and_ignored_elsewhere() {
        let context = ok(HookEvent::UserPromptSubmit, "branch: main\n").context;
        assert_eq!(context.as_deref(), Some("branch: main"));
        assert_eq!(ok(HookEvent::PreToolUse, "checked\n"), HookReply::default());
    }

    #[test]
    fn pre_tool_use_answers_are_read_in_both_spellings() {
        let reply = ok(
            HookEvent::PreToolUse,
            &json!({"hookSpecificOutput": {"hookEventName": "PreToolUse",
                "permissionDecision": "deny", "permissionDecisionReason": "no"}})
            .to_string(),
        );
        assert_eq!(
            reply.permission,
            Some((Permission::Deny, Some("no".into())))
        );
        let reply = ok(
            HookEvent::PreToolUse,
            r#"{"decision": "approve", "reason": "fine"}"#,
        );
        assert_eq!(
            reply.permission,
            Some((Permission::Allow, Some("fine".into())))
        );
        let reply = ok(
            HookEvent::PreToolUse,
            r#"{"hookSpecificOutput": {"permissionDecision": "allow", "updatedInput": {"command": "ls"}}}"#,
        );
        assert_eq!(reply.updated_input, Some(json!({"command": "ls"})));
    }

    #[test]
    fn what_warden_cannot_act_on_is_named() {
        let reply = ok(
            HookEvent::SessionEnd,
            r#"{"continue": false, "decision": "block", "reason": "x", "async": true,
                "hookSpecificOutput": {"additionalContext": "y"}}"#,
        );
        assert_eq!(
            reply.unhonoured,
            [
                "async",
                "continue",
                "decision",
                "hookSpecificOutput.additionalContext"
            ]
        );
        let reply = ok(
            HookEvent::Stop,
            r#"{"continue": false, "stopReason": "done"}"#,
        );
        assert_eq!(reply.stop.as_deref(), Some("done"));
        assert!(reply.unhonoured.is_empty());
    }

    /// Every example answer valid under Codex's published output schemas is read, and what
    /// warden does not act on (`env` at `SessionStart`, …) is named.
    #[test]
    fn every_answer_codexs_schemas_allow_is_understood() {
        macro_rules! example {
            ($name:literal) => {
                include_str!(concat!(
                    "../../../tests/fixtures/codex-hook-schemas/examples/",
                    $name,
                    ".json"
                ))
            };
        }
        let examples = [
            (HookEvent::PreToolUse, example!("pre-tool-use")),
            (HookEvent::PostToolUse, example!("post-tool-use")),
            (HookEvent::UserPromptSubmit, example!("user-prompt-submit")),
            (HookEvent::Stop, example!("stop")),
            (HookEvent::SubagentStop, example!("subagent-stop")),
            (HookEvent::SessionStart, example!("session-start")),
            (HookEvent::PreCompact, example!("pre-compact")),
        ];
        for (event, text) in examples {
            let reply = ok(event, text);
            match event {
                HookEvent::PreToolUse => {
                    assert_eq!(
                        reply.permission,
                        Some((Permission::Allow, Some("fine".into())))
                    );
                    assert_eq!(reply.updated_input, Some(json!({"command": "ls -la"})));
                    assert!(reply.context.is_some() && reply.system_message.is_some());
                }
                HookEvent::PostToolUse => {
                    assert_eq!(reply.updated_output.as_deref(), Some("formatted output"));
                    assert!(reply.block.is_some() && reply.context.is_some());
                }
                HookEvent::Stop | HookEvent::SubagentStop => assert!(reply.block.is_some()),
                HookEvent::SessionStart => {
                    assert_eq!(reply.context.as_deref(), Some("open issues: 3"));
                    assert_eq!(reply.unhonoured, ["hookSpecificOutput.env"]);
                }
                _ => {}
            }
            if event != HookEvent::SessionStart {
                assert!(
                    reply.unhonoured.is_empty(),
                    "{event}: {:?}",
                    reply.unhonoured
                );
            }
        }
    }

    proptest! {
        /// Whatever a hook prints and however it exits, reading it never panics, and only
        /// exit 0 and 2 can be read as an answer.
        #[test]
        fn any_output_reads_or_fails_cleanly(
            code in -1i32..256,
            stdout in ".{0,200}",
            stderr in ".{0,50}",
            event in prop::sample::select(HookEvent::ALL.to_vec()),
        ) {
            let read = parse_reply(event, code, &stdout, &stderr);
            if code != 0 && code != 2 {
                prop_assert!(read.is_err());
            }
            if code == 2 {
                prop_assert!(read.is_ok_and(|r| r.block.is_some()));
            }
        }

        /// Any JSON object of the documented fields is read without error.
        #[test]
        fn documented_objects_are_read(
            go_on in any::<bool>(),
            block in any::<bool>(),
            permission in prop::sample::select(vec!["allow", "deny", "ask"]),
            context in "[a-z ]{0,20}",
            event in prop::sample::select(HookEvent::ALL.to_vec()),
        ) {
            let mut out = json!({
                "continue": go_on,
                "stopReason": "s",
                "suppressOutput": false,
                "systemMessage": "m",
                "reason": "r",
                "hookSpecificOutput": {"hookEventName": event.name(), "additionalContext": context},
            });
            if block {
                out["decision"] = json!("block");
            }
            if event == HookEvent::PreToolUse {
                out["hookSpecificOutput"]["permissionDecision"] = json!(permission);
            }
            prop_assert!(parse_reply(event, 0, &out.to_string(), "").is_ok());
        }
    }
}
