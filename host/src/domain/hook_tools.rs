//! Tool calls in the spelling command hooks were written for: Claude Code's tool names and
//! input fields (`Bash` with `command`, `Read`/`Write`/`Edit` with an absolute `file_path`,
//! `Grep` with `-i`, …), and back, for a hook's `updatedInput`. A tool warden has and Claude
//! Code does not (an MCP tool, a plugin's tool) keeps its name and arguments.

use std::path::Path;

use serde_json::{Map, Value};

use super::builtin::{EDIT_FILE, GREP, LIST_FILES, READ_FILE, WRITE_FILE};
use super::tool_matcher::claude_name;

/// Argument renames of one tool: (warden's key, Claude Code's key).
fn renames(tool: &str) -> &'static [(&'static str, &'static str)] {
    match tool {
        READ_FILE | WRITE_FILE | EDIT_FILE => &[("path", "file_path")],
        GREP => &[("ignore_case", "-i"), ("max_results", "head_limit")],
        _ => &[],
    }
}

/// Whether the tool's `path` argument is a file Claude Code names by its absolute path.
fn absolute_path(tool: &str) -> bool {
    matches!(tool, READ_FILE | WRITE_FILE | EDIT_FILE | LIST_FILES)
}

/// `call`'s tool name and input as a Claude Code hook expects them; relative file paths made
/// absolute under `root`.
pub fn to_claude(tool: &str, arguments: &Value, root: &Path) -> (String, Value) {
    let name = claude_name(tool).unwrap_or(tool).to_owned();
    let Value::Object(map) = arguments else {
        return (name, arguments.clone());
    };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let renamed = renames(tool)
            .iter()
            .find(|(ours, _)| ours == key)
            .map_or(key.as_str(), |(_, theirs)| theirs);
        let value = match value {
            Value::String(path) if key == "path" && absolute_path(tool) => {
                Value::String(root.join(path).display().to_string())
            }
            other => other.clone(),
        };
        out.insert(renamed.to_owned(), value);
    }
    (name, Value::Object(out))
}

/// A hook's `updatedInput` for a call of `tool` as warden's arguments: Claude Code's keys
/// renamed back, an absolute file path under `root` made relative (one outside stays as
/// given, for the tool to refuse). `Err` when it is not a JSON object.
pub fn from_claude(tool: &str, input: &Value, root: &Path) -> Result<Value, String> {
    let Value::Object(map) = input else {
        return Err("`updatedInput` is not a JSON object".into());
    };
    let mut out = Map::with_capacity(map.len());
    for (key, value) in map {
        let renamed = renames(tool)
            .iter()
            .find(|(_, theirs)| theirs == key)
            .map_or(key.as_str(), |(ours, _)| ours);
        let value = match value {
            Value::String(path) if renamed == "path" && absolute_path(tool) => {
                Value::String(relative_to(path, root))
            }
            other => other.clone(),
        };
        out.insert(renamed.to_owned(), value);
    }
    Ok(Value::Object(out))
}

/// `path` relative to `root` when it lies under it (`.` for the root itself).
fn relative_to(path: &str, root: &Path) -> String {
    match Path::new(path).strip_prefix(root) {
        Ok(rest) if rest.as_os_str().is_empty() => ".".to_owned(),
        Ok(rest) => rest.display().to_string(),
        Err(_) => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    #[test]
    fn warden_calls_read_as_claude_code_writes_them() {
        let root = Path::new("/w");
        let (name, input) = to_claude("shell", &json!({"command": "ls"}), root);
        assert_eq!((name.as_str(), input), ("Bash", json!({"command": "ls"})));
        let (name, input) = to_claude(
            "edit_file",
            &json!({"path": "src/a.rs", "old_string": "a", "new_string": "b"}),
            root,
        );
        assert_eq!(name, "Edit");
        assert_eq!(
            input,
            json!({"file_path": "/w/src/a.rs", "old_string": "a", "new_string": "b"})
        );
        let (name, input) = to_claude("grep", &json!({"pattern": "x", "ignore_case": true}), root);
        assert_eq!(
            (name.as_str(), input),
            ("Grep", json!({"pattern": "x", "-i": true}))
        );
        let (name, input) = to_claude("mcp__gh__issue", &json!({"n": 1}), root);
        assert_eq!((name.as_str(), input), ("mcp__gh__issue", json!({"n": 1})));
    }

    #[test]
    fn an_updated_input_comes_back_in_wardens_keys() {
        let root = Path::new("/w");
        assert_eq!(
            from_claude(
                "write_file",
                &json!({"file_path": "/w/b.txt", "content": "x"}),
                root
            ),
            Ok(json!({"path": "b.txt", "content": "x"}))
        );
        // Outside the root: left for the tool to refuse.
        assert_eq!(
            from_claude("read_file", &json!({"file_path": "/etc/passwd"}), root),
            Ok(json!({"path": "/etc/passwd"}))
        );
        assert!(from_claude("shell", &json!("rm"), root).is_err());
    }

    proptest! {
        #[test]
        fn a_call_survives_the_trip_there_and_back(
            tool in prop::sample::select(vec![
                "shell", "read_file", "write_file", "edit_file", "glob", "grep", "list_files",
                "mcp__s__t",
            ]),
            path in "[a-z][a-z0-9_.]{0,8}(/[a-z0-9_]{1,8}){0,3}",
            text in ".{0,40}",
            flag in any::<bool>(),
        ) {
            let root = Path::new("/work/space");
            let arguments = json!({"path": path, "content": text, "ignore_case": flag});
            let (_, input) = to_claude(tool, &arguments, root);
            prop_assert_eq!(from_claude(tool, &input, root), Ok(arguments));
        }
    }
}
