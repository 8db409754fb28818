//! `plugin bench` of a tool plugin: one call per tool it describes, with arguments built from
//! the tool's schema (each required property given a plain value) unless `--args TOOL=JSON`
//! names them.

use serde_json::{Map, Value, json};

use crate::cli::exit::CliError;
use crate::domain::{
    FileChunk, Listing, Resolve, ResolveError, ResolveRequest, Resolved, ToolSpec,
};

/// `--args TOOL=JSON` arguments, checked: each a tool name and a JSON object.
pub(super) fn parse_args(args: &[String]) -> Result<Vec<(String, Value)>, CliError> {
    args.iter()
        .map(|pair| {
            let Some((tool, json)) = pair.split_once('=') else {
                return Err(CliError::usage(format!(
                    "--args {pair:?}: expected TOOL=JSON"
                )));
            };
            match serde_json::from_str::<Value>(json) {
                Ok(value @ Value::Object(_)) => Ok((
                    tool.to_owned(),
                    crate::domain::canonical_json::sorted(&value),
                )),
                Ok(_) => Err(CliError::usage(format!(
                    "--args {tool}: the arguments must be a JSON object"
                ))),
                Err(err) => Err(CliError::usage(format!("--args {tool}: not JSON: {err}"))),
            }
        })
        .collect()
}

/// The arguments a call of `spec` is benchmarked with: those given, else the schema's required
/// properties each with a plain value of its type (a string names the synthetic 16 KB file).
pub(super) fn arguments(spec: &ToolSpec, given: &[(String, Value)]) -> Value {
    if let Some((_, value)) = given.iter().find(|(tool, _)| *tool == spec.name) {
        return value.clone();
    }
    let schema = &spec.input_schema;
    let mut out = Map::new();
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for key in required.iter().filter_map(Value::as_str) {
        let kind = schema
            .get("properties")
            .and_then(|p| p.get(key))
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            .unwrap_or("string");
        let value = match kind {
            "integer" | "number" => json!(1),
            "boolean" => json!(false),
            "array" => json!([]),
            "object" => json!({}),
            _ if key == "path" || key == "file" => json!("16k.txt"),
            _ => json!("lorem"),
        };
        out.insert(key.to_owned(), value);
    }
    Value::Object(out)
}

/// Tool plugins reach files through their `fs` grant, never through the resolver a built-in tool
/// uses; a call that asked it anyway is told so.
pub(super) struct NoResolver;

fn none() -> ResolveError {
    ResolveError::NotFound("no resolver in `plugin bench`".into())
}

impl Resolve for NoResolver {
    fn resolve(&mut self, _: &ResolveRequest) -> Result<Resolved, ResolveError> {
        Err(none())
    }

    fn read_file(&mut self, _: &str, _: u32, _: u32, _: u64) -> Result<FileChunk, ResolveError> {
        Err(none())
    }

    fn list_files(&mut self, _: &str, _: u32) -> Result<Listing, ResolveError> {
        Err(none())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(schema: Value) -> ToolSpec {
        ToolSpec {
            name: "grep".into(),
            description: String::new(),
            input_schema: schema,
        }
    }

    #[test]
    fn required_properties_get_a_value_of_their_type() {
        let s = spec(json!({
            "type": "object",
            "properties": {"pattern": {"type": "string"}, "path": {"type": "string"},
                           "max": {"type": "integer"}, "other": {"type": "string"}},
            "required": ["pattern", "path", "max"]
        }));
        assert_eq!(
            arguments(&s, &[]),
            json!({"pattern": "lorem", "path": "16k.txt", "max": 1})
        );
        let given = parse_args(&[r#"grep={"pattern":"x"}"#.to_owned()]).unwrap();
        assert_eq!(arguments(&s, &given), json!({"pattern": "x"}));
        assert!(parse_args(&["grep=[1]".to_owned()]).is_err());
        assert!(parse_args(&["grep".to_owned()]).is_err());
        assert_eq!(arguments(&spec(json!({})), &[]), json!({}));
    }
}
