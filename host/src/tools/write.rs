//! `write_file {path, content}`: create or overwrite a text file of the workspace, its parent
//! directories created as needed, atomically, never through a symlink in the final name.

use std::io::ErrorKind;
use std::sync::Arc;

use cap_std::fs::MetadataExt;
use serde_json::{Value, json};

use super::args;
use super::atomic::replace_file;
use super::error::ToolError;
use super::path::{Parent, locate_in, open_parent};
use super::workspace::Workspace;
use crate::domain::builtin::WRITE_FILE;
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// The `write_file` tool.
#[derive(Debug)]
pub struct WriteFile {
    ws: Arc<Workspace>,
}

impl WriteFile {
    /// `write_file` over `ws`.
    pub fn new(ws: Arc<Workspace>) -> Self {
        Self { ws }
    }
}

impl Tool for WriteFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: WRITE_FILE.to_owned(),
            description: "Create or overwrite a text file of the workspace with `content` \
                          (parent directories are created). Paths are relative to the \
                          workspace root. Prefer edit_file to change part of an existing file."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the workspace root"},
                    "content": {"type": "string", "description": "The whole new content of the file"}
                },
                "required": ["path", "content"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        args::output(write(&self.ws, arguments))
    }
}

pub(super) fn write(ws: &Workspace, arguments: &Value) -> Result<String, ToolError> {
    let map = args::object(WRITE_FILE, arguments, &["path", "content"])?;
    let path = args::required(WRITE_FILE, map, "path", true)?;
    let content = args::required(WRITE_FILE, map, "content", false)?;
    let at = locate_in(ws, path)?;
    let parent = open_parent(ws, &at, path, true)?;
    let mode = writable(ws, &parent, path, WRITE_FILE)?;
    replace_file(&parent.dir, &parent.name, content.as_bytes(), mode)
        .map_err(|e| ToolError::io(path, e))?;
    let lines = content.lines().count();
    Ok(format!(
        "{} {} ({} bytes, {lines} line{})",
        if mode.is_some() {
            "Overwrote"
        } else {
            "Created"
        },
        ws.shown(&parent.target()),
        content.len(),
        if lines == 1 { "" } else { "s" }
    ))
}

/// Checks that the final name of `parent` may be written by `tool`: its real path passes
/// the write rules, and it is not a symlink nor a directory. The existing file's permission
/// bits, or `None` when it does not exist yet.
pub(crate) fn writable(
    ws: &Workspace,
    parent: &Parent,
    path: &str,
    tool: &'static str,
) -> Result<Option<u32>, ToolError> {
    let target = parent.target();
    ws.policy
        .check_write(&target)
        .map_err(|why| ToolError::refused(path, why, &target))?;
    match parent.dir.symlink_metadata(&parent.name) {
        Ok(meta) if meta.file_type().is_symlink() => Err(ToolError::Symlink {
            tool,
            path: path.to_owned(),
        }),
        Ok(meta) if meta.is_dir() => Err(ToolError::Other(format!(
            "`{path}` is a directory, not a file"
        ))),
        Ok(meta) if !meta.is_file() => {
            Err(ToolError::Other(format!("`{path}` is not a regular file")))
        }
        Ok(meta) => Ok(Some(meta.mode())),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ToolError::io(path, e)),
    }
}
