//! JSON with its object keys in sorted order, whatever order a value was built or read in: what
//! a digest over JSON is taken of (a trust digest), so that it depends on content alone.

use serde_json::{Map, Value};

/// `value` with every object's keys sorted, recursively.
pub fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            let mut out = Map::new();
            for key in keys {
                if let Some(inner) = map.get(key) {
                    out.insert(key.clone(), sorted(inner));
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

/// The compact JSON text of `value` with sorted keys.
pub fn to_string(value: &Value) -> String {
    sorted(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_are_sorted_at_every_depth_whatever_the_order_they_were_given_in() {
        let built: Value =
            serde_json::from_str(r#"{"b": 1, "a": {"z": [{"y": 1, "x": 2}], "c": null}}"#)
                .unwrap_or_default();
        assert_eq!(
            to_string(&built),
            r#"{"a":{"c":null,"z":[{"x":2,"y":1}]},"b":1}"#
        );
        assert_eq!(
            to_string(&json!({"b": 1, "a": 2})),
            to_string(&json!({"a": 2, "b": 1}))
        );
    }
}
