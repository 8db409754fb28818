//! One line per tool call and its outcome, as `chat` and `run -v` show them:
//! `✓ read_file a.txt`, `✗ write_file .env — denied by mode: read-only`. Everything the model
//! chose (names, paths, reasons) is escaped, so that nothing in it can drive the terminal.

use serde_json::Value;

use crate::domain::escape::escape_capped;
use crate::domain::{DecidedBy, Settled, ToolCall};

/// Longest target or reason shown on one line.
const MAX_SHOWN: usize = 160;

/// What a call acts on, for one line: its `path`, `command`, `pattern` or `query`, else its
/// arguments as compact JSON (capped, escaped).
pub(crate) fn target(arguments: &Value) -> String {
    for key in ["path", "command", "pattern", "query"] {
        if let Some(Value::String(text)) = arguments.get(key) {
            return escape_capped(text, MAX_SHOWN);
        }
    }
    match arguments.as_object() {
        Some(object) if object.is_empty() => String::new(),
        _ => escape_capped(&arguments.to_string(), MAX_SHOWN),
    }
}

/// `✓ read_file a.txt`, `✓ tool x.txt (error result)`, or `✗ write_file .env — denied by
/// mode: read-only`.
pub(crate) fn outcome_line(call: &ToolCall, settled: &Settled) -> String {
    let name = escape_capped(&call.name, MAX_SHOWN);
    let target = target(&call.arguments);
    let head = if target.is_empty() {
        name
    } else {
        format!("{name} {target}")
    };
    match settled {
        Settled::Ran { is_error: false } => format!("✓ {head}"),
        Settled::Ran { is_error: true } => format!("✓ {head} (error result)"),
        Settled::Denied { by, reason } => {
            let why = match by {
                // The mode's reason starts with the mode's name.
                DecidedBy::Mode => reason.split(':').next().unwrap_or(reason).to_owned(),
                _ => reason.clone(),
            };
            format!(
                "✗ {head} — denied by {by}: {}",
                escape_capped(&why, MAX_SHOWN)
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: Value) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: name.into(),
            arguments,
        }
    }

    #[test]
    fn lines_name_the_tool_its_target_and_who_denied_it() {
        let read = call("read_file", serde_json::json!({"path": "a.txt"}));
        assert_eq!(
            outcome_line(&read, &Settled::Ran { is_error: false }),
            "✓ read_file a.txt"
        );
        let write = call(
            "write_file",
            serde_json::json!({"path": ".env\u{1b}[2J", "content": "x"}),
        );
        let denied = Settled::Denied {
            by: DecidedBy::Mode,
            reason: crate::domain::Mode::ReadOnly
                .denial("write_file", crate::domain::builtin::ToolEffect::Write),
        };
        assert_eq!(
            outcome_line(&write, &denied),
            "✗ write_file .env\\u{1b}[2J — denied by mode: read-only"
        );
        let declined = Settled::Denied {
            by: DecidedBy::Approval,
            reason: "the person declined to run it".into(),
        };
        assert_eq!(
            outcome_line(
                &call("shell", serde_json::json!({"command": "ls"})),
                &declined
            ),
            "✗ shell ls — denied by approval: the person declined to run it"
        );
        assert_eq!(
            outcome_line(
                &call("now", serde_json::json!({})),
                &Settled::Ran { is_error: true }
            ),
            "✓ now (error result)"
        );
    }
}
