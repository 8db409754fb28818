//! `glob {pattern, path?}`: the workspace's files whose path matches a glob, walked by the
//! resolver's listing rules, capped like a listing.

use std::sync::Arc;

use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};

use super::args;
use super::error::ToolError;
use super::search::{WALK_CAP, files, start};
use super::workspace::Workspace;
use crate::domain::builtin::GLOB;
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// A glob over paths relative to the search's start: `*` never crosses `/`, `**` does; a
/// pattern without `/` matches a file's name at any depth.
pub(crate) struct Matcher {
    glob: GlobMatcher,
    name_only: bool,
}

impl Matcher {
    /// `pattern` compiled for `tool`'s error message.
    pub(crate) fn new(tool: &'static str, pattern: &str) -> Result<Self, ToolError> {
        let glob = GlobBuilder::new(pattern.trim_start_matches("./"))
            .literal_separator(true)
            .backslash_escape(true)
            .build()
            .map_err(|e| ToolError::Arguments {
                tool,
                message: format!("invalid glob {pattern:?}: {e}"),
            })?
            .compile_matcher();
        Ok(Self {
            glob,
            name_only: !pattern.contains('/'),
        })
    }

    /// Whether the path `relative` (to the search's start) matches.
    pub(crate) fn matches(&self, relative: &str) -> bool {
        if self.name_only {
            let name = relative.rsplit('/').next().unwrap_or(relative);
            self.glob.is_match(name)
        } else {
            self.glob.is_match(relative)
        }
    }
}

/// The `glob` tool.
#[derive(Debug)]
pub struct Glob {
    ws: Arc<Workspace>,
}

impl Glob {
    /// `glob` over `ws`.
    pub fn new(ws: Arc<Workspace>) -> Self {
        Self { ws }
    }
}

impl Tool for Glob {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: GLOB.to_owned(),
            description: "Find the workspace's files by path pattern: `*` matches within one \
                          path component, `**` across directories (`src/**/*.rs`); a pattern \
                          without `/` matches file names at any depth (`*.toml`). Skips \
                          gitignored and denied files. Paths are relative to the workspace root."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "pattern": {"type": "string", "description": "Glob, relative to `path`"},
                    "path": {"type": "string", "description": "Directory to search, relative to the workspace root (default: the root)"}
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        args::output(glob(&self.ws, arguments))
    }
}

pub(super) fn glob(ws: &Workspace, arguments: &Value) -> Result<String, ToolError> {
    let map = args::object(GLOB, arguments, &["pattern", "path"])?;
    let pattern = args::required(GLOB, map, "pattern", true)?;
    let path = args::string(GLOB, map, "path", true)?.unwrap_or(".");
    let matcher = Matcher::new(GLOB, pattern)?;
    let start = start(ws, path)?;
    let walked = files(ws, &start)?;
    let mut out = String::new();
    let mut shown = 0usize;
    let mut more = 0usize;
    for file in &walked.files {
        let below = file
            .strip_prefix(&start.relative)
            .map(|r| r.trim_start_matches('/'))
            .unwrap_or(file);
        if !matcher.matches(below) {
            continue;
        }
        let entry = format!("{}\n", crate::domain::escape::escape(file));
        if shown >= ws.max_entries || out.len() + entry.len() > ws.max_bytes {
            more += 1;
            continue;
        }
        out.push_str(&entry);
        shown += 1;
    }
    if shown == 0 && more == 0 {
        return Ok(format!("no files match {pattern:?}"));
    }
    if more > 0 {
        out.push_str(&format!(
            "[{more} more matching files not shown; narrow `path` or the pattern]\n"
        ));
    }
    if walked.truncated {
        out.push_str(&format!(
            "[the walk stopped at {WALK_CAP} files; narrow `path` to search the rest]\n"
        ));
    }
    Ok(out)
}
