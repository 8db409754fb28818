//! Asking the person about a tool call of a plugin marked `approve = "ask"`: the call is shown
//! (tool, plugin, arguments, escaped so that nothing in them can drive the terminal) and one
//! line is read: `y` runs it, `a` runs it and every later call of that tool in this chat, and
//! anything else (or end of input) denies it.

use std::io::BufRead;

use super::style::Style;
use crate::domain::escape::escape_capped;
use crate::domain::{Approval, ToolCall};

/// Longest argument text shown (the full arguments are in the audit log's byte count).
const MAX_SHOWN: usize = 2000;

/// The lines shown before the question.
pub(crate) fn question(style: Style, call: &ToolCall, plugin: &str) -> String {
    format!(
        "{}\n  arguments: {}\n{}",
        style.bold(&format!(
            "  ? tool {} of plugin {} wants to run",
            escape_capped(&call.name, 200),
            escape_capped(plugin, 200)
        )),
        escape_capped(&call.arguments.to_string(), MAX_SHOWN),
        "  allow? [y]es / [n]o / [a]lways for this tool in this chat: "
    )
}

/// The person's answer to `line` (`None`: end of input).
pub(crate) fn answer(line: Option<&str>) -> Approval {
    match line.map(|l| l.trim().to_ascii_lowercase()).as_deref() {
        Some("y" | "yes") => Approval::Yes,
        Some("a" | "always") => Approval::Always,
        Some(_) => Approval::No("the person declined to run it".into()),
        None => Approval::No("no answer (end of input); not run".into()),
    }
}

/// Show the question on stderr and read one line from stdin.
pub(crate) fn ask(style: Style, call: &ToolCall, plugin: &str) -> Approval {
    eprint!("{}", question(style, call, plugin));
    read_answer(&mut std::io::stdin().lock())
}

/// One line of `input` as an answer (end of input or a read error: no).
fn read_answer(input: &mut dyn BufRead) -> Approval {
    let mut line = String::new();
    match input.read_line(&mut line) {
        Ok(0) | Err(_) => answer(None),
        Ok(_) => answer(Some(&line)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers() {
        assert_eq!(answer(Some("y\n")), Approval::Yes);
        assert_eq!(answer(Some(" YES ")), Approval::Yes);
        assert_eq!(answer(Some("a")), Approval::Always);
        assert_eq!(answer(Some("always\n")), Approval::Always);
        assert!(matches!(answer(Some("\n")), Approval::No(_)));
        assert!(matches!(answer(Some("sure")), Approval::No(_)));
        assert!(matches!(answer(None), Approval::No(_)));
    }

    #[test]
    fn one_line_is_read_per_question() {
        let mut input: &[u8] = b"a\nn\n";
        assert_eq!(read_answer(&mut input), Approval::Always);
        assert!(matches!(read_answer(&mut input), Approval::No(_)));
        assert_eq!(
            read_answer(&mut input),
            Approval::No("no answer (end of input); not run".into())
        );
    }

    #[test]
    fn the_call_is_shown_escaped() {
        let call = ToolCall {
            id: "c1".into(),
            name: "write_file".into(),
            arguments: serde_json::json!({"path": "a\u{1b}[2Jb", "text": "x\ny"}),
        };
        let shown = question(Style::plain(), &call, "edit-tool");
        assert!(
            shown.contains("tool write_file of plugin edit-tool"),
            "{shown}"
        );
        assert!(!shown.contains('\u{1b}'), "{shown}");
        assert!(shown.contains("[y]es / [n]o / [a]lways"), "{shown}");
    }
}
