//! The `[[rules]]` verdict on one call, before the permission mode: a `shell` call's command
//! split into its simple commands, a writer's target normalised against the workspace.

use std::path::{Component, Path, PathBuf};

use super::Worker;
use crate::config::save_user_rules;
use crate::domain::builtin::{EDIT_FILE, SHELL, WRITE_FILE};
use crate::domain::rules::{Decision, Judgement, Rule, RuleOrigin, Saved, narrowest, write_scope};
use crate::domain::{Alert, ToolCall, TurnSink};

/// The rule "always" saves for one argv prefix (`always:cargo-test`), or for one exact
/// command (`always:exact-awk-_print__1_-f`).
fn always_rule(saved: &Saved, workspace: &Path, file: &Path) -> Rule {
    let prefix = &saved.words;
    // An exact command's words may be long and full of punctuation: its program and a hash
    // of the whole argv keep its id short and unique.
    let named = if saved.exact {
        let hash = prefix.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, w| {
            w.bytes()
                .chain([0])
                .fold(h, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
        });
        vec![
            "exact".to_owned(),
            prefix.first().cloned().unwrap_or_default(),
            format!("{hash:016x}"),
        ]
    } else {
        prefix.clone()
    };
    Rule {
        id: format!(
            "always:{}",
            named
                .join("-")
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                    c
                } else {
                    '_'
                })
                .collect::<String>()
        ),
        decision: Decision::Allow,
        why: "allowed with \"always\" when asked".to_owned(),
        command: prefix.iter().map(|w| vec![w.clone()]).collect(),
        exact: saved.exact,
        read_only: false,
        unless: Vec::new(),
        tools: Vec::new(),
        paths: Vec::new(),
        examples: vec![
            prefix
                .iter()
                .map(|w| crate::domain::rules::quoted(w))
                .collect::<Vec<_>>()
                .join(" "),
        ],
        not_examples: Vec::new(),
        escalate: None,
        workspace: Some(workspace.to_owned()),
        origin: RuleOrigin {
            layer: "user".to_owned(),
            file: Some(file.to_owned()),
            line: 0,
        },
    }
}

/// The rule "always" saves for writes (`write_file` and `edit_file`) to `scope`.
fn always_write_rule(scope: &str, workspace: &Path, file: &Path) -> Rule {
    let id: String = scope
        .trim_end_matches("/**")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "-_.".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    let example = match scope.strip_suffix("**") {
        Some(dir) => format!("{dir}file"),
        None => scope.to_owned(),
    };
    Rule {
        id: format!("always:write-{id}"),
        decision: Decision::Allow,
        why: "writes allowed with \"always\" when asked".to_owned(),
        command: Vec::new(),
        exact: false,
        read_only: false,
        unless: Vec::new(),
        tools: Vec::new(),
        paths: vec![scope.to_owned()],
        examples: vec![example],
        not_examples: Vec::new(),
        escalate: None,
        workspace: Some(workspace.to_owned()),
        origin: RuleOrigin {
            layer: "user".to_owned(),
            file: Some(file.to_owned()),
            line: 0,
        },
    }
}

impl Worker {
    /// "Always" for a write (`write_file` or `edit_file`): a rule allowing both writers on the
    /// narrowest glob that covers the target ([`write_scope`]), limited to this workspace,
    /// saved to the user layer and in force for the rest of this worker's life. False (the
    /// answer counts as yes, once) when the target cannot be covered or the rule not saved.
    pub(super) fn save_always_write_rule(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
    ) -> bool {
        let workspace = self.writer.header().workspace.clone();
        let scope = call
            .arguments
            .get("path")
            .and_then(|p| p.as_str())
            .and_then(|raw| write_scope(&relative_to(&workspace, raw)));
        let (Some(scope), Some(file)) = (scope, self.config.rules.user_file.clone()) else {
            self.raise(
                sink,
                Alert::warn(
                    "rules",
                    "this write's target cannot be covered by a rule (outside the workspace, or no user configuration file): allowed once",
                ),
            );
            return false;
        };
        let rule = always_write_rule(&scope, &workspace, &file);
        if self.config.rules.rules.iter().any(|r| r.id == rule.id) {
            return true;
        }
        if let Err(err) = save_user_rules(&file, std::slice::from_ref(&rule)) {
            self.raise(
                sink,
                Alert::warn(
                    "rules",
                    format!("the rule was not saved: {err}; allowed once"),
                ),
            );
            return false;
        }
        self.raise(
            sink,
            Alert::info(
                "rules",
                format!(
                    "saved to {}: allow writes to `{scope}` in this workspace",
                    file.display()
                ),
            ),
        );
        self.config.rules.rules.insert(0, rule);
        true
    }

    /// "Always" for a `shell` call: the narrowest argv prefixes that cover its command (the
    /// exact command for a program that runs what its arguments say), limited to this workspace, saved to the user layer and in force for the rest of this
    /// worker's life. False (the answer counts as yes, once) when the command cannot be
    /// covered by prefixes or there is no user file to save to (the person is told).
    pub(super) fn save_always_rule(&mut self, sink: &mut dyn TurnSink, call: &ToolCall) -> bool {
        let command = call
            .arguments
            .get("command")
            .and_then(|c| c.as_str())
            .unwrap_or_default();
        let (Some(prefixes), Some(file)) =
            (narrowest(command), self.config.rules.user_file.clone())
        else {
            self.raise(
                sink,
                Alert::warn(
                    "rules",
                    "this command cannot be covered by a rule (something in it is uncertain, or it needs a bare interpreter): allowed once",
                ),
            );
            return false;
        };
        let workspace = self.writer.header().workspace.clone();
        let (rules, shown): (Vec<Rule>, Vec<String>) = prefixes
            .iter()
            .map(|saved| (always_rule(saved, &workspace, &file), saved.shown()))
            .filter(|(rule, _)| !self.config.rules.rules.iter().any(|r| r.id == rule.id))
            .unzip();
        if let Err(err) = save_user_rules(&file, &rules) {
            self.raise(
                sink,
                Alert::warn(
                    "rules",
                    format!("the rule was not saved: {err}; allowed once"),
                ),
            );
            return false;
        }
        if !shown.is_empty() {
            self.raise(
                sink,
                Alert::info(
                    "rules",
                    format!(
                        "saved to {}: allow `{}` in this workspace",
                        file.display(),
                        shown.join("`, `")
                    ),
                ),
            );
        }
        self.config.rules.rules.splice(0..0, rules);
        true
    }

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
