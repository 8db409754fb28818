//! `edit_file {path, old_string, new_string, replace_all?}`: exact replacement in a text file
//! of the workspace ([`super::replace`]), written back atomically with its mode kept.

use std::io::Read;
use std::sync::Arc;

use cap_std::fs::{OpenOptions, OpenOptionsExt};
use serde_json::{Value, json};

use super::args;
use super::atomic::replace_file;
use super::error::ToolError;
use super::path::{locate_in, open_parent};
use super::replace::replace;
use super::workspace::Workspace;
use super::write::writable;
use crate::confine::real_path::real_path;
use crate::domain::builtin::EDIT_FILE;
use crate::domain::{Tool, ToolContext, ToolOutput, ToolSpec};

/// Largest file `edit_file` edits.
pub const MAX_EDIT_BYTES: u64 = 8 << 20;

/// The `edit_file` tool.
#[derive(Debug)]
pub struct EditFile {
    ws: Arc<Workspace>,
}

impl EditFile {
    /// `edit_file` over `ws`.
    pub fn new(ws: Arc<Workspace>) -> Self {
        Self { ws }
    }
}

impl Tool for EditFile {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: EDIT_FILE.to_owned(),
            description: "Replace an exact string in a text file of the workspace. \
                          `old_string` must occur exactly once (include surrounding lines to \
                          make it unique) unless `replace_all` is true. Whitespace and \
                          indentation must match the file exactly."
                .to_owned(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "File path, relative to the workspace root"},
                    "old_string": {"type": "string", "description": "The exact text to replace"},
                    "new_string": {"type": "string", "description": "The text to put in its place"},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence (default false)"}
                },
                "required": ["path", "old_string", "new_string"],
                "additionalProperties": false
            }),
        }
    }

    fn run(&mut self, arguments: &Value, _: &mut ToolContext<'_>) -> ToolOutput {
        args::output(edit(&self.ws, arguments))
    }
}

pub(super) fn edit(ws: &Workspace, arguments: &Value) -> Result<String, ToolError> {
    let map = args::object(
        EDIT_FILE,
        arguments,
        &["path", "old_string", "new_string", "replace_all"],
    )?;
    let path = args::required(EDIT_FILE, map, "path", true)?;
    let old = args::required(EDIT_FILE, map, "old_string", false)?;
    let new = args::required(EDIT_FILE, map, "new_string", false)?;
    let all = args::flag(EDIT_FILE, map, "replace_all")?;
    let at = locate_in(ws, path)?;
    let parent = open_parent(ws, &at, path, false)?;
    let Some(mode) = writable(ws, &parent, path, EDIT_FILE)? else {
        return Err(ToolError::Other(format!(
            "`{path}` does not exist; use write_file to create it"
        )));
    };
    let mut options = OpenOptions::new();
    options.read(true).custom_flags(libc::O_NOFOLLOW);
    let file = parent
        .dir
        .open_with(&parent.name, &options)
        .map_err(|e| ToolError::io(path, e))?
        .into_std();
    // What was opened is judged by the kernel's name of it, whatever was swapped in.
    let real = real_path(&file).map_err(|e| ToolError::io(path, e))?;
    ws.policy
        .check_write(&real)
        .map_err(|why| ToolError::refused(path, why, &real))?;
    let mut bytes = Vec::new();
    file.take(MAX_EDIT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| ToolError::io(path, e))?;
    if bytes.len() as u64 > MAX_EDIT_BYTES {
        return Err(ToolError::Other(format!(
            "`{path}` is larger than {MAX_EDIT_BYTES} bytes; edit_file edits smaller files only"
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| ToolError::Other(format!("`{path}` is not UTF-8 text")))?;
    let (edited, count) =
        replace(&text, old, new, all).map_err(|why| ToolError::Other(format!("{path}: {why}")))?;
    replace_file(&parent.dir, &parent.name, edited.as_bytes(), Some(mode))
        .map_err(|e| ToolError::io(path, e))?;
    Ok(format!(
        "Replaced {count} occurrence{} in {}",
        if count == 1 { "" } else { "s" },
        ws.shown(&real)
    ))
}
