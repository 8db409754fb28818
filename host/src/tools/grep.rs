//! `grep {pattern, path?, glob?, ignore_case?, max_results?}`: a regular-expression search of
//! the workspace's text files (the logic of the `grep-tool` sample, natively), read-only,
//! walked by the resolver's listing rules, output capped like other tool output.

use std::sync::Arc;

use regex::RegexBuilder;
use serde_json::{Value, json};

use super::args;
use super::error::ToolError;
use super::glob::Matcher;
use super::search::{Skip, files, read_text_or_skip, start};
use super::workspace::Workspace;
use crate::domain::builtin::GREP;
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// Matches returned when `max_results` is not given.
pub const DEFAULT_RESULTS: usize = 100;
/// Most matches one call may ask for.
pub const MAX_RESULTS: usize = 1000;
/// Longest line shown, in characters; longer ones are cut.
const MAX_LINE: usize = 300;

/// The `grep` tool.
#[derive(Debug)]
pub struct Grep {
    ws: Arc<Workspace>,
}

impl Grep {
    /// `grep` over `ws`.
    pub fn new(ws: Arc<Workspace>) -> Self {
        Self { ws }
    }
}

impl Tool for Grep {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: GREP.to_owned(),
            description: "Search the workspace's text files for a regular expression (Rust \
                          syntax). Returns `path:line: text` lines. Skips gitignored and denied \
                          files, binary files and symlinks."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Regular expression (Rust regex syntax)"},
                    "path": {"type": "string", "description": "File or directory to search, relative to the workspace root (default: the root)"},
                    "glob": {"type": "string", "description": "Only files matching this glob, e.g. `*.rs` or `src/**/*.ts`"},
                    "ignore_case": {"type": "boolean", "description": "Match without regard to case"},
                    "max_results": {"type": "integer", "minimum": 1, "maximum": MAX_RESULTS, "description": "Matching lines to return (default 100)"}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        args::output(grep(&self.ws, arguments))
    }
}

/// Most skipped paths named.
const MAX_SKIPPED_NAMED: usize = 5;

/// `skipped 2 files over 1 MiB: a.log, b.log; 3 binary files`, or `None` when nothing was
/// skipped for its size or content.
fn skipped_note(too_large: &[&str], binary: usize) -> Option<String> {
    let mut parts = Vec::new();
    if !too_large.is_empty() {
        let mut named: Vec<String> = too_large
            .iter()
            .take(MAX_SKIPPED_NAMED)
            .map(|p| crate::domain::escape::escape(p).into_owned())
            .collect();
        if too_large.len() > MAX_SKIPPED_NAMED {
            named.push(format!("and {} more", too_large.len() - MAX_SKIPPED_NAMED));
        }
        let files = if too_large.len() == 1 {
            "file"
        } else {
            "files"
        };
        parts.push(format!(
            "skipped {} {files} over {} MiB: {}",
            too_large.len(),
            super::search::MAX_FILE_BYTES >> 20,
            named.join(", ")
        ));
    }
    if binary > 0 {
        let files = if binary == 1 { "file" } else { "files" };
        parts.push(format!("skipped {binary} binary {files}"));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

pub(super) fn grep(ws: &Workspace, arguments: &Value) -> Result<String, ToolError> {
    let map = args::object(
        GREP,
        arguments,
        &["pattern", "path", "glob", "ignore_case", "max_results"],
    )?;
    let pattern = args::required(GREP, map, "pattern", true)?;
    let path = args::string(GREP, map, "path", true)?.unwrap_or(".");
    let filter = args::string(GREP, map, "glob", true)?
        .map(|g| Matcher::new(GREP, g))
        .transpose()?;
    let ignore_case = args::flag(GREP, map, "ignore_case")?;
    let max_results = args::count(GREP, map, "max_results")?
        .unwrap_or(DEFAULT_RESULTS)
        .min(MAX_RESULTS);
    let regex = RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .size_limit(1 << 20)
        .build()
        .map_err(|e| ToolError::Arguments {
            tool: GREP,
            message: format!("invalid pattern: {e}"),
        })?;
    let start = start(ws, path)?;
    let walked = files(ws, &start)?;
    let mut out = String::new();
    let mut shown = 0usize;
    let mut searched = 0usize;
    let mut more = false;
    let mut too_large: Vec<&str> = Vec::new();
    let mut binary = 0usize;
    'files: for file in &walked.files {
        let below = file
            .strip_prefix(&start.relative)
            .map(|r| r.trim_start_matches('/'))
            .unwrap_or(file);
        if let Some(filter) = &filter
            && !filter.matches(below)
        {
            continue;
        }
        let text = match read_text_or_skip(ws, start.root, file) {
            Ok(text) => text,
            Err(Skip::TooLarge) => {
                too_large.push(file.as_str());
                continue;
            }
            Err(Skip::Binary) => {
                binary += 1;
                continue;
            }
            Err(Skip::Other) => continue,
        };
        searched += 1;
        for (n, line) in text.lines().enumerate() {
            if !regex.is_match(line) {
                continue;
            }
            let mut cut: String = line.chars().take(MAX_LINE).collect();
            if cut.len() < line.len() {
                cut.push('…');
            }
            let entry = format!(
                "{}:{}: {}\n",
                crate::domain::escape::escape(file),
                n + 1,
                cut
            );
            if shown >= max_results || out.len() + entry.len() > ws.max_bytes {
                more = true;
                break 'files;
            }
            out.push_str(&entry);
            shown += 1;
        }
    }
    let skipped = skipped_note(&too_large, binary);
    if shown == 0 && !more {
        return Ok(match skipped {
            Some(note) => format!("no matches in {searched} files; {note}"),
            None => format!("no matches in {searched} files"),
        });
    }
    if let Some(note) = &skipped
        && !more
    {
        out.push_str(&format!("[{note}]\n"));
    }
    if more {
        out.push_str(&format!(
            "[{shown} matches shown; more not shown: narrow `path`, `glob` or the pattern]\n"
        ));
    } else if walked.truncated {
        out.push_str(&format!(
            "[the walk stopped at {} files; narrow `path` to search the rest]\n",
            super::search::WALK_CAP
        ));
    }
    Ok(out)
}
