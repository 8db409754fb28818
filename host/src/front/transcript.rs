//! One line per tool call and its outcome, as `chat` and `run` show them: `✓ read_file a.txt`,
//! `✗ shell cargo test — exit 101`, `✗ write_file .env — denied by mode: read-only`; a
//! command's output folded to its last lines; a change's diff folded past a few lines. Everything
//! the model or a command chose (names, paths, reasons, output) is escaped, so that nothing in
//! it can drive the terminal.

use serde_json::Value;

use crate::domain::escape::{escape, escape_capped};
use crate::domain::plan::{PlanStep, StepStatus};
use crate::domain::{ToolCall, TurnEvent};

/// Longest target or reason shown on one line.
const MAX_SHOWN: usize = 160;
/// Output lines shown under a command (the rest is folded).
pub const TAIL_LINES: usize = 8;
/// Diff lines shown under a change (the rest is folded).
pub const DIFF_LINES: usize = 20;

/// What a call acts on, for one line: its `path`, `command`, `pattern` or `query`, else its
/// arguments as compact JSON (capped, escaped).
pub fn target(arguments: &Value) -> String {
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

fn head(call: &ToolCall) -> String {
    let name = escape_capped(&call.name, MAX_SHOWN);
    let target = target(&call.arguments);
    if target.is_empty() {
        name
    } else {
        format!("{name} {target}")
    }
}

/// The model's plan as a checklist: a head line (`plan: 1 of 3 done — why`), then one
/// `[x] step` line per step (`[~]` in progress, `[ ]` pending), escaped and capped.
pub fn plan_lines(steps: &[PlanStep], explanation: Option<&str>) -> Vec<String> {
    let done = steps
        .iter()
        .filter(|s| s.status == StepStatus::Done)
        .count();
    let mut head = format!("plan: {done} of {} done", steps.len());
    if let Some(why) = explanation {
        head.push_str(" — ");
        head.push_str(&escape_capped(why, MAX_SHOWN));
    }
    let mut lines = vec![head];
    lines.extend(steps.iter().map(|s| {
        format!(
            "  {} {}",
            s.status.mark(),
            escape_capped(&s.step, MAX_SHOWN)
        )
    }));
    lines
}

/// `✓ read_file a.txt`, `✓ shell ls — exit 0`, `✗ shell cargo test — exit 101`, or
/// `✗ tool x.txt — error`: a call that ran. A ✓ only when its result is no error and its
/// command (if any) exited 0.
pub fn ran_line(call: &ToolCall, is_error: bool, exit_code: Option<i32>) -> String {
    let mark = if TurnEvent::ran_failed(is_error, exit_code) {
        '✗'
    } else {
        '✓'
    };
    let head = head(call);
    match (exit_code, is_error) {
        (Some(code), _) => format!("{mark} {head} — exit {code}"),
        (None, true) => format!("{mark} {head} — error"),
        (None, false) => format!("{mark} {head}"),
    }
}

/// `✗ write_file .env — denied by mode: read-only`: a call that was denied by `by`.
pub fn denied_line(call: &ToolCall, by: &str, reason: &str) -> String {
    // The mode's reason starts with the mode's name.
    let why = if by == "mode" {
        reason.split(':').next().unwrap_or(reason)
    } else {
        reason
    };
    format!(
        "✗ {} — denied by {by}: {}",
        head(call),
        escape_capped(why, MAX_SHOWN)
    )
}

/// The last `keep` lines of `output` (escaped, each capped), and how many lines came before
/// them.
pub fn tail(output: &str, keep: usize) -> (usize, Vec<String>) {
    let lines: Vec<&str> = output.lines().collect();
    let hidden = lines.len().saturating_sub(keep);
    let shown = lines[hidden..]
        .iter()
        .map(|line| escape_capped(line, 400))
        .collect();
    (hidden, shown)
}

/// The note for `hidden` folded lines: `… 12 lines above`, `how` saying where they are.
pub fn folded(hidden: usize, how: &str) -> Option<String> {
    (hidden > 0).then(|| {
        let s = if hidden == 1 { "" } else { "s" };
        format!("… {hidden} line{s} {how}")
    })
}

/// A diff's lines, escaped, the first `keep` of them, and how many more there were.
pub fn diff_head(diff: &str, keep: usize) -> (Vec<String>, usize) {
    let lines: Vec<&str> = diff.lines().collect();
    let more = lines.len().saturating_sub(keep);
    let shown = lines
        .iter()
        .take(keep)
        .map(|line| escape(line).into_owned())
        .collect();
    (shown, more)
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
    fn lines_name_the_tool_its_target_its_exit_and_who_denied_it() {
        let read = call("read_file", serde_json::json!({"path": "a.txt"}));
        assert_eq!(ran_line(&read, false, None), "✓ read_file a.txt");
        let test = call("shell", serde_json::json!({"command": "cargo test"}));
        assert_eq!(
            ran_line(&test, false, Some(101)),
            "✗ shell cargo test — exit 101"
        );
        assert_eq!(
            ran_line(&test, false, Some(0)),
            "✓ shell cargo test — exit 0"
        );
        assert_eq!(
            ran_line(&call("now", serde_json::json!({})), true, None),
            "✗ now — error"
        );
        let write = call(
            "write_file",
            serde_json::json!({"path": ".env\u{1b}[2J", "content": "x"}),
        );
        let reason = crate::domain::Mode::ReadOnly
            .denial("write_file", crate::domain::builtin::ToolEffect::Write);
        assert_eq!(
            denied_line(&write, "mode", &reason),
            "✗ write_file .env\\u{1b}[2J — denied by mode: read-only"
        );
        assert_eq!(
            denied_line(
                &call("shell", serde_json::json!({"command": "ls"})),
                "approval",
                "the person declined to run it"
            ),
            "✗ shell ls — denied by approval: the person declined to run it"
        );
    }

    #[test]
    fn a_tail_keeps_the_last_lines_escaped() {
        let (hidden, shown) = tail("a\nb\nc\x1b[2J\n", 2);
        assert_eq!(hidden, 1);
        assert_eq!(shown, vec!["b".to_owned(), "c\\u{1b}[2J".to_owned()]);
        assert_eq!(tail("", 3), (0, Vec::new()));
        assert_eq!(folded(0, "x"), None);
        assert_eq!(folded(2, "above").as_deref(), Some("… 2 lines above"));
    }
}
