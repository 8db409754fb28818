//! The `echo` provider: offline and deterministic, so that everything else runs without a
//! model. Its answer is clearly labelled (it starts with [`LABEL`]) and summarises what it
//! received: the number of items by role, the files it saw, and the last user text. It never
//! calls tools.
//!
//! A compaction's summary request (its last item is the summary prompt) gets
//! [`compaction_summary`] instead.
//!
//! Files are recognised in system items starting `[File: <path>]`, in `<file path="…">` blocks
//! (reminder placement), and in the `path` argument of `read_file` / `list_files` tool calls.

use super::{CancelToken, LlmError, Provider, Request, Response, StopReason};
use crate::domain::{Item, SUMMARY_PROMPT, StreamEvent};

/// How every echo answer begins.
pub const LABEL: &str = "[echo provider]";

/// The offline provider.
#[derive(Debug, Clone, Default)]
pub struct EchoProvider;

impl EchoProvider {
    /// The echo provider.
    pub fn new() -> Self {
        Self
    }
}

impl Provider for EchoProvider {
    fn name(&self) -> &str {
        "echo"
    }

    fn model(&self) -> &str {
        "echo"
    }

    fn complete(
        &mut self,
        req: &Request,
        on_event: &mut dyn FnMut(&StreamEvent),
        cancel: &CancelToken,
    ) -> Result<Response, LlmError> {
        if cancel.is_cancelled() {
            return Err(LlmError::Cancelled {
                partial_text: String::new(),
            });
        }
        let text = match req.items.split_last() {
            Some((Item::User { text }, before)) if text == SUMMARY_PROMPT => {
                compaction_summary(before)
            }
            _ => summary(&req.items),
        };
        on_event(&StreamEvent::TextDelta(text.clone()));
        Ok(Response {
            text,
            tool_calls: Vec::new(),
            stop_reason: StopReason::EndTurn,
            usage: None,
        })
    }
}

/// The echo answer to a compaction's summary request over `items`: deterministic, naming the
/// items by role, the files seen and every user text, in order.
pub fn compaction_summary(items: &[Item]) -> String {
    let mut out = format!("{LABEL} summary: {}", summary(items));
    let asked: Vec<String> = items
        .iter()
        .filter_map(|i| match i {
            Item::User { text } => Some(format!("{text:?}")),
            _ => None,
        })
        .collect();
    out.push_str("\nuser texts: ");
    if asked.is_empty() {
        out.push_str("none");
    } else {
        out.push_str(&asked.join(", "));
    }
    out
}

/// The echo answer for `items`.
pub fn summary(items: &[Item]) -> String {
    let mut counts = [0usize; 4];
    let mut files: Vec<String> = Vec::new();
    let mut last_user = None;
    for item in items {
        match item {
            Item::User { text } => {
                counts[0] += 1;
                last_user = Some(text.as_str());
            }
            Item::System { text } => {
                counts[1] += 1;
                file_names_in(text, &mut files);
            }
            Item::Assistant { tool_calls, .. } => {
                counts[2] += 1;
                for call in tool_calls {
                    if matches!(call.name.as_str(), "read_file" | "list_files")
                        && let Some(path) = call.arguments.get("path").and_then(|p| p.as_str())
                    {
                        add(&mut files, path);
                    }
                }
            }
            Item::ToolResult { .. } => counts[3] += 1,
        }
    }
    let roles = ["user", "system", "assistant", "tool"]
        .iter()
        .zip(counts)
        .filter(|(_, n)| *n > 0)
        .map(|(role, n)| format!("{n} {role}"))
        .collect::<Vec<_>>()
        .join(", ");
    let total: usize = counts.iter().sum();
    let noun = if total == 1 { "item" } else { "items" };
    let mut out = format!("{LABEL} received {total} {noun}");
    if !roles.is_empty() {
        out.push_str(&format!(" ({roles})"));
    }
    out.push_str(".\nfiles: ");
    if files.is_empty() {
        out.push_str("none");
    } else {
        out.push_str(&files.join(", "));
    }
    out.push_str("\nlast user text: ");
    match last_user {
        Some(text) => out.push_str(&format!("{text:?}")),
        None => out.push_str("none"),
    }
    out
}

fn file_names_in(text: &str, files: &mut Vec<String>) {
    if let Some(rest) = text.strip_prefix("[File: ") {
        let first_line = rest.lines().next().unwrap_or_default();
        if let Some(end) = first_line.rfind(']') {
            add(files, &first_line[..end]);
        }
    }
    if text.trim_start().starts_with("<system-reminder>") {
        let mut rest = text;
        while let Some(start) = rest.find("<file path=\"") {
            rest = &rest[start + "<file path=\"".len()..];
            if let Some(end) = rest.find('"') {
                add(files, &rest[..end]);
                rest = &rest[end..];
            }
        }
    }
}

fn add(files: &mut Vec<String>, path: &str) {
    if !files.iter().any(|f| f == path) {
        files.push(path.to_owned());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    #[test]
    fn a_summary_request_gets_the_deterministic_compaction_summary() {
        let req = Request {
            model: "echo".into(),
            system: None,
            items: vec![
                Item::user("first"),
                Item::assistant("ok"),
                Item::user("second"),
                Item::user(SUMMARY_PROMPT),
            ],
            tools: Vec::new(),
            max_tokens: 100,
            stream: false,
        };
        let r = EchoProvider::new().complete(&req, &mut |_| {}, &CancelToken::new());
        let text = r.map(|r| r.text).unwrap_or_default();
        assert_eq!(
            text,
            "[echo provider] summary: [echo provider] received 3 items (2 user, 1 assistant).\nfiles: none\nlast user text: \"second\"\nuser texts: \"first\", \"second\""
        );
    }

    #[test]
    fn summarises_roles_files_and_last_user_text() {
        let items = vec![
            Item::user("first"),
            Item::system("[File: src/a.rs]\nfn main() {}"),
            Item::system(
                "<system-reminder>\n<file path=\"b.md\">x</file>\n<file path=\"c/d.txt\">y</file>\n</system-reminder>",
            ),
            Item::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "t1".into(),
                    name: "read_file".into(),
                    arguments: serde_json::json!({"path": "e.toml"}),
                }],
            },
            Item::ToolResult {
                call_id: "t1".into(),
                content: "k = 1".into(),
                is_error: false,
            },
            Item::user("explain \"this\""),
        ];
        assert_eq!(
            summary(&items),
            "[echo provider] received 6 items (2 user, 2 system, 1 assistant, 1 tool).\n\
             files: src/a.rs, b.md, c/d.txt, e.toml\n\
             last user text: \"explain \\\"this\\\"\""
        );
    }

    #[test]
    fn reports_each_text_once_and_no_tools() {
        let req = Request {
            model: "echo".into(),
            system: None,
            items: vec![Item::user("hi")],
            tools: Vec::new(),
            max_tokens: 10,
            stream: true,
        };
        let mut events = Vec::new();
        let r = EchoProvider::new()
            .complete(&req, &mut |e| events.push(e.clone()), &CancelToken::new())
            .unwrap_or_else(|e| panic!("{e}"));
        assert!(r.text.starts_with(LABEL));
        assert!(r.tool_calls.is_empty());
        assert_eq!(events, vec![StreamEvent::TextDelta(r.text.clone())]);
    }
}
