//! What a command hook reads on its standard input: Claude Code's JSON for its event, with
//! exactly the fields Codex's published input schema of that event allows (Codex refuses
//! others), and Claude Code's fields for the events Codex has no schema for.

use std::path::Path;

use serde_json::{Map, Value, json};

use crate::domain::hook_event::HookEvent;
use crate::domain::hook_tools::to_claude;
use crate::domain::{Mode, ToolCall, ToolOutput, TurnContext};

/// The permission mode as Claude Code names it.
fn permission_mode(mode: Mode) -> &'static str {
    match mode {
        Mode::ReadOnly => "plan",
        Mode::Ask => "default",
        Mode::AutoEdit => "acceptEdits",
        Mode::FullAuto => "bypassPermissions",
    }
}

/// The fields every event has, for `event` (`permission_mode` and `turn_id` where its schema
/// has them).
fn common(event: HookEvent, context: &TurnContext) -> Map<String, Value> {
    let mut map = Map::new();
    map.insert("session_id".into(), json!(context.session));
    map.insert("transcript_path".into(), json!(context.transcript_path));
    map.insert("cwd".into(), json!(context.cwd));
    map.insert("hook_event_name".into(), json!(event.name()));
    map.insert("model".into(), json!(context.model));
    if event != HookEvent::PreCompact {
        map.insert(
            "permission_mode".into(),
            json!(permission_mode(context.mode)),
        );
    }
    if event != HookEvent::PreToolUse {
        map.insert("turn_id".into(), json!(context.turn_id));
    }
    map
}

/// `UserPromptSubmit`.
pub(crate) fn prompt(context: &TurnContext, text: &str) -> Value {
    let mut map = common(HookEvent::UserPromptSubmit, context);
    map.insert("prompt".into(), json!(text));
    Value::Object(map)
}

/// `SessionStart` (`source`: `startup`, `resume`).
pub(crate) fn session_start(context: &TurnContext, source: &str) -> Value {
    let mut map = common(HookEvent::SessionStart, context);
    map.insert("source".into(), json!(source));
    Value::Object(map)
}

/// `SessionEnd`.
pub(crate) fn session_end(context: &TurnContext, reason: &str) -> Value {
    let mut map = common(HookEvent::SessionEnd, context);
    map.insert("reason".into(), json!(reason));
    Value::Object(map)
}

/// `Notification`.
pub(crate) fn notification(context: &TurnContext, message: &str) -> Value {
    let mut map = common(HookEvent::Notification, context);
    map.insert("message".into(), json!(message));
    map.insert("notification_type".into(), json!("permission_prompt"));
    Value::Object(map)
}

/// `PreCompact`.
pub(crate) fn pre_compact(context: &TurnContext, trigger: &str) -> Value {
    let mut map = common(HookEvent::PreCompact, context);
    map.insert("trigger".into(), json!(trigger));
    Value::Object(map)
}

/// `Stop`, or `SubagentStop` in a child session.
pub(crate) fn stop(context: &TurnContext, answer: &str, active: bool) -> Value {
    let event = if context.parent.is_some() {
        HookEvent::SubagentStop
    } else {
        HookEvent::Stop
    };
    let mut map = common(event, context);
    map.insert("stop_hook_active".into(), json!(active));
    map.insert("last_assistant_message".into(), json!(answer));
    if let Some(parent) = &context.parent {
        // The child is the subagent; the session is its parent's.
        map.insert("session_id".into(), json!(parent));
        map.insert("agent_id".into(), json!(context.session));
        map.insert("agent_type".into(), json!("warden-run"));
        map.insert(
            "agent_transcript_path".into(),
            json!(context.transcript_path),
        );
    }
    Value::Object(map)
}

/// `PreToolUse`.
pub(crate) fn pre_tool(context: &TurnContext, call: &ToolCall) -> Value {
    let mut map = common(HookEvent::PreToolUse, context);
    let (name, input) = to_claude(&call.name, &call.arguments, Path::new(&context.cwd));
    map.insert("tool_name".into(), json!(name));
    map.insert("tool_input".into(), input);
    map.insert("tool_use_id".into(), json!(call.id));
    Value::Object(map)
}

/// `PostToolUse`.
pub(crate) fn post_tool(context: &TurnContext, call: &ToolCall, output: &ToolOutput) -> Value {
    let mut map = common(HookEvent::PostToolUse, context);
    let (name, input) = to_claude(&call.name, &call.arguments, Path::new(&context.cwd));
    map.insert("tool_name".into(), json!(name));
    map.insert("tool_input".into(), input);
    map.insert("tool_use_id".into(), json!(call.id));
    let mut response = json!({
        "content": output.content,
        "is_error": output.is_error,
    });
    if let Some(code) = output.exit_code {
        response["exit_code"] = json!(code);
        response["stdout"] = json!(output.content);
    }
    map.insert("tool_response".into(), response);
    Value::Object(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context() -> TurnContext {
        TurnContext {
            session: "s1".into(),
            transcript_path: Some("/h/sessions/s1/history.jsonl".into()),
            cwd: "/w".into(),
            mode: Mode::AutoEdit,
            model: "m".into(),
            turn_id: "t1".into(),
            session_start: None,
            parent: None,
        }
    }

    #[test]
    fn a_bash_call_reads_as_codexs_schema_has_it() {
        let call = ToolCall {
            id: "c1".into(),
            name: "shell".into(),
            arguments: json!({"command": "rm -rf /"}),
        };
        assert_eq!(
            pre_tool(&context(), &call),
            json!({
                "session_id": "s1",
                "transcript_path": "/h/sessions/s1/history.jsonl",
                "cwd": "/w",
                "hook_event_name": "PreToolUse",
                "model": "m",
                "permission_mode": "acceptEdits",
                "tool_name": "Bash",
                "tool_input": {"command": "rm -rf /"},
                "tool_use_id": "c1",
            })
        );
    }

    #[test]
    fn a_childs_stop_is_a_subagents_in_its_parents_session() {
        let mut child = context();
        child.parent = Some("p1".into());
        let input = stop(&child, "done", false);
        assert_eq!(input["hook_event_name"], "SubagentStop");
        assert_eq!(input["session_id"], "p1");
        assert_eq!(input["agent_id"], "s1");
        let input = pre_compact(&context(), "auto");
        assert!(input.get("permission_mode").is_none());
    }
}
