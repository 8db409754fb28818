//! A warden tool plugin: `count_lines` counts the lines of a workspace file.
//!
//! Its [[plugins]] entry must grant `fs = "read"`; paths outside the workspace, `..` and the
//! deny globs of the entry's `deny` config key are refused.

use serde_json::Value;
use warden_plugin::Config;
use warden_plugin::tool::{Tool, ToolOutput, ToolSpec};
use warden_plugin::workspace::Workspace;

struct Plugin {
    workspace: Workspace,
}

/// Lines of `text` (a last line without a newline counts).
fn count_lines(text: &str) -> usize {
    text.lines().count()
}

impl Tool for Plugin {
    fn init(config: Config) -> Result<Self, String> {
        Ok(Self {
            workspace: Workspace::from_config(&config, &[".env", "**/*.pem", "**/*.key"])?,
        })
    }

    fn describe(&self) -> Vec<ToolSpec> {
        vec![ToolSpec::new(
            "count_lines",
            "Count the lines of a text file in the workspace.",
            r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
        )]
    }

    fn call(&mut self, name: &str, arguments: &str) -> Result<ToolOutput, String> {
        if name != "count_lines" {
            return Err(format!("unknown tool `{name}`"));
        }
        let args: Value =
            serde_json::from_str(arguments).map_err(|e| format!("bad arguments: {e}"))?;
        let path = args
            .get("path")
            .and_then(Value::as_str)
            .ok_or("missing string argument `path`")?;
        let file = self.workspace.resolve(path)?;
        // The SDK's read: one host call per 64 KiB on this thread (`std::fs` hands every
        // read to a host thread).
        let text =
            warden_plugin::fs::read_to_string(&file.full).map_err(|e| format!("{path}: {e}"))?;
        Ok(ToolOutput::text(format!(
            "{}: {} lines",
            file.relative,
            count_lines(&text)
        )))
    }
}

warden_plugin::export_tool!(Plugin);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_lines() {
        assert_eq!(count_lines(""), 0);
        assert_eq!(count_lines("a\nb\n"), 2);
        assert_eq!(count_lines("a\nb"), 2);
    }
}
