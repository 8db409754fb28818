//! Checks on items a plugin asks to commit: they must make a well-formed history.

use std::collections::HashSet;

use crate::domain::Item;

/// Why a plugin's items were refused.
pub(crate) fn check_plugin_items(items: &[Item]) -> Result<(), String> {
    let mut open_calls: Vec<String> = Vec::new();
    let mut seen_ids: HashSet<&str> = HashSet::new();
    for (index, item) in items.iter().enumerate() {
        match item {
            Item::User { .. } | Item::System { .. } => {
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
            check_plugin_items(&[Item::system("a"), call("c1"), result("c1"), Item::user("u")])
                .is_ok()
        );
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
