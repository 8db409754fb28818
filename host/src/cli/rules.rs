//! `warden rules check [-C DIR] [--json] -- COMMAND`: each simple command of `COMMAND`, the
//! rule that decided it (id, file, line) and the verdict; the exit code is the verdict's
//! (0 allow, 1 ask, 2 deny). `warden rules list` prints the rules in force.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use serde_json::json;

use super::common::home;
use super::exit::CliError;
use super::trust::{WhenWaiting, load_config_trusted};
use crate::domain::rules::{Decision, Judgement, RuleSet};
use crate::front::workspace::Workspace;

/// `warden rules …`.
#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// How a `shell` command would be judged: each simple command, the rule that decided it,
    /// the verdict. Exit 0 allow, 1 ask, 2 deny.
    Check {
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
        /// The command, as the model would send it (after `--`).
        #[arg(required = true, num_args = 1.., value_name = "COMMAND", last = true)]
        command: Vec<String>,
    },
    /// The rules in force, strictest layer first, with where each comes from.
    List {
        /// Workspace root (default: as for `run`).
        #[arg(short = 'C', value_name = "DIR")]
        dir: Option<PathBuf>,
        /// Print one JSON array.
        #[arg(long)]
        json: bool,
    },
}

impl RulesCommand {
    pub(crate) fn run(self) -> Result<u8, CliError> {
        match self {
            Self::Check { dir, json, command } => check(dir.as_deref(), json, &command.join(" ")),
            Self::List { dir, json } => list(dir.as_deref(), json),
        }
    }
}

fn rules_in_force(dir: Option<&Path>) -> Result<RuleSet, CliError> {
    let workspace = Workspace::find(dir)?;
    let loaded = load_config_trusted(&workspace.root, &home()?, WhenWaiting::LeaveOut)?;
    Ok(loaded.config.rules)
}

fn verdict_name(decision: Option<Decision>) -> &'static str {
    match decision {
        Some(decision) => decision.name(),
        None => "ask (no rule: the mode decides)",
    }
}

fn check(dir: Option<&Path>, json: bool, command: &str) -> Result<u8, CliError> {
    let rules = rules_in_force(dir)?;
    let judgement = rules.judge_shell(command);
    let code = match judgement.decision {
        Some(Decision::Allow) => 0,
        Some(Decision::Deny) => 2,
        Some(Decision::Ask) | None => 1,
    };
    if json {
        println!("{}", check_json(&rules, &judgement));
        return Ok(code);
    }
    for part in &judgement.parts {
        let rule = part.rule.and_then(|i| rules.get(i));
        let by = rule.map_or_else(
            || "no rule".to_owned(),
            |r| format!("rule {} ({})", r.id, r.origin.place()),
        );
        let verdict = match (part.command.wrapper, part.decision) {
            (true, None | Some(Decision::Allow)) => "wrapper: judged by the command it runs",
            (_, decision) => verdict_name(decision),
        };
        let note = part
            .note
            .as_ref()
            .map(|n| format!("; {}", crate::domain::escape::terminal(n)))
            .unwrap_or_default();
        println!(
            "{}\n    {verdict}; {by}{note}",
            crate::domain::escape::terminal(&part.command.display())
        );
    }
    for why in &judgement.uncertain {
        println!("uncertain: {}", crate::domain::escape::terminal(why));
    }
    let reason = rules.reason(&judgement);
    println!(
        "verdict: {}{}",
        verdict_name(judgement.decision),
        if reason.is_empty() {
            String::new()
        } else {
            format!(" ({})", crate::domain::escape::terminal(&reason))
        }
    );
    Ok(code)
}

fn check_json(rules: &RuleSet, judgement: &Judgement) -> serde_json::Value {
    let rule_json = |i: Option<usize>| {
        i.and_then(|i| rules.get(i)).map(|r| {
            json!({
                "id": r.id,
                "layer": r.origin.layer,
                "file": r.origin.file,
                "line": r.origin.line,
            })
        })
    };
    json!({
        "verdict": judgement.decision.map_or("none", Decision::name),
        "rules": judgement.rules.iter().filter_map(|i| rules.get(*i)).map(|r| r.id.clone()).collect::<Vec<_>>(),
        "commands": judgement.parts.iter().map(|p| json!({
            "words": p.command.words.iter().map(|w| w.text.clone()).collect::<Vec<_>>(),
            "wrapper": p.command.wrapper,
            "decision": p.decision.map(Decision::name),
            "rule": rule_json(p.rule),
            "note": p.note,
        })).collect::<Vec<_>>(),
        "uncertain": judgement.uncertain,
    })
}

fn list(dir: Option<&Path>, json: bool) -> Result<u8, CliError> {
    let rules = rules_in_force(dir)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&rules.rules).unwrap_or_default()
        );
        return Ok(0);
    }
    for rule in &rules.rules {
        println!("{}", rule_line(rule));
    }
    Ok(0)
}

/// One rule on one line: `allow builtin:read-files   ls, cat, …  (builtin, built-in)`, as
/// `rules list` and `config show` print it.
pub(crate) fn rule_line(rule: &crate::domain::rules::Rule) -> String {
    format!(
        "{:<5} {:<24} {}  ({}, {})",
        rule.decision.name(),
        crate::domain::escape::terminal(&rule.id),
        crate::domain::escape::terminal(&rule.covers_text()),
        rule.origin.layer,
        rule.origin.place()
    )
}
