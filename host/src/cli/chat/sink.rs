//! The transcript of one turn: a spinner until the first token, one dim line per attached
//! file, the answer as it streams, one line per retry and alert, and one line per tool call
//! with its outcome (`✓ read_file a.txt`, `✗ shell cargo test — exit 101`, `✗ write_file .env
//! — denied by mode: read-only`), denials included; under a command its last output lines
//! (`/last` shows all of it); under each change its diff, folded (`/diff` shows it whole); at
//! the end the files the turn changed. While a tool runs the spinner names it.

use std::io::{IsTerminal, Write};
use std::rc::Rc;

use super::approve::Asked;
use super::blocks::Blocks;
use super::edit_preview::Files;
use super::spinner::{Spinner, fit_width, terminal_columns};
use super::style::Style;
use crate::cli::run::Countdown;
use crate::domain::builtin::UPDATE_PLAN;
use crate::domain::escape::{escape, escape_capped, terminal};
use crate::domain::plan::PlanStep;
use crate::domain::{Approval, AskWhy, FileChange, ToolCall, TurnEvent, TurnSink};
use crate::fileref::RefReport;
use crate::fileref::report::RESOLVED;
use crate::front::transcript::{
    DIFF_LINES, TAIL_LINES, denied_line, diff_head, folded, plan_lines, ran_line, tail,
};
use crate::llm::CancelToken;

/// The last command's output, whole, for `/last`.
#[derive(Debug, Clone, Default)]
pub(crate) struct LastOutput {
    /// Its outcome line.
    pub(crate) line: String,
    /// Its output.
    pub(crate) output: String,
}

/// Prints a turn as it happens.
pub(crate) struct ChatSink {
    style: Style,
    spinner: Option<Spinner>,
    /// Answer text is on the current line (a newline is due before anything else).
    mid_line: bool,
    /// Something of the answer was streamed.
    pub(crate) streamed: bool,
    /// Reads the current file for an edit's diff.
    files: Option<Rc<Files>>,
    /// The last command's output (`/last`).
    pub(crate) last: Option<LastOutput>,
    /// What this turn changed, call by call (`/diff`).
    pub(crate) changes: Vec<FileChange>,
    /// The running turn's token: Ctrl-C at an approval cancels it.
    cancel: Option<CancelToken>,
    /// The answer's Markdown, rendered block by block (`None` when stdout is not a terminal).
    markdown: Option<Markdown>,
    /// Rows of the plan's checklist right above the cursor, redrawn in place by the next
    /// plan update; 0 once anything else was printed.
    plan_rows: usize,
    /// Calls whose diff the approval question showed and the person let run: their change
    /// is named, not shown a second time.
    diff_shown: std::collections::HashSet<String>,
}

/// An answer being rendered: its closed blocks are printed rendered, its open tail raw until
/// it closes (then erased and printed rendered).
#[derive(Default)]
struct Markdown {
    blocks: Blocks,
    /// The raw tail as printed.
    shown: String,
    /// A block was printed (the next one is set off by a blank line).
    rendered: bool,
}

impl ChatSink {
    /// A sink whose spinner runs until the first output.
    pub(crate) fn new(style: Style) -> Self {
        Self {
            style,
            spinner: Some(Spinner::start("waiting for the model")),
            mid_line: false,
            streamed: false,
            files: None,
            last: None,
            changes: Vec::new(),
            cancel: None,
            markdown: std::io::stdout().is_terminal().then(Markdown::default),
            plan_rows: 0,
            diff_shown: std::collections::HashSet::new(),
        }
    }

    /// The same, cancelling `cancel` when Ctrl-C is pressed at an approval.
    pub(crate) fn with_cancel(mut self, cancel: CancelToken) -> Self {
        self.cancel = Some(cancel);
        self
    }

    /// The same, reading workspace files through `files` for an edit's diff.
    pub(crate) fn with_files(mut self, files: Option<Rc<Files>>) -> Self {
        self.files = files;
        self
    }

    /// Stop the spinner and end a streamed line, before printing anything else.
    pub(crate) fn settle(&mut self) {
        if let Some(mut spinner) = self.spinner.take() {
            spinner.stop();
        }
        if let Some(md) = &mut self.markdown {
            let rest = md.blocks.finish();
            if !rest.trim().is_empty() {
                md.print_blocks(&rest, self.style);
                self.mid_line = false;
            }
            md.shown.clear();
        }
        if self.mid_line {
            println!();
            self.mid_line = false;
        }
    }

    fn note(&mut self, line: &str) {
        self.settle();
        eprintln!("{}", self.style.dim(line));
    }

    /// The plan's checklist; over the previous one when nothing was printed since (on a
    /// terminal), so that a plan updated call after call stays one checklist.
    fn plan(&mut self, steps: &[PlanStep], explanation: Option<&str>) {
        self.settle();
        let columns = terminal_columns();
        let mut err = std::io::stderr().lock();
        if self.plan_rows > 0 && err.is_terminal() {
            let _ = write!(err, "\x1b[{}A\r\x1b[J", self.plan_rows);
        }
        let lines = plan_lines(steps, explanation);
        for (i, line) in lines.iter().enumerate() {
            let line = fit_width(line, columns);
            let shown = if i == 0 {
                self.style.bold(&line)
            } else {
                self.style.dim(&line)
            };
            let _ = writeln!(err, "{shown}");
        }
        let _ = err.flush();
        self.plan_rows = lines.len();
    }

    fn waiting(&mut self) {
        self.spinner = Some(Spinner::start("waiting for the model"));
    }

    fn ran(&mut self, call: &ToolCall, is_error: bool, exit_code: Option<i32>, output: &str) {
        let line = format!("  {}", ran_line(call, is_error, exit_code));
        self.settle();
        if TurnEvent::ran_failed(is_error, exit_code) {
            eprintln!("{}", self.style.removed(&line));
        } else {
            eprintln!("{}", self.style.dim(&line));
        }
        if exit_code.is_some() {
            let (hidden, lines) = tail(output, TAIL_LINES);
            if let Some(fold) = folded(hidden, "above (/last shows them)") {
                eprintln!("{}", self.style.dim(&format!("    {fold}")));
            }
            for text in lines {
                eprintln!("{}", self.style.dim(&format!("    │ {text}")));
            }
            self.last = Some(LastOutput {
                line,
                output: output.to_owned(),
            });
        }
    }

    fn changed(&mut self, change: &FileChange) {
        self.settle();
        eprintln!(
            "{}",
            self.style.dim(&format!(
                "    {} {} (+{} −{})",
                kind_word(change),
                escape_capped(&change.shown(), 200),
                change.added,
                change.removed
            ))
        );
        self.changes.push(change.clone());
        if self.diff_shown.contains(&change.call_id) {
            eprintln!(
                "{}",
                self.style
                    .dim("    (its diff is the one shown at the approval; /diff shows it again)")
            );
            return;
        }
        let (lines, more) = diff_head(&change.diff, DIFF_LINES);
        for line in &lines {
            eprintln!("    {}", diff_line(self.style, line));
        }
        if let Some(fold) = folded(more, "more (/diff shows them)") {
            eprintln!("{}", self.style.dim(&format!("    {fold}")));
        }
    }
}

/// `created`, `edited` or `deleted`.
fn kind_word(change: &FileChange) -> &'static str {
    match change.kind {
        crate::domain::ChangeKind::Created => "created",
        crate::domain::ChangeKind::Modified => "edited",
        crate::domain::ChangeKind::Deleted => "deleted",
    }
}

/// One escaped line of a rendered diff, coloured by its first character.
pub(crate) fn diff_line(style: Style, line: &str) -> String {
    if line.starts_with("@@") {
        style.hunk(line)
    } else if line.starts_with('+') {
        style.added(line)
    } else if line.starts_with('-') {
        style.removed(line)
    } else {
        line.to_owned()
    }
}

/// Every change of `changes`, whole: a header per file (naming the tool, when one call made
/// it), then its diff.
pub(crate) fn print_changes(style: Style, changes: &[FileChange]) {
    for change in changes {
        let by = if change.tool.is_empty() {
            String::new()
        } else {
            format!(" by {}", escape(&change.tool))
        };
        eprintln!(
            "{}",
            style.bold(&format!(
                "{} {} (+{} −{}){by}",
                kind_word(change),
                escape_capped(&change.shown(), 200),
                change.added,
                change.removed,
            ))
        );
        for line in change.diff.lines() {
            eprintln!("{}", diff_line(style, &escape(line)));
        }
    }
}

/// Whether `event` leaves the screen as it was below a plan's checklist (it prints nothing, or
/// only a spinner that erases itself).
fn keeps_plan(event: &TurnEvent) -> bool {
    match event {
        TurnEvent::TurnStarted { .. }
        | TurnEvent::ItemCommitted { .. }
        | TurnEvent::Usage(_)
        | TurnEvent::Waiting { .. }
        | TurnEvent::ToolCallRequested { .. }
        | TurnEvent::ToolCallStarted { .. }
        | TurnEvent::ToolCallDecided { allowed: true, .. }
        | TurnEvent::PlanUpdated { .. } => true,
        TurnEvent::ToolCallRan { call, is_error, .. } => call.name == UPDATE_PLAN && !is_error,
        TurnEvent::TurnEnded { changes, .. } => changes.is_empty(),
        _ => false,
    }
}

impl TurnSink for ChatSink {
    fn event(&mut self, event: &TurnEvent) {
        if !keeps_plan(event) {
            self.plan_rows = 0;
        }
        match event {
            TurnEvent::PlanUpdated {
                steps, explanation, ..
            } => {
                self.plan(steps, explanation.as_deref());
                self.waiting();
            }
            // A plan that was set shows as its checklist, not as a call line.
            TurnEvent::ToolCallRan {
                call,
                is_error: false,
                ..
            } if call.name == UPDATE_PLAN => {}
            TurnEvent::Alert(alert) => {
                self.settle();
                eprintln!("{}", self.style.alert(alert));
            }
            TurnEvent::TextDelta { text } => {
                if let Some(mut spinner) = self.spinner.take() {
                    spinner.stop();
                }
                match &mut self.markdown {
                    Some(md) => {
                        let closed = md.blocks.push(text);
                        if closed.is_empty() {
                            print!("{}", terminal(text));
                            md.shown.push_str(text);
                        } else {
                            md.print_blocks(&closed, self.style);
                            let tail = md.blocks.tail().to_owned();
                            print!("{}", terminal(&tail));
                            md.shown = tail;
                        }
                        self.mid_line = !md.shown.is_empty() && !md.shown.ends_with('\n');
                    }
                    None => {
                        print!("{text}");
                        self.mid_line = !text.ends_with('\n');
                    }
                }
                let _ = std::io::stdout().flush();
                self.streamed = true;
            }
            TurnEvent::Retrying {
                attempt,
                delay_ms,
                reason,
            } => {
                self.note(&format!(
                    "  retry {attempt} in {:.1}s: {reason}",
                    *delay_ms as f64 / 1000.0
                ));
                self.waiting();
            }
            TurnEvent::Waiting {
                provider,
                attempt,
                attempts,
                left_ms,
            } if self.spinner.is_some() => {
                self.settle();
                let left = std::time::Duration::from_millis(*left_ms);
                self.spinner = Some(Spinner::counting(Countdown::new(
                    provider, left, *attempt, *attempts,
                )));
            }
            TurnEvent::ToolCallStarted { call } => {
                // The call's one line comes when it ran; meanwhile the spinner names it.
                self.settle();
                self.spinner = Some(Spinner::start(&format!(
                    "running {}",
                    tool_line(&call.name, &call.arguments)
                )));
            }
            TurnEvent::ToolCallDecided {
                call,
                allowed: false,
                by,
                reason,
                ..
            } => {
                self.settle();
                let line = format!(
                    "  {}",
                    denied_line(call, by, reason.as_deref().unwrap_or(""))
                );
                eprintln!("{}", self.style.removed(&line));
                self.waiting();
            }
            TurnEvent::ToolCallRan {
                call,
                is_error,
                exit_code,
                output,
            } => {
                self.ran(call, *is_error, *exit_code, output);
                self.waiting();
            }
            TurnEvent::FileChanged(change) => {
                self.changed(change);
                self.waiting();
            }
            TurnEvent::FilesAttached { refs } => {
                for report in refs.iter().filter(|r| r.status == RESOLVED) {
                    self.note(&attached_line(report));
                }
            }
            TurnEvent::TurnEnded { changes, .. } if !changes.is_empty() => {
                let (added, removed) = changes
                    .iter()
                    .fold((0, 0), |(a, r), c| (a + c.added, r + c.removed));
                let s = if changes.len() == 1 { "" } else { "s" };
                let names: Vec<String> = changes
                    .iter()
                    .map(|c| escape_capped(&c.shown(), 200))
                    .collect();
                self.note(&format!(
                    "  changed {} file{s} (+{added} −{removed}): {} — /diff shows them",
                    changes.len(),
                    names.join(", ")
                ));
            }
            _ => {}
        }
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &AskWhy) -> Approval {
        self.settle();
        if self.cancel.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Approval::No("the turn was cancelled (Ctrl-C); not run".into());
        }
        let answer = match super::approve::ask(self.style, call, why, self.files.as_deref()) {
            Asked::Answer(answer) => answer,
            Asked::Interrupted => {
                if let Some(cancel) = &self.cancel {
                    cancel.cancel();
                }
                Approval::No("the person pressed Ctrl-C at the approval; not run".into())
            }
        };
        if !matches!(answer, Approval::No(_))
            && super::approve::shows_diff(self.style, call, why, self.files.as_deref())
        {
            self.diff_shown.insert(call.id.clone());
        }
        self.waiting();
        answer
    }
}

impl Markdown {
    /// Erase the raw tail printed so far, then print `text` (closed blocks) rendered.
    fn print_blocks(&mut self, text: &str, style: Style) {
        let rows = rows(&self.shown, super::spinner::terminal_columns());
        if rows > 0 {
            if rows > 1 {
                print!("\x1b[{}A", rows - 1);
            }
            print!("\r\x1b[J");
        }
        self.shown.clear();
        if text.trim().is_empty() {
            return;
        }
        if self.rendered {
            println!();
        }
        print!(
            "{}",
            super::markdown::render_width(text, style, super::spinner::terminal_columns())
                .trim_end_matches('\n')
        );
        println!();
        self.rendered = true;
    }
}

/// The terminal rows `text` takes when printed from the start of a row in `columns` columns
/// (0 for nothing).
fn rows(text: &str, columns: usize) -> usize {
    if text.is_empty() {
        return 0;
    }
    let columns = columns.max(1);
    // Each line takes at least one row; a final newline leaves the cursor at the start of an
    // empty row, which the empty last piece counts.
    text.split('\n')
        .map(|l| {
            unicode_width::UnicodeWidthStr::width(terminal(l).as_ref())
                .div_ceil(columns)
                .max(1)
        })
        .sum()
}

/// `read_file src/lib.rs 1-200`, `list_files src/`, or the name and compact arguments
/// (escaped).
pub(crate) fn tool_line(name: &str, arguments: &serde_json::Value) -> String {
    let name = escape_capped(name, 200);
    let name = name.as_str();
    let path = arguments
        .get("path")
        .and_then(|v| v.as_str())
        .map(|p| escape_capped(p, 200));
    let path = path.as_deref();
    let number = |key: &str| arguments.get(key).and_then(serde_json::Value::as_u64);
    match (name, path) {
        ("read_file", Some(path)) => {
            let start = number("offset").filter(|n| *n > 0).unwrap_or(1);
            match number("limit").filter(|n| *n > 0) {
                Some(limit) => format!("read_file {path} {start}-{}", start + limit - 1),
                None if start > 1 => format!("read_file {path} {start}-"),
                None => format!("read_file {path}"),
            }
        }
        ("list_files", Some(path)) => format!("list_files {path}"),
        _ => format!("{name} {}", escape_capped(&arguments.to_string(), 200)),
    }
}

/// `  + src/main.rs  1.2 KB`, with the range, `truncated` or `unchanged`.
pub(crate) fn attached_line(report: &RefReport) -> String {
    let range = report.range.map(|r| r.to_string()).unwrap_or_default();
    let size = if report.bytes == 0 {
        "unchanged since last shown".to_owned()
    } else {
        let mut size = human_bytes(report.bytes);
        if report.truncated {
            size.push_str(", truncated");
        }
        size
    };
    format!("  + {}{range}  ({size})", report.path)
}

fn human_bytes(bytes: u64) -> String {
    if bytes < 1024 {
        format!("{bytes} bytes")
    } else {
        format!("{:.1} KB", bytes as f64 / 1024.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::LineRange;

    #[test]
    fn tool_lines() {
        let args = serde_json::json!({"path": "src/lib.rs", "offset": 1, "limit": 200});
        assert_eq!(tool_line("read_file", &args), "read_file src/lib.rs 1-200");
        let args = serde_json::json!({"path": "src/lib.rs"});
        assert_eq!(tool_line("read_file", &args), "read_file src/lib.rs");
        assert_eq!(tool_line("list_files", &args), "list_files src/lib.rs");
        assert_eq!(
            tool_line("other", &serde_json::json!({"a": 1})),
            "other {\"a\":1}"
        );
    }

    #[test]
    fn rows_count_wrapped_lines_and_a_final_newline() {
        assert_eq!(rows("", 80), 0);
        assert_eq!(rows("abc", 80), 1);
        assert_eq!(rows(&"x".repeat(81), 80), 2);
        assert_eq!(rows("a\nb", 80), 2);
        assert_eq!(rows("a\n", 80), 2);
    }

    #[test]
    fn attached_lines() {
        let mut report = RefReport {
            raw: "@a.rs#L2-3".into(),
            path: "a.rs".into(),
            range: Some(LineRange { start: 2, end: 3 }),
            status: RESOLVED,
            bytes: 2048,
            truncated: true,
        };
        assert_eq!(attached_line(&report), "  + a.rs#L2-3  (2.0 KB, truncated)");
        report.bytes = 0;
        report.range = None;
        assert_eq!(
            attached_line(&report),
            "  + a.rs  (unchanged since last shown)"
        );
    }
}
