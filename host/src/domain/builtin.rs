//! The built-in tools' names, as the model sees them, and what a tool may do to the workspace
//! ([`ToolEffect`]), which the permission modes judge.

use serde::{Deserialize, Serialize};

/// Reads a workspace file.
pub const READ_FILE: &str = "read_file";
/// Lists a workspace directory.
pub const LIST_FILES: &str = "list_files";
/// Searches file contents.
pub const GREP: &str = "grep";
/// Finds files by name pattern.
pub const GLOB: &str = "glob";
/// Creates or overwrites a workspace file.
pub const WRITE_FILE: &str = "write_file";
/// Replaces an exact string in a workspace file.
pub const EDIT_FILE: &str = "edit_file";
/// Runs a command in the sandbox.
pub const SHELL: &str = "shell";
/// Sets the model's plan (changes nothing on disk).
pub const UPDATE_PLAN: &str = "update_plan";

/// What a tool may do to the workspace, from least to most.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ToolEffect {
    /// Reads only.
    Read,
    /// Writes files.
    Write,
    /// Runs commands.
    Shell,
}

/// The effect of the built-in tool `name`, or `None` for a name that is not a built-in.
pub fn builtin_effect(name: &str) -> Option<ToolEffect> {
    match name {
        READ_FILE | LIST_FILES | GREP | GLOB | UPDATE_PLAN => Some(ToolEffect::Read),
        WRITE_FILE | EDIT_FILE => Some(ToolEffect::Write),
        SHELL => Some(ToolEffect::Shell),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_are_ordered_and_only_builtins_have_one() {
        assert!(ToolEffect::Read < ToolEffect::Write && ToolEffect::Write < ToolEffect::Shell);
        assert_eq!(builtin_effect(EDIT_FILE), Some(ToolEffect::Write));
        assert_eq!(builtin_effect(SHELL), Some(ToolEffect::Shell));
        assert_eq!(builtin_effect(GREP), Some(ToolEffect::Read));
        assert_eq!(builtin_effect(UPDATE_PLAN), Some(ToolEffect::Read));
        assert_eq!(builtin_effect("mcp__x__shell"), None);
    }
}
