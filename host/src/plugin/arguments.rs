//! A tool call's arguments as the JSON text every version's `tool-call` carries, written once
//! for a chain of plugins rather than once per plugin.
//!
//! A tool call goes through every interceptor's `pre-tool-call`, then every one's
//! `post-tool-call`, each given the arguments as text. Writing that text is most of what
//! converting a call costs the host, and between two plugins the arguments change only when one
//! rewrites them. The last arguments written on this thread are kept with their text; text is
//! reused only for arguments equal to them, so a plugin never sees any arguments but the call's.
//! What is kept is one call's arguments per thread, until the next call replaces them.

use std::cell::RefCell;

use serde_json::Value;

thread_local! {
    /// The arguments last written on this thread, and their text.
    static LAST: RefCell<Option<(Value, String)>> = const { RefCell::new(None) };
}

/// `arguments` as compact JSON text.
pub(crate) fn text(arguments: &Value) -> String {
    LAST.try_with(|last| {
        let mut last = last.try_borrow_mut().ok()?;
        match last.as_ref() {
            Some((value, text)) if same(value, arguments) => Some(text.clone()),
            _ => {
                let text = arguments.to_string();
                *last = Some((arguments.clone(), text.clone()));
                Some(text)
            }
        }
    })
    .ok()
    .flatten()
    .unwrap_or_else(|| arguments.to_string())
}

/// Whether `a` and `b` are written as the same text: equal, with their keys in the same order
/// and their floats bit for bit (`-0.0` is not `0.0`, though `==` says it is).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y && x.as_f64().map(f64::to_bits) == y.as_f64().map(f64::to_bits)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((kx, vx), (ky, vy))| kx == ky && same(vx, vy))
        }
        _ => a == b,
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::text;
    use crate::domain::json_strategy::json;

    #[test]
    fn arguments_rewritten_between_two_plugins_are_written_anew() {
        let before = json!({"path": "old/src/main.rs"});
        let after = json!({"path": "a/src/main.rs"});
        assert_eq!(text(&before), r#"{"path":"old/src/main.rs"}"#);
        assert_eq!(text(&before), r#"{"path":"old/src/main.rs"}"#);
        assert_eq!(text(&after), r#"{"path":"a/src/main.rs"}"#);
        assert_eq!(text(&before), r#"{"path":"old/src/main.rs"}"#);
    }

    #[test]
    fn arguments_that_differ_only_in_type_are_not_taken_for_each_other() {
        // 1 and 1.0 are different JSON values, and a plugin must see the one the model wrote.
        assert_eq!(text(&json!({"n": 1})), r#"{"n":1}"#);
        assert_eq!(text(&json!({"n": 1.0})), r#"{"n":1.0}"#);
        assert_eq!(text(&json!({"n": "1"})), r#"{"n":"1"}"#);
        assert_eq!(text(&json!({"n": 0.0})), r#"{"n":0.0}"#);
        assert_eq!(text(&json!({"n": -0.0})), r#"{"n":-0.0}"#);
    }

    proptest! {
        /// Whatever came before, the text is the text of the arguments asked about.
        #[test]
        fn the_text_is_always_that_of_the_arguments_given(values in prop::collection::vec(json(), 1..8)) {
            for value in &values {
                prop_assert_eq!(text(value), value.to_string());
            }
        }
    }
}
