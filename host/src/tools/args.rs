//! Argument parsing shared by the workspace tools: an object with known keys only, typed
//! fields, clear messages.

use serde_json::{Map, Value};

use super::error::ToolError;

/// The arguments of `tool`, an object with no key outside `allowed`.
pub(crate) fn object<'a>(
    tool: &'static str,
    args: &'a Value,
    allowed: &[&str],
) -> Result<&'a Map<String, Value>, ToolError> {
    let map = args.as_object().ok_or_else(|| ToolError::Arguments {
        tool,
        message: "expected a JSON object".to_owned(),
    })?;
    if let Some(unknown) = map.keys().find(|k| !allowed.contains(&k.as_str())) {
        return Err(ToolError::Arguments {
            tool,
            message: format!(
                "unknown argument `{unknown}` (allowed: {})",
                allowed.join(", ")
            ),
        });
    }
    Ok(map)
}

/// A string argument (`None` when absent or null); `non_empty` refuses `""`.
pub(crate) fn string<'a>(
    tool: &'static str,
    map: &'a Map<String, Value>,
    key: &str,
    non_empty: bool,
) -> Result<Option<&'a str>, ToolError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if !(non_empty && s.is_empty()) => Ok(Some(s)),
        Some(_) => Err(ToolError::Arguments {
            tool,
            message: format!(
                "`{key}` must be a {}string",
                if non_empty { "non-empty " } else { "" }
            ),
        }),
    }
}

/// A required string argument.
pub(crate) fn required<'a>(
    tool: &'static str,
    map: &'a Map<String, Value>,
    key: &str,
    non_empty: bool,
) -> Result<&'a str, ToolError> {
    string(tool, map, key, non_empty)?.ok_or_else(|| ToolError::Arguments {
        tool,
        message: format!("`{key}` is required"),
    })
}

/// A boolean argument, `false` when absent.
pub(crate) fn flag(
    tool: &'static str,
    map: &Map<String, Value>,
    key: &str,
) -> Result<bool, ToolError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(ToolError::Arguments {
            tool,
            message: format!("`{key}` must be true or false"),
        }),
    }
}

/// An integer argument ≥ 1, `None` when absent.
pub(crate) fn count(
    tool: &'static str,
    map: &Map<String, Value>,
    key: &str,
) -> Result<Option<usize>, ToolError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .filter(|&n| n >= 1)
            .and_then(|n| usize::try_from(n).ok())
            .map(Some)
            .ok_or_else(|| ToolError::Arguments {
                tool,
                message: format!("`{key}` must be an integer ≥ 1, got {v}"),
            }),
    }
}

/// A tool's outcome as its output.
pub(crate) fn output(outcome: Result<String, ToolError>) -> crate::domain::ToolOutput {
    match outcome {
        Ok(content) => crate::domain::ToolOutput::ok(content),
        Err(error) => crate::domain::ToolOutput::error(error.to_string()),
    }
}
