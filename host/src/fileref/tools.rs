//! The model's file tools, `read_file(path, offset, limit)` and `list_files(path)`, as
//! [`Tool`]s: their specs, and how a call runs through the same [`Resolve`]r as `@path`
//! references, under the same rules, with output formatted for the model.

use serde_json::{Map, Value, json};

use crate::config::FileRefConfig;
use crate::domain::Resolve;
use crate::domain::{FileChunk, Listing};
use crate::domain::{Item, Tool, ToolCall, ToolContext, ToolOutput, ToolSpec};

pub use crate::domain::builtin::{LIST_FILES, READ_FILE};
/// Lines served by `read_file` when no `limit` is given.
pub const DEFAULT_LIMIT: u32 = 2000;

/// `read_file`: lines of a workspace file, through the resolver, under the per-file cap.
#[derive(Debug, Clone)]
pub struct ReadFile {
    config: FileRefConfig,
}

/// `list_files`: a gitignore-aware listing of a workspace directory, through the resolver,
/// under the listing cap.
#[derive(Debug, Clone)]
pub struct ListFiles {
    config: FileRefConfig,
}

/// The two file tools, under `config`'s caps, in the order they are offered.
pub fn file_tools(config: &FileRefConfig) -> Vec<Box<dyn Tool>> {
    vec![
        Box::new(ReadFile {
            config: config.clone(),
        }),
        Box::new(ListFiles {
            config: config.clone(),
        }),
    ]
}

impl Tool for ReadFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: READ_FILE.to_owned(),
            description: "Read a text file of the workspace. Returns up to `limit` lines \
                          starting at line `offset` (1-based), capped in bytes; a last line says \
                          where to continue when more follows. Paths are relative to the \
                          workspace root."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the workspace root"},
                    "offset": {"type": "integer", "minimum": 1, "description": "First line to read, 1-based (default 1)"},
                    "limit": {"type": "integer", "minimum": 1, "description": "Lines to read (default 2000)"}
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, context: &mut ToolContext<'_>) -> ToolOutput {
        output(read_file(arguments, context.resolver, &self.config))
    }
}

impl Tool for ListFiles {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: LIST_FILES.to_owned(),
            description: "List a directory of the workspace as a tree of paths relative to it \
                          (directories end with `/`), skipping gitignored and denied entries."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "Directory path, relative to the workspace root (default `.`)"}
                },
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, context: &mut ToolContext<'_>) -> ToolOutput {
        output(list_files(arguments, context.resolver, &self.config))
    }
}

fn output(outcome: Result<String, String>) -> ToolOutput {
    match outcome {
        Ok(content) => ToolOutput::ok(content),
        Err(message) => ToolOutput::error(message),
    }
}

/// Specs of `read_file` and `list_files`.
pub fn specs() -> Vec<ToolSpec> {
    file_tools(&FileRefConfig::default())
        .iter()
        .map(|tool| tool.spec())
        .collect()
}

/// Whether `name` is one of the file tools.
pub fn is_file_tool(name: &str) -> bool {
    name == READ_FILE || name == LIST_FILES
}

/// Run a file tool call directly (as the turn's tool registry does) and return its
/// `ToolResult` item; bad arguments, an unknown tool and resolver errors give an `is_error`
/// result saying what was wrong.
pub fn run(call: &ToolCall, resolver: &mut dyn Resolve, config: &FileRefConfig) -> Item {
    let mut context = ToolContext {
        resolver,
        cancelled: &|| false,
    };
    let output = match file_tools(config)
        .into_iter()
        .find(|tool| tool.spec().name == call.name)
    {
        Some(mut tool) => tool.run(&call.arguments, &mut context),
        None => ToolOutput::error(format!("unknown tool `{}`", call.name)),
    };
    Item::ToolResult {
        call_id: call.id.clone(),
        content: output.content,
        is_error: output.is_error,
    }
}

fn object<'a>(
    tool: &str,
    args: &'a Value,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, String> {
    let map = args
        .as_object()
        .ok_or_else(|| format!("invalid arguments for {tool}: expected a JSON object"))?;
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(format!(
            "invalid arguments for {tool}: unknown argument `{unknown}` (allowed: {})",
            allowed.join(", ")
        ));
    }
    Ok(map)
}

fn string_arg(tool: &str, map: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
        Some(_) => Err(format!(
            "invalid arguments for {tool}: `{key}` must be a non-empty string"
        )),
    }
}

fn count_arg(tool: &str, map: &Map<String, Value>, key: &str) -> Result<Option<u32>, String> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .filter(|&n| n >= 1)
            .map(Some)
            .ok_or_else(|| {
                format!("invalid arguments for {tool}: `{key}` must be an integer ≥ 1, got {v}")
            }),
    }
}

fn read_file(
    args: &Value,
    resolver: &mut dyn Resolve,
    config: &FileRefConfig,
) -> Result<String, String> {
    let map = object(READ_FILE, args, &["path", "offset", "limit"])?;
    let path = string_arg(READ_FILE, map, "path")?
        .ok_or_else(|| format!("invalid arguments for {READ_FILE}: `path` is required"))?;
    let offset = count_arg(READ_FILE, map, "offset")?.unwrap_or(1);
    let limit = count_arg(READ_FILE, map, "limit")?.unwrap_or(DEFAULT_LIMIT);
    let chunk = resolver
        .read_file(&path, offset, limit, config.max_bytes)
        .map_err(|e| e.to_string())?;
    Ok(format_chunk(&chunk, config.max_bytes))
}

fn list_files(
    args: &Value,
    resolver: &mut dyn Resolve,
    config: &FileRefConfig,
) -> Result<String, String> {
    let map = object(LIST_FILES, args, &["path"])?;
    let path = string_arg(LIST_FILES, map, "path")?.unwrap_or_else(|| ".".to_owned());
    let listing = resolver
        .list_files(&path, config.max_entries)
        .map_err(|e| e.to_string())?;
    Ok(format_listing(&listing, config.max_entries))
}

/// `read_file` output: the lines, then, when more follows or the read did not start at line 1,
/// a line saying which lines were shown and where to continue.
pub fn format_chunk(chunk: &FileChunk, max_bytes: u64) -> String {
    let mut out = chunk.content.clone();
    // A resolver component is not trusted to honour the cap.
    let cap = usize::try_from(max_bytes).unwrap_or(usize::MAX);
    if out.len() > cap {
        let mut end = cap;
        while !out.is_char_boundary(end) {
            end -= 1;
        }
        out.truncate(end);
    }
    if chunk.lines == 0 {
        return if chunk.total_lines == 0 {
            "(empty file)".to_owned()
        } else {
            out
        };
    }
    let last = chunk.first_line + chunk.lines - 1;
    let of_total = if chunk.total_lines > 0 {
        format!(" of {}", chunk.total_lines)
    } else {
        String::new()
    };
    let footer = if chunk.more && !chunk.content.ends_with('\n') {
        Some(format!(
            "[line {last} is longer than {max_bytes} bytes; only its start is shown. More follows: call read_file with offset {}]",
            last + 1
        ))
    } else if chunk.more {
        Some(format!(
            "[lines {}-{last}{of_total} shown; more follows: call read_file with offset {}]",
            chunk.first_line,
            last + 1
        ))
    } else if chunk.first_line > 1 {
        Some(format!(
            "[lines {}-{last}{of_total} shown; end of file]",
            chunk.first_line
        ))
    } else {
        None
    };
    if let Some(footer) = footer {
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&footer);
    }
    out
}

/// `list_files` output: one entry per line, marked `- `, then a line when the listing stopped at
/// its cap.
pub fn format_listing(listing: &Listing, max_entries: u32) -> String {
    if listing.entries.is_empty() && !listing.truncated {
        return "(empty directory)".to_owned();
    }
    // One entry per line, marked: a name can neither forge further lines nor pass for a note.
    let entries: Vec<_> = listing
        .entries
        .iter()
        .map(|e| super::listing::entry(e))
        .collect();
    let mut out = entries.join("\n");
    if listing.truncated {
        out.push_str(&format!(
            "\n[listing stopped at {max_entries} entries; list a subdirectory to see more]"
        ));
    }
    out
}

#[cfg(test)]
#[path = "tools_tests.rs"]
mod tests;
