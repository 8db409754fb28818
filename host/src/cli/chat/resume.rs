//! Which session a chat starts on, and resuming one: `--resume ID` (an id or a unique prefix),
//! `--resume` or `/resume` without an id (a numbered list to pick from), `--continue`. A
//! session always runs in the workspace it records, as with `run --session`; `/resume` of a
//! session of another workspace is refused with the command that opens it there. On resume the
//! last exchanges are shown, dimmed, unless `--no-history` is given.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};

use super::Chat;
use super::style::Style;
use crate::cli::common::latest_session;
use crate::cli::exit::CliError;
use crate::cli::session::{SessionChoice, candidates, pick, resolve, target};
use crate::domain::escape::escape_capped;
use crate::domain::{Alert, Item, result_shows_run};
use crate::front::transcript;
use crate::front::workspace::Workspace;
use crate::store::Home;

/// Exchanges (a prompt and what answered it) shown on resume.
const RECAP_EXCHANGES: usize = 3;
/// Lines of one prompt or answer shown on resume.
const RECAP_LINES: usize = 4;
/// Longest line shown on resume, in bytes after escaping.
const RECAP_WIDTH: usize = 200;

/// What the command line asked the chat to start on.
#[derive(Debug)]
pub(super) enum Start {
    /// A new session.
    New,
    /// A new session, as `--continue` found none to continue.
    NothingToContinue,
    /// This existing session (resolved from an id or prefix, or the last one of the workspace).
    Resume(String),
    /// Offer the sessions to pick from.
    Pick,
    /// A new child session of this existing one.
    Child(String),
}

/// The workspace and session asked for, read only: nothing is created here.
pub(super) fn start(
    home: &Home,
    dir: Option<&Path>,
    resume: Option<&str>,
    continue_last: bool,
    parent: Option<&str>,
) -> Result<(PathBuf, Start), CliError> {
    if let Some(asked) = resume.filter(|id| !id.is_empty()) {
        let (workspace, id) = target(home, dir, SessionChoice::Existing(asked))?;
        let id = id.ok_or_else(|| CliError::failure("no session id resolved"))?;
        return Ok((workspace.root, Start::Resume(id)));
    }
    let workspace = Workspace::find(dir)?.root;
    if resume.is_some() {
        return Ok((workspace, Start::Pick));
    }
    if continue_last {
        return Ok(match latest_session(home, &workspace)? {
            Some(id) => (workspace, Start::Resume(id)),
            None => (workspace, Start::NothingToContinue),
        });
    }
    match parent {
        Some(parent) => Ok((workspace, Start::Child(resolve(home, parent)?))),
        None => Ok((workspace, Start::New)),
    }
}

/// The chat reads its prompts from a terminal; piped text is `warden run -`'s.
pub(super) fn require_terminal() -> Result<(), CliError> {
    if std::io::stdin().is_terminal() {
        return Ok(());
    }
    Err(CliError::usage(
        "warden chat needs a terminal, and standard input is not one; to send piped text as \
         one prompt, use `warden run -` (e.g. `echo hi | warden run -`)",
    ))
}

/// `--resume` without an id: the sessions (of `-C`'s workspace when given) to pick from; the
/// one picked, with `workspace` set to its own, or `None` for a new session.
pub(super) fn pick_at_start(
    home: &Home,
    dir: Option<&Path>,
    workspace: &mut PathBuf,
    style: Style,
) -> Result<Option<String>, CliError> {
    let offered = candidates(home, dir.map(|_| workspace.as_path()), None)?;
    if offered.is_empty() {
        eprintln!("{}", style.dim("no session to resume: starting a new one"));
        return Ok(None);
    }
    eprintln!("sessions, most recent first:");
    let Some(id) = pick(&offered, &mut std::io::stdin().lock()) else {
        eprintln!("{}", style.dim("starting a new session"));
        return Ok(None);
    };
    let (found, id) = target(home, dir, SessionChoice::Existing(&id))?;
    *workspace = found.root;
    Ok(id)
}

/// Up to `max` lines of `text`, escaped, each cut to [`RECAP_WIDTH`]; `…` when more follow.
fn clipped(text: &str, max: usize) -> Vec<String> {
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    let mut out: Vec<String> = lines
        .iter()
        .take(max)
        .map(|l| escape_capped(l, RECAP_WIDTH))
        .collect();
    if lines.len() > max {
        out.push("…".to_owned());
    }
    out
}

/// The last [`RECAP_EXCHANGES`] exchanges of `items`: the person's prompts (`› …`), the
/// model's answers, and each tool call on one line (`· name target`, or `✗ name target — why`
/// for a call that was denied or not run).
pub(super) fn recap<'a>(items: impl Iterator<Item = &'a Item>) -> Vec<String> {
    let items: Vec<&Item> = items.collect();
    let prompts: Vec<usize> = items
        .iter()
        .enumerate()
        .filter(|(_, item)| matches!(item, Item::User { .. }))
        .map(|(at, _)| at)
        .collect();
    let Some(&from) = prompts.get(prompts.len().saturating_sub(RECAP_EXCHANGES)) else {
        return Vec::new();
    };
    let shown = prompts.len().min(RECAP_EXCHANGES);
    let mut lines = vec![format!(
        "── earlier in this session (last {shown} of {} prompts) ──",
        prompts.len()
    )];
    for item in &items[from..] {
        match item {
            Item::User { text } => {
                for (n, line) in clipped(text, RECAP_LINES).into_iter().enumerate() {
                    lines.push(if n == 0 {
                        format!("› {line}")
                    } else {
                        format!("  {line}")
                    });
                }
            }
            Item::Assistant { text, tool_calls } => {
                lines.extend(clipped(text, RECAP_LINES));
                for call in tool_calls {
                    let target = transcript::target(&call.arguments);
                    let head = format!("{} {target}", escape_capped(&call.name, 80));
                    let head = head.trim_end();
                    lines.push(match not_run(&items[from..], &call.id) {
                        Some(why) => format!("✗ {head} — {}", escape_capped(&why, 120)),
                        None => format!("· {head}"),
                    });
                }
            }
            Item::System { .. } | Item::ToolResult { .. } => {}
        }
    }
    lines.push("──".to_owned());
    lines
}

/// Why the call `id` did not run, from its committed result (`denied by mode: read-only`,
/// `not run: …`); `None` when it ran or has no result.
fn not_run(items: &[&Item], id: &str) -> Option<String> {
    let content = items.iter().find_map(|item| match item {
        Item::ToolResult {
            call_id,
            content,
            is_error,
        } if call_id == id && !result_shows_run(content, *is_error) => Some(content.as_str()),
        _ => None,
    })?;
    let first = content.lines().next().unwrap_or_default();
    Some(match first.strip_prefix("tool call ") {
        // `denied by mode: read-only: …` keeps who and the first part of why.
        Some(rest) if rest.starts_with("denied by mode") => {
            rest.splitn(3, ':').take(2).collect::<Vec<_>>().join(":")
        }
        Some(rest) => rest.to_owned(),
        None => first.to_owned(),
    })
}

impl Chat {
    /// Print the last exchanges of the session, dimmed, unless `--no-history` was given.
    pub(super) fn show_recap(&self) {
        if !self.recap {
            return;
        }
        for line in recap(self.worker.history()) {
            eprintln!("{}", self.style.dim(&line));
        }
    }

    /// `/resume [ID]`: switch to session `asked` (an id or a unique prefix), or without one to
    /// a session of this workspace picked from a list.
    pub(super) fn resume(&mut self, asked: &str) {
        let error = |style: Style, message: String| {
            eprintln!("{}", style.alert(&Alert::error("chat", message)));
        };
        let id = if asked.is_empty() {
            let offered = match candidates(
                &self.home,
                Some(&self.workspace),
                Some(self.worker.session_id()),
            ) {
                Ok(offered) => offered,
                Err(err) => return error(self.style, err.message),
            };
            if offered.is_empty() {
                eprintln!("no other session of this workspace to resume");
                return;
            }
            eprintln!("sessions of this workspace, most recent first:");
            match pick(&offered, &mut std::io::stdin().lock()) {
                Some(id) => id,
                None => return,
            }
        } else {
            match resolve(&self.home, asked) {
                Ok(id) => id,
                Err(err) => return error(self.style, err.message),
            }
        };
        if id == self.worker.session_id() {
            eprintln!("already in session {id}");
            return;
        }
        let hint = |root: &Path| format!("run `warden chat -C {} --resume {id}`", root.display());
        match crate::front::assemble::open_session(&self.home, &self.workspace, &id, &hint) {
            Ok((writer, audit)) => {
                self.end_session("resume");
                self.worker.switch_session(writer, audit);
                self.trace_switched_session();
                eprintln!(
                    "{}",
                    self.style.dim(&format!(
                        "resumed session {id} ({} items)",
                        self.worker.history().len()
                    ))
                );
                self.show_recap();
            }
            Err(err) => error(self.style, err.message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    #[test]
    fn recap_shows_the_last_exchanges_with_one_line_per_tool_call() {
        let mut items = Vec::new();
        for n in 1..=4 {
            items.push(Item::user(format!("question {n}\nsecond line")));
            items.push(Item::system("attached file"));
            items.push(Item::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: format!("c{n}"),
                    name: "read_file".into(),
                    arguments: serde_json::json!({"path": "a.txt"}),
                }],
            });
            items.push(Item::ToolResult {
                call_id: format!("c{n}"),
                content: "secret body".into(),
                is_error: false,
            });
            items.push(Item::Assistant {
                text: format!("answer {n}\u{1b}[2J"),
                tool_calls: Vec::new(),
            });
        }
        let lines = recap(items.iter());
        let text = lines.join("\n");
        assert!(!text.contains("question 1"), "{text}");
        for n in 2..=4 {
            assert!(text.contains(&format!("› question {n}")), "{text}");
        }
        assert!(text.contains("  second line"), "{text}");
        assert_eq!(text.matches("· read_file a.txt").count(), 3, "{text}");
        assert!(
            !text.contains("secret body") && !text.contains("attached"),
            "{text}"
        );
        assert!(!text.contains('\u{1b}'), "escaped: {text}");
        assert!(lines[0].contains("last 3 of 4 prompts"), "{text}");
        assert!(recap(std::iter::empty()).is_empty());
    }

    #[test]
    fn recap_marks_denied_and_unrun_calls() {
        let call = |id: &str, name: &str| ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: serde_json::json!({"path": "a.txt"}),
        };
        let result = |id: &str, content: &str, is_error| Item::ToolResult {
            call_id: id.into(),
            content: content.into(),
            is_error,
        };
        let items = [
            Item::user("go"),
            Item::Assistant {
                text: String::new(),
                tool_calls: vec![
                    call("a", "read_file"),
                    call("b", "write_file"),
                    call("c", "shell"),
                ],
            },
            result("a", "body", false),
            result(
                "b",
                "tool call denied by mode: read-only: `write_file` writes files and this mode …",
                true,
            ),
            result("c", "tool call not run: the turn stopped", true),
        ];
        let text = recap(items.iter()).join("\n");
        assert!(text.contains("· read_file a.txt"), "{text}");
        assert!(
            text.contains("✗ write_file a.txt — denied by mode: read-only\n"),
            "{text}"
        );
        assert!(
            text.contains("✗ shell a.txt — not run: the turn stopped"),
            "{text}"
        );
    }
}
