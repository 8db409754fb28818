//! Checks on items a plugin asks to commit: they must make a well-formed history, may not
//! speak as the person (no `user` items), and may not take a tool-call id the host reserves
//! (`fileref-…`) or one the session already used.

use std::collections::HashSet;

use crate::domain::Item;
use crate::fileref::placement::CALL_ID_PREFIX;

/// Why a plugin's items were refused.
pub(crate) fn check_plugin_items(items: &[Item]) -> Result<(), String> {
    let mut open_calls: Vec<String> = Vec::new();
    let mut seen_ids: HashSet<&str> = HashSet::new();
    for (index, item) in items.iter().enumerate() {
        match item {
            Item::User { .. } => {
                return Err(format!(
                    "item {index}: a plugin may not add a `user` item (it would speak as the person); use a `system` item"
                ));
            }
            Item::System { .. } => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "item {index}: tool calls {open_calls:?} are not answered before the next item"
                    ));
                }
            }
            Item::Assistant { tool_calls, .. } => {
                if !open_calls.is_empty() {
                    return Err(format!(
                        "item {index}: tool calls {open_calls:?} are not answered"
                    ));
                }
                for call in tool_calls {
                    if call.id.starts_with(CALL_ID_PREFIX) {
                        return Err(format!(
                            "item {index}: tool call id {:?} uses the prefix `{CALL_ID_PREFIX}` the host reserves",
                            call.id
                        ));
                    }
                    if call.id.is_empty() || !seen_ids.insert(call.id.as_str()) {
                        return Err(format!(
                            "item {index}: tool call id {:?} is empty or repeated",
                            call.id
                        ));
                    }
                    open_calls.push(call.id.clone());
                }
            }
            Item::ToolResult { call_id, .. } => {
                match open_calls.iter().position(|c| c == call_id) {
                    Some(pos) => {
                        open_calls.remove(pos);
                    }
                    None => {
                        return Err(format!(
                            "item {index}: tool result for call {call_id:?}, which no preceding item of this plugin made"
                        ));
                    }
                }
            }
        }
    }
    if open_calls.is_empty() {
        Ok(())
    } else {
        Err(format!("tool calls {open_calls:?} are never answered"))
    }
}

/// Tool-call ids in `items` that `used` (the ids of the session's history) already holds.
pub(crate) fn reused_call_ids<'a>(items: &'a [Item], used: &HashSet<&str>) -> Vec<&'a str> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        })
        .flatten()
        .map(|call| call.id.as_str())
        .filter(|id| used.contains(id))
        .collect()
}

/// Every tool-call id in `items`.
pub(crate) fn call_ids<'a>(items: impl Iterator<Item = &'a Item>) -> HashSet<&'a str> {
    items
        .filter_map(|item| match item {
            Item::Assistant { tool_calls, .. } => Some(tool_calls),
            _ => None,
        })
        .flatten()
        .map(|call| call.id.as_str())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::ToolCall;

    fn call(id: &str) -> Item {
        Item::Assistant {
            text: String::new(),
            tool_calls: vec![ToolCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: serde_json::json!({"path": "a"}),
            }],
        }
    }

    fn result(id: &str) -> Item {
        Item::ToolResult {
            call_id: id.into(),
            content: "x".into(),
            is_error: false,
        }
    }

    #[test]
    fn accepts_context_and_paired_calls() {
        assert!(
            check_plugin_items(&[
                Item::system("a"),
                call("c1"),
                result("c1"),
                Item::system("s")
            ])
            .is_ok()
        );
    }

    #[test]
    fn refuses_user_items_and_host_ids() {
        let err = check_plugin_items(&[Item::user("I approve")]).unwrap_err();
        assert!(err.contains("may not add a `user` item"), "{err}");
        let err = check_plugin_items(&[call("fileref-0"), result("fileref-0")]).unwrap_err();
        assert!(err.contains("reserves"), "{err}");
        let history = [call("c7"), result("c7")];
        let used = call_ids(history.iter());
        assert_eq!(reused_call_ids(&[call("c7"), result("c7")], &used), ["c7"]);
        assert!(reused_call_ids(&[call("c8"), result("c8")], &used).is_empty());
    }

    #[test]
    fn refuses_orphan_results_and_unanswered_calls() {
        let err = check_plugin_items(&[result("nope")]).unwrap_err();
        assert!(err.contains("no preceding item"), "{err}");
        assert!(
            check_plugin_items(&[call("c1")])
                .unwrap_err()
                .contains("never answered")
        );
        assert!(check_plugin_items(&[call("c1"), Item::system("x")]).is_err());
        assert!(check_plugin_items(&[call("c1"), result("c1"), result("c1")]).is_err());
    }
}
