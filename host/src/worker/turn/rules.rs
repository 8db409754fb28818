//! The `[[rules]]` verdict on one call, before the permission mode: a `shell` call's command
//! split into its simple commands, a writer's target normalised against the workspace.

use std::path::{Component, Path, PathBuf};

use super::Worker;
use crate::domain::ToolCall;
use crate::domain::builtin::{EDIT_FILE, SHELL, WRITE_FILE};
use crate::domain::rules::Judgement;

impl Worker {
    /// What the rules in force say of `call` (as it would run, after rewrites).
    pub(super) fn judge_rules(&self, call: &ToolCall) -> Judgement {
        let rules = &self.config.rules;
        if rules.rules.is_empty() {
            return Judgement::default();
        }
        if call.name == SHELL {
            let command = call
                .arguments
                .get("command")
                .and_then(|c| c.as_str())
                .unwrap_or_default();
            return rules.judge_shell(command);
        }
        let path = (call.name == WRITE_FILE || call.name == EDIT_FILE)
            .then(|| call.arguments.get("path").and_then(|p| p.as_str()))
            .flatten()
            .map(|raw| {
                let workspace = self.writer.header().workspace.clone();
                relative_to(&workspace, raw)
            });
        rules.judge_tool(&call.name, path.as_deref())
    }
}

/// `raw` as a path below `root`, `/`-separated, `.` and `..` resolved by their text; a path
/// that leaves the root stays absolute (no relative glob matches it).
pub(crate) fn relative_to(root: &Path, raw: &str) -> String {
    let joined = root.join(raw);
    let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
    let mut absolute = PathBuf::from("/");
    for component in joined.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::ParentDir => {
                parts.pop();
            }
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
        }
    }
    for part in &parts {
        absolute.push(part);
    }
    match absolute.strip_prefix(root) {
        Ok(inside) => inside.to_string_lossy().into_owned(),
        Err(_) => absolute.to_string_lossy().into_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::relative_to;
    use std::path::Path;

    #[test]
    fn targets_are_normalised_against_the_workspace() {
        let root = Path::new("/w");
        assert_eq!(relative_to(root, "src/a.rs"), "src/a.rs");
        assert_eq!(relative_to(root, "./src/../Cargo.lock"), "Cargo.lock");
        assert_eq!(relative_to(root, "/w/src/x"), "src/x");
        assert_eq!(relative_to(root, "../etc/passwd"), "/etc/passwd");
    }
}
