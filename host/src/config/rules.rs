//! `[[rules]]` in each configuration layer: read with the line of each rule, checked (ids,
//! shape, `examples` and `not_examples`) when the configuration loads, and gathered into the
//! [`RuleSet`] in force.
//!
//! Every layer's rules apply together and the strictest decision wins, so no layer can loosen
//! a managed `deny` or `ask`. Under `policy.managed_rules_only` the `allow` rules of the user
//! and project layers are left out (with a warning). A project's `allow` rules are a trust
//! declaration: until `warden trust` they are held back; its `deny` and `ask` rules apply at
//! once. The built-in rules come last, unless `[tools] builtin_rules = false`.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::error::ConfigError;
use super::load::LayerKind;
use crate::domain::EscalationKind;
use crate::domain::rules::{Decision, Rule, RuleOrigin, RuleSet, builtin_rules};

/// A word of a command prefix: one word, or its alternatives.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
enum OneOrMany {
    One(String),
    Many(Vec<String>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<String> {
        match self {
            Self::One(one) => vec![one],
            Self::Many(many) => many,
        }
    }
}

/// One `[[rules]]` entry as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct RuleSpec {
    id: String,
    decision: Decision,
    #[serde(default)]
    why: String,
    #[serde(default)]
    tool: Option<OneOrMany>,
    #[serde(default)]
    command: Vec<OneOrMany>,
    #[serde(default)]
    unless: Vec<String>,
    /// The command is the whole argv, not a prefix (as "always" saves it for a program that
    /// runs what its arguments say).
    #[serde(default)]
    exact: bool,
    #[serde(default)]
    paths: Vec<String>,
    #[serde(default)]
    examples: Vec<String>,
    #[serde(default)]
    not_examples: Vec<String>,
    /// Limits the rule to one workspace (absolute root), as "always" in a chat saves it.
    #[serde(default)]
    workspace: Option<PathBuf>,
    /// The escalation (`network`, `git`, `unsandboxed`) this command rule decides.
    #[serde(default)]
    escalate: Option<EscalationKind>,
}

#[derive(Debug, Deserialize)]
struct RulesOnly {
    #[serde(default)]
    rules: Vec<toml::Spanned<RuleSpec>>,
}

/// The rules of one layer, read from its text, each checked on its own.
pub(crate) fn read_layer(
    kind: LayerKind,
    path: &Path,
    text: &str,
) -> Result<Vec<Rule>, ConfigError> {
    let parsed: RulesOnly =
        toml::from_str(text).map_err(|err| ConfigError::parse(path, text, &err))?;
    let mut out = Vec::new();
    for spanned in parsed.rules {
        let line = text
            .get(..spanned.span().start)
            .map_or(1, |before| before.matches('\n').count() + 1);
        let spec = spanned.into_inner();
        let rule = build(spec, kind, path, line)?;
        check_examples(&rule, path, line)?;
        out.push(rule);
    }
    Ok(out)
}

fn error(path: &Path, line: usize, message: String) -> ConfigError {
    ConfigError::Parse {
        path: path.to_owned(),
        line,
        column: 1,
        key: Some("rules".to_owned()),
        message,
    }
}

fn build(spec: RuleSpec, kind: LayerKind, path: &Path, line: usize) -> Result<Rule, ConfigError> {
    let id = spec.id.trim().to_owned();
    if id.is_empty() || id.starts_with("builtin:") || id.contains(char::is_whitespace) {
        return Err(error(
            path,
            line,
            format!(
                "rule id `{}` must be one word, not starting with `builtin:`",
                spec.id
            ),
        ));
    }
    let tools = spec.tool.map(OneOrMany::into_vec).unwrap_or_default();
    let command: Vec<Vec<String>> = spec.command.into_iter().map(OneOrMany::into_vec).collect();
    let named = |what: &str| error(path, line, format!("rule `{id}`: {what}"));
    if command
        .iter()
        .any(|alts| alts.is_empty() || alts.iter().any(String::is_empty))
    {
        return Err(named(
            "every word of `command` needs at least one non-empty alternative",
        ));
    }
    let shell_tool = tools.is_empty() || tools == ["shell"];
    let (tools, command) = match (command.is_empty(), shell_tool) {
        (false, true) if spec.paths.is_empty() => (Vec::new(), command),
        (false, _) => {
            return Err(named(
                "a `command` rule is for the `shell` tool and takes no `paths`",
            ));
        }
        (true, _) if tools.is_empty() && spec.paths.is_empty() => {
            return Err(named("needs `command` (for `shell`), `tool` or `paths`"));
        }
        (true, _) if tools == ["shell"] => {
            return Err(named("a rule on `shell` needs `command`"));
        }
        (true, _) => (tools, command),
    };
    if spec.examples.is_empty() {
        return Err(named("needs at least one entry in `examples`"));
    }
    if spec.escalate.is_some() {
        if command.is_empty() {
            return Err(named("`escalate` is for a `command` rule on `shell`"));
        }
        // A project cannot let its own commands leave the sandbox unasked.
        if kind == LayerKind::Project && spec.decision == Decision::Allow {
            return Err(named(
                "an `allow` rule with `escalate` is honoured from the user and managed layers only",
            ));
        }
    }
    Ok(Rule {
        id,
        decision: spec.decision,
        why: spec.why,
        command,
        unless: spec.unless,
        exact: spec.exact,
        read_only: false,
        tools,
        paths: spec.paths,
        examples: spec.examples,
        not_examples: spec.not_examples,
        workspace: spec.workspace,
        escalate: spec.escalate,
        origin: RuleOrigin {
            layer: kind.as_str().to_owned(),
            file: Some(path.to_owned()),
            line,
        },
    })
}

fn check_examples(rule: &Rule, path: &Path, line: usize) -> Result<(), ConfigError> {
    for example in &rule.examples {
        if !rule.matches_example(example) {
            return Err(error(
                path,
                line,
                format!("rule `{}`: example `{example}` does not match it", rule.id),
            ));
        }
    }
    for example in &rule.not_examples {
        if rule.matches_example(example) {
            return Err(error(
                path,
                line,
                format!("rule `{}`: not_example `{example}` matches it", rule.id),
            ));
        }
    }
    Ok(())
}

/// Every layer's rules, gathered: the ones in force, and the project's `allow` rules held
/// back until trust (as JSON, for the trust declaration).
#[derive(Debug, Default)]
pub(crate) struct RuleLayers {
    rules: Vec<Rule>,
    held: Vec<Rule>,
}

impl RuleLayers {
    /// Add the rules of one layer. A project's `allow` rules apply only when `trusted`.
    pub(crate) fn add(&mut self, kind: LayerKind, rules: Vec<Rule>, trusted: bool) {
        for rule in rules {
            if kind == LayerKind::Project && rule.decision == Decision::Allow {
                if trusted {
                    self.rules.push(rule.clone());
                }
                self.held.push(rule);
            } else {
                self.rules.push(rule);
            }
        }
    }

    /// The project's `allow` rules, as a trust declaration (`setting:rules.allow`).
    pub(crate) fn held_declaration(&self) -> Option<serde_json::Value> {
        (!self.held.is_empty()).then(|| {
            serde_json::Value::Array(
                self.held
                    .iter()
                    .map(|r| {
                        serde_json::json!({
                            "id": r.id,
                            "command": r.command,
                            "unless": r.unless,
                            "exact": r.exact,
                            "tool": r.tools,
                            "paths": r.paths,
                        })
                    })
                    .collect(),
            )
        })
    }

    /// The rule set in force: managed rules first, then user and project, then (unless
    /// turned off) the built-in ones. Ids must be unique.
    pub(crate) fn finish(
        self,
        builtin: bool,
        managed_rules_only: bool,
        scope: Scope,
        warnings: &mut Vec<String>,
    ) -> Result<RuleSet, ConfigError> {
        let mut rules: Vec<Rule> = Vec::new();
        let order = ["managed", "user", "project"];
        let mut all = self.rules;
        all.sort_by_key(|r| order.iter().position(|l| *l == r.origin.layer));
        // A rule limited to another workspace is not in force here.
        all.retain(|r| {
            r.workspace
                .as_ref()
                .is_none_or(|w| Some(w.as_path()) == scope.workspace.as_deref())
        });
        for rule in all {
            if managed_rules_only
                && rule.origin.layer != "managed"
                && rule.decision == Decision::Allow
            {
                warnings.push(format!(
                    "{}: allow rule `{}` from the {} layer was not used: managed policy allows managed allow rules only",
                    rule.origin.place(),
                    rule.id,
                    rule.origin.layer
                ));
                continue;
            }
            if let Some(first) = rules.iter().find(|r| r.id == rule.id) {
                return Err(ConfigError::Parse {
                    path: rule
                        .origin
                        .file
                        .clone()
                        .unwrap_or_else(|| PathBuf::from("rules")),
                    line: rule.origin.line,
                    column: 1,
                    key: Some("rules".to_owned()),
                    message: format!(
                        "rule id `{}` is already used at {}",
                        rule.id,
                        first.origin.place()
                    ),
                });
            }
            rules.push(rule);
        }
        if builtin {
            rules.extend(builtin_rules());
        }
        Ok(RuleSet {
            rules,
            user_file: scope.user_file,
            workspace: scope.workspace,
        })
    }
}

/// Where the rules are loaded for: the workspace (the project layer's root) and the user
/// layer's file.
#[derive(Debug, Default)]
pub(crate) struct Scope {
    pub(crate) workspace: Option<PathBuf>,
    pub(crate) user_file: Option<PathBuf>,
}

/// Append `rules` to the user layer's file `path` (created if missing) as `[[rules]]`
/// entries, each limited to its workspace; the rest of the file is kept as written.
pub fn save_user_rules(path: &Path, rules: &[Rule]) -> Result<(), ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => String::new(),
        Err(source) => {
            return Err(ConfigError::Read {
                path: path.to_owned(),
                source,
            });
        }
    };
    let mut doc: toml_edit::DocumentMut =
        text.parse()
            .map_err(|err: toml_edit::TomlError| ConfigError::Invalid {
                path: path.to_owned(),
                key: "rules".to_owned(),
                message: err.to_string(),
            })?;
    let mut list = match doc.remove("rules") {
        Some(toml_edit::Item::ArrayOfTables(list)) => list,
        Some(_) => {
            return Err(ConfigError::Invalid {
                path: path.to_owned(),
                key: "rules".to_owned(),
                message: "is not a list of `[[rules]]` tables".to_owned(),
            });
        }
        None => toml_edit::ArrayOfTables::new(),
    };
    for rule in rules {
        let mut table = toml_edit::Table::new();
        table["id"] = toml_edit::value(rule.id.as_str());
        let mut command = toml_edit::Array::new();
        for alternatives in &rule.command {
            match alternatives.as_slice() {
                [one] => command.push(one.as_str()),
                many => command.push(
                    many.iter()
                        .map(String::as_str)
                        .collect::<toml_edit::Array>(),
                ),
            }
        }
        if !rule.command.is_empty() {
            table["command"] = toml_edit::value(command);
        }
        if !rule.paths.is_empty() {
            table["paths"] = toml_edit::value(
                rule.paths
                    .iter()
                    .map(String::as_str)
                    .collect::<toml_edit::Array>(),
            );
        }
        if rule.exact {
            table["exact"] = toml_edit::value(true);
        }
        table["decision"] = toml_edit::value(rule.decision.name());
        table["why"] = toml_edit::value(rule.why.as_str());
        table["examples"] = toml_edit::value(
            rule.examples
                .iter()
                .map(String::as_str)
                .collect::<toml_edit::Array>(),
        );
        if let Some(workspace) = &rule.workspace {
            table["workspace"] = toml_edit::value(workspace.to_string_lossy().as_ref());
        }
        list.push(table);
    }
    doc.insert("rules", toml_edit::Item::ArrayOfTables(list));
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).map_err(|source| ConfigError::Read {
            path: dir.to_owned(),
            source,
        })?;
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, doc.to_string())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })
}

/// Remove the `[[rules]]` entry `id` limited to `workspace` (or to none) from the user layer's
/// file `path`, keeping the rest as written: the file may hold a rule of that id for each of
/// several workspaces.
pub fn remove_user_rule(
    path: &Path,
    id: &str,
    workspace: Option<&Path>,
) -> Result<(), ConfigError> {
    let invalid = |message: String| ConfigError::Invalid {
        path: path.to_owned(),
        key: "rules".to_owned(),
        message,
    };
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut doc: toml_edit::DocumentMut = text
        .parse()
        .map_err(|err: toml_edit::TomlError| invalid(err.to_string()))?;
    let Some(toml_edit::Item::ArrayOfTables(list)) = doc.get_mut("rules") else {
        return Err(invalid(format!("no rule `{id}` in this file")));
    };
    let workspace = workspace.map(|w| w.to_string_lossy());
    let Some(at) = list.iter().position(|t| {
        t.get("id").and_then(toml_edit::Item::as_str) == Some(id)
            && t.get("workspace").and_then(toml_edit::Item::as_str) == workspace.as_deref()
    }) else {
        return Err(invalid(format!("no rule `{id}` in this file")));
    };
    list.remove(at);
    if list.is_empty() {
        doc.remove("rules");
    }
    let tmp = path.with_extension("toml.tmp");
    std::fs::write(&tmp, doc.to_string())
        .and_then(|()| std::fs::rename(&tmp, path))
        .map_err(|source| ConfigError::Read {
            path: path.to_owned(),
            source,
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Sources, load};

    const ALLOW_LS: &str = "[[rules]]\nid = \"my-ls\"\ncommand = [\"ls\"]\ndecision = \"allow\"\nexamples = [\"ls -la\"]\n";

    fn sources(root: &Path, layers: &[(LayerKind, &str)]) -> Sources {
        let mut out = Vec::new();
        for (kind, text) in layers {
            let path = match kind {
                LayerKind::User => root.join("user.toml"),
                LayerKind::Project => root.join("ws/.warden/config.toml"),
                LayerKind::Managed => root.join("managed.toml"),
            };
            if let Some(dir) = path.parent() {
                std::fs::create_dir_all(dir).unwrap();
            }
            std::fs::write(&path, text).unwrap();
            out.push((*kind, path));
        }
        if !out.iter().any(|(k, _)| *k == LayerKind::Project) {
            out.push((LayerKind::Project, root.join("ws/.warden/config.toml")));
        }
        Sources {
            layers: out,
            managed_is_system: false,
            notes: Vec::new(),
        }
    }

    fn ids(set: &RuleSet) -> Vec<&str> {
        set.rules
            .iter()
            .filter(|r| r.origin.layer != "builtin")
            .map(|r| r.id.as_str())
            .collect()
    }

    #[test]
    fn managed_rules_only_leaves_out_other_layers_allow_rules_with_a_warning() {
        let dir = tempfile::tempdir().unwrap();
        let deny = "[[rules]]\nid = \"no-rm\"\ncommand = [\"rm\"]\ndecision = \"deny\"\nexamples = [\"rm x\"]\n";
        let loaded = load(&sources(
            dir.path(),
            &[
                (LayerKind::User, &format!("{ALLOW_LS}\n{deny}")),
                (LayerKind::Managed, "[policy]\nmanaged_rules_only = true\n"),
            ],
        ))
        .unwrap();
        assert_eq!(ids(&loaded.config.rules), ["no-rm"]);
        assert!(
            loaded
                .warnings
                .iter()
                .any(|w| w.contains("allow rule `my-ls`") && w.contains("managed allow rules only")),
            "{:?}",
            loaded.warnings
        );
    }

    #[test]
    fn an_escalation_rule_needs_a_command_and_a_project_cannot_allow_one() {
        let rule = "[[rules]]\nid = \"net\"\ncommand = [\"cargo\"]\nescalate = \"network\"\ndecision = \"allow\"\nexamples = [\"cargo add x\"]\n";
        let path = Path::new("/x/config.toml");
        let user = read_layer(LayerKind::User, path, rule).unwrap();
        assert_eq!(user[0].escalate, Some(EscalationKind::Network));
        let err = read_layer(LayerKind::Project, path, rule)
            .unwrap_err()
            .to_string();
        assert!(err.contains("user and managed layers only"), "{err}");
        let deny = rule.replace("\"allow\"", "\"deny\"");
        assert!(read_layer(LayerKind::Project, path, &deny).is_ok());
        let on_tool = "[[rules]]\nid = \"t\"\ntool = \"x\"\nescalate = \"git\"\ndecision = \"allow\"\nexamples = [\"x\"]\n";
        let err = read_layer(LayerKind::User, path, on_tool)
            .unwrap_err()
            .to_string();
        assert!(err.contains("`escalate` is for a `command` rule"), "{err}");
    }

    #[test]
    fn a_managed_lock_keeps_the_built_in_rules_on() {
        let dir = tempfile::tempdir().unwrap();
        let builtins = |layers: &[(LayerKind, &str)]| {
            let loaded = load(&sources(dir.path(), layers)).unwrap();
            loaded
                .config
                .rules
                .rules
                .iter()
                .filter(|r| r.origin.layer == "builtin")
                .count()
        };
        let off = (LayerKind::User, "[tools]\nbuiltin_rules = false\n");
        let lock = (
            LayerKind::Managed,
            "[policy]\nlocked = [\"tools.builtin_rules\"]\n",
        );
        assert_eq!(builtins(&[off]), 0);
        assert_eq!(builtins(&[off, lock]), builtin_rules().len());
    }

    #[test]
    fn a_saved_rule_applies_in_its_workspace_only_and_ids_are_unique() {
        let dir = tempfile::tempdir().unwrap();
        let user = dir.path().join("saved.toml");
        std::fs::write(&user, "[model]\nprovider = \"echo\"\n").unwrap();
        let mut rule = crate::domain::rules::builtin_rules().remove(0);
        rule.id = "always:ls".into();
        rule.command = vec![vec!["ls".into()]];
        rule.examples = vec!["ls".into()];
        rule.workspace = Some(dir.path().join("ws"));
        save_user_rules(&user, &[rule.clone()]).unwrap();
        let text = std::fs::read_to_string(&user).unwrap();
        assert!(text.starts_with("[model]\nprovider = \"echo\"\n"), "{text}");
        let here = load(&sources(dir.path(), &[(LayerKind::User, &text)])).unwrap();
        assert_eq!(ids(&here.config.rules), ["always:ls"]);
        rule.workspace = Some(dir.path().join("elsewhere"));
        let other = dir.path().join("other.toml");
        save_user_rules(&other, &[rule]).unwrap();
        let text = std::fs::read_to_string(&other).unwrap();
        let there = load(&sources(dir.path(), &[(LayerKind::User, &text)])).unwrap();
        assert!(ids(&there.config.rules).is_empty());
        // Another workspace's rule of the same id is not this one.
        remove_user_rule(&user, "always:ls", Some(&dir.path().join("elsewhere"))).unwrap_err();
        remove_user_rule(&user, "always:ls", Some(&dir.path().join("ws"))).unwrap();
        let text = std::fs::read_to_string(&user).unwrap();
        assert_eq!(text, "[model]\nprovider = \"echo\"\n");
        let twice = format!("{ALLOW_LS}\n{ALLOW_LS}");
        let err = load(&sources(dir.path(), &[(LayerKind::User, &twice)])).unwrap_err();
        assert!(
            err.to_string()
                .contains("rule id `my-ls` is already used at"),
            "{err}"
        );
    }
}
