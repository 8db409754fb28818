//! `/init`: the model surveys the repository with its read tools and answers with an
//! instructions file (`AGENTS.md`), which the chat writes. An existing file is replaced only
//! when the person says yes to a one-key question.

use std::io::IsTerminal;
use std::path::Path;

use super::style::Style;

/// The prompt that asks for the survey and the file.
pub(crate) fn prompt(name: &str) -> String {
    format!(
        "Survey this repository and write the contents of its {name}: the instructions every \
coding agent working here reads first. Look before you write: list the top-level files and \
directories, read the README, the build and package files (Cargo.toml, package.json, \
pyproject.toml, go.mod, Makefile, …), the CI configuration and a few representative source \
and test files. Then write, in Markdown and briefly: what the project is; how the code is laid \
out (the main directories and what each owns); the exact commands to build, test, lint and \
format; the conventions the code follows (naming, error handling, tests, commit messages); and \
anything a newcomer would trip on. Name only commands and paths you saw. Answer with the \
file's content alone, without a preamble and without wrapping it in a code fence."
    )
}

/// `Ok` when `path` may be written: it does not exist, or the person said yes to replacing it.
pub(crate) fn may_write(path: &Path, name: &str, style: Style) -> Result<(), String> {
    let bytes = match std::fs::symlink_metadata(path) {
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(format!("/init: cannot look at {}: {err}", path.display())),
        Ok(meta) if !meta.is_file() => {
            return Err(format!(
                "/init: {} exists and is not a regular file; not replaced",
                path.display()
            ));
        }
        Ok(meta) => meta.len(),
    };
    eprint!(
        "{}",
        style.bold(&format!(
            "{name} exists ({bytes} bytes): replace it with a new survey? [y]es / [n]o (one key): "
        ))
    );
    if yes() {
        Ok(())
    } else {
        Err(format!("/init: {name} kept as it was"))
    }
}

/// One key from the terminal: `y` is yes, anything else no (and no terminal: no).
fn yes() -> bool {
    use crossterm::event::{Event, KeyEventKind, read};
    if !std::io::stdin().is_terminal() || crossterm::terminal::enable_raw_mode().is_err() {
        eprintln!("no");
        return false;
    }
    let answer = loop {
        match read() {
            Ok(Event::Key(key)) if key.kind == KeyEventKind::Press => {
                break matches!(key.code, crossterm::event::KeyCode::Char('y' | 'Y'));
            }
            Ok(_) => continue,
            Err(_) => break false,
        }
    };
    let _ = crossterm::terminal::disable_raw_mode();
    eprintln!("{}", if answer { "yes" } else { "no" });
    answer
}

/// The answer as the file's text (a fence wrapped around all of it is taken off), written to
/// `path`; returns the bytes written.
pub(crate) fn write(path: &Path, answer: &str) -> Result<usize, String> {
    let text = unfenced(answer.trim());
    if text.trim().is_empty() {
        return Err(format!(
            "/init: the answer was empty; {} not written",
            path.display()
        ));
    }
    let text = format!("{}\n", text.trim_end());
    std::fs::write(path, &text)
        .map_err(|err| format!("/init: cannot write {}: {err}", path.display()))?;
    Ok(text.len())
}

/// `text` without a code fence wrapped around the whole of it.
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    let Some((_, body)) = rest.split_once('\n') else {
        return text;
    };
    body.strip_suffix("```").map_or(text, str::trim_end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fence_around_the_whole_answer_is_taken_off() {
        assert_eq!(unfenced("```markdown\n# A\n\nb\n```"), "# A\n\nb");
        assert_eq!(unfenced("# A\n```sh\nx\n```"), "# A\n```sh\nx\n```");
        assert!(prompt("AGENTS.md").contains("AGENTS.md"));
    }

    #[test]
    fn the_answer_is_written_and_an_empty_one_is_not() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("AGENTS.md");
        assert_eq!(write(&path, "# Project\n"), Ok(10));
        assert_eq!(
            std::fs::read_to_string(&path).ok().as_deref(),
            Some("# Project\n")
        );
        assert!(write(&path, "  ").is_err());
    }
}
