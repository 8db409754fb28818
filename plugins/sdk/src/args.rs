//! A tool call's arguments, typed (feature `json`, with `interceptor`): the text the host
//! hands over (`ToolCall::arguments`, a JSON object) parsed once, read by key as a string, a
//! number or a flag.

use crate::types::ToolCall;

/// The arguments of a tool call, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ToolArgs(serde_json::Map<String, serde_json::Value>);

impl ToolArgs {
    /// The string argument `key`, if there is one.
    pub fn str(&self, key: &str) -> Option<&str> {
        self.0.get(key)?.as_str()
    }

    /// The integer argument `key`, if there is one.
    pub fn i64(&self, key: &str) -> Option<i64> {
        self.0.get(key)?.as_i64()
    }

    /// The boolean argument `key`, if there is one.
    pub fn bool(&self, key: &str) -> Option<bool> {
        self.0.get(key)?.as_bool()
    }

    /// The argument `key` as JSON, whatever its type.
    pub fn get(&self, key: &str) -> Option<&serde_json::Value> {
        self.0.get(key)
    }
}

impl ToolCall {
    /// The call's arguments, parsed; an `Err` says why they are not a JSON object.
    pub fn args(&self) -> Result<ToolArgs, String> {
        match serde_json::from_str(&self.arguments) {
            Ok(serde_json::Value::Object(map)) => Ok(ToolArgs(map)),
            Ok(_) => Err(format!(
                "the arguments of `{}` are not a JSON object",
                self.name
            )),
            Err(err) => Err(format!("the arguments of `{}`: {err}", self.name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "shell".into(),
            arguments: arguments.into(),
        }
    }

    #[test]
    fn arguments_are_read_by_key_and_type() {
        let args = call(r#"{"command":"ls","timeout":5,"quiet":true}"#)
            .args()
            .unwrap();
        assert_eq!(args.str("command"), Some("ls"));
        assert_eq!(args.i64("timeout"), Some(5));
        assert_eq!(args.bool("quiet"), Some(true));
        assert_eq!(args.str("timeout"), None);
        assert!(call("[1]").args().is_err());
        assert!(call("{").args().is_err());
    }
}
