//! Sample interceptor (WIT 0.2.0): guards tool calls as an operator would.
//!
//! Config:
//! - `deny`: comma-separated rules `TOOL:GLOB` (or just `TOOL`): a call of `TOOL` (`*` for
//!   any tool) whose `path` argument matches `GLOB` is denied, e.g.
//!   `deny = "write_file:*.lock,grep:secret*"`. A rule without a glob denies every call of the
//!   tool. Globs ignore case; `*` does not cross `/`, `**` does.
//! - `rewrite`: comma-separated `FROM=>TO` path prefixes: a call whose `path` argument starts
//!   with `FROM` runs with `TO` in its place, e.g. `rewrite = "old/=>new/"`.
//! - `reason`: text prepended to denials (default `tool-guard`).

use globset::{GlobBuilder, GlobMatcher};
use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::interceptor::{Interceptor, ToolAction, ToolCall};

/// One deny rule.
struct Rule {
    text: String,
    tool: String,
    glob: Option<GlobMatcher>,
}

/// The guard.
pub struct ToolGuard {
    deny: Vec<Rule>,
    rewrite: Vec<(String, String)>,
    reason: String,
}

fn list(config: &Config, key: &str) -> Vec<String> {
    config
        .get(key)
        .unwrap_or("")
        .split([',', '\n'])
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

impl ToolGuard {
    /// A guard from its config.
    pub fn from_config(config: &Config) -> Result<Self, String> {
        let mut deny = Vec::new();
        for text in list(config, "deny") {
            let (tool, glob) = match text.split_once(':') {
                Some((tool, glob)) => (tool.trim(), Some(glob.trim())),
                None => (text.as_str(), None),
            };
            if tool.is_empty() {
                return Err(format!("deny rule {text:?}: no tool name"));
            }
            let glob = match glob {
                Some(glob) => Some(
                    GlobBuilder::new(glob)
                        .literal_separator(true)
                        .case_insensitive(true)
                        .build()
                        .map_err(|e| format!("deny rule {text:?}: {e}"))?
                        .compile_matcher(),
                ),
                None => None,
            };
            deny.push(Rule {
                tool: tool.to_owned(),
                glob,
                text: text.clone(),
            });
        }
        let mut rewrite = Vec::new();
        for text in list(config, "rewrite") {
            let Some((from, to)) = text.split_once("=>") else {
                return Err(format!("rewrite rule {text:?}: expected FROM=>TO"));
            };
            if from.trim().is_empty() {
                return Err(format!("rewrite rule {text:?}: empty prefix"));
            }
            rewrite.push((from.trim().to_owned(), to.trim().to_owned()));
        }
        Ok(Self {
            deny,
            rewrite,
            reason: config.get("reason").unwrap_or("tool-guard").to_owned(),
        })
    }

    /// The decision on a call of `tool` with `arguments` (JSON text).
    pub fn judge(&self, tool: &str, arguments: &str) -> ToolAction {
        let mut args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
        let path = args.get("path").and_then(Value::as_str).map(str::to_owned);
        for rule in &self.deny {
            if rule.tool != "*" && rule.tool != tool {
                continue;
            }
            let hit = match (&rule.glob, &path) {
                (None, _) => true,
                (Some(glob), Some(path)) => glob.is_match(path),
                (Some(_), None) => false,
            };
            if hit {
                return ToolAction::Deny(format!(
                    "{}: `{tool}` {}is denied by rule `{}`",
                    self.reason,
                    path.as_deref()
                        .map(|p| format!("on `{p}` "))
                        .unwrap_or_default(),
                    rule.text
                ));
            }
        }
        if let Some(path) = path {
            for (from, to) in &self.rewrite {
                if let Some(rest) = path.strip_prefix(from.as_str()) {
                    args["path"] = Value::String(format!("{to}{rest}"));
                    return ToolAction::Rewrite(args.to_string());
                }
            }
        }
        ToolAction::Allow
    }
}

impl Interceptor for ToolGuard {
    fn init(config: Config) -> Result<Self, String> {
        Self::from_config(&config)
    }

    fn pre_tool_call(&mut self, call: ToolCall) -> ToolAction {
        let action = self.judge(&call.name, &call.arguments);
        if let ToolAction::Deny(reason) = &action {
            warden_plugin::info!("{reason}");
        }
        action
    }
}

#[cfg(target_arch = "wasm32")]
warden_plugin::export_interceptor!(ToolGuard);

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(deny: &str, rewrite: &str) -> ToolGuard {
        ToolGuard::from_config(&Config::from(vec![
            ("deny".to_owned(), deny.to_owned()),
            ("rewrite".to_owned(), rewrite.to_owned()),
        ]))
        .unwrap()
    }

    #[test]
    fn denies_and_rewrites_by_tool_and_path() {
        let g = guard("write_file:*.lock,grep:secret*,rm", "old/=>new/");
        assert!(matches!(
            g.judge("write_file", r#"{"path":"Cargo.lock"}"#),
            ToolAction::Deny(r) if r.contains("write_file:*.lock")
        ));
        assert!(matches!(
            g.judge("write_file", r#"{"path":"a.rs"}"#),
            ToolAction::Allow
        ));
        assert!(matches!(
            g.judge("grep", r#"{"path":"secrets.txt"}"#),
            ToolAction::Deny(_)
        ));
        assert!(matches!(g.judge("rm", "{}"), ToolAction::Deny(_)));
        match g.judge("read_file", r#"{"path":"old/x.rs","limit":3}"#) {
            ToolAction::Rewrite(args) => {
                let v: Value = serde_json::from_str(&args).unwrap();
                assert_eq!(v["path"], "new/x.rs");
                assert_eq!(v["limit"], 3);
            }
            other => panic!("{other:?}"),
        }
        assert!(
            ToolGuard::from_config(&Config::from(vec![(
                "rewrite".to_owned(),
                "nope".to_owned()
            )]))
            .is_err()
        );
    }
}
