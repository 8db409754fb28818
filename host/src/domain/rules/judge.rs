//! The rules in force and their verdict on one call.

use serde::Serialize;

use super::globals::{Globals, strip};
use super::rule::{Decision, Rule};
use crate::domain::EscalationKind;
use crate::domain::shell_split::{SimpleCommand, split};

/// The rules in force, every layer's (managed, user, project, built-in) in one list.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct RuleSet {
    /// The rules.
    pub rules: Vec<Rule>,
    /// The user layer's file, where an "always" answer saves its rule.
    #[serde(skip)]
    pub user_file: Option<std::path::PathBuf>,
    /// The workspace the rules were loaded for (an "always" rule is limited to it).
    #[serde(skip)]
    pub workspace: Option<std::path::PathBuf>,
}

/// One simple command of a `shell` call and what the rules say of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// The command.
    pub command: SimpleCommand,
    /// The strictest matching rule's decision (none: no rule matches).
    pub decision: Option<Decision>,
    /// That rule's index in [`RuleSet::rules`].
    pub rule: Option<usize>,
    /// Why a rule decided it in a way its words alone do not show (a global option that is
    /// not understood next to a program a deny rule names).
    pub note: Option<String>,
}

/// What the rules say of one call.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Judgement {
    /// The decision (none: no rule decides, the permission mode does).
    pub decision: Option<Decision>,
    /// The rules that decided (indices in [`RuleSet::rules`]): the denying or asking rule,
    /// or every allowing one.
    pub rules: Vec<usize>,
    /// For `shell`: each simple command and its verdict.
    pub parts: Vec<Part>,
    /// For `shell`: what the parse could not be certain of.
    pub uncertain: Vec<String>,
    /// For `shell`: the files its output redirections write (no rule allows a write).
    pub writes: Vec<String>,
}

impl RuleSet {
    /// The rule at `index`.
    pub fn get(&self, index: usize) -> Option<&Rule> {
        self.rules.get(index)
    }

    /// The ids of the rules that decided `judgement`, comma-separated.
    pub fn ids(&self, judgement: &Judgement) -> Option<String> {
        let ids: Vec<&str> = judgement
            .rules
            .iter()
            .filter_map(|i| self.rules.get(*i))
            .map(|r| r.id.as_str())
            .collect();
        (!ids.is_empty()).then(|| ids.join(","))
    }

    /// Why the rules decided as they did: the deciding rule's `why` (and id), for the person
    /// and the model.
    pub fn reason(&self, judgement: &Judgement) -> String {
        let mut out = Vec::new();
        for rule in judgement.rules.iter().filter_map(|i| self.rules.get(*i)) {
            if rule.why.is_empty() {
                out.push(format!("rule `{}`", rule.id));
            } else {
                out.push(format!("rule `{}`: {}", rule.id, rule.why));
            }
        }
        for part in &judgement.parts {
            if let Some(note) = &part.note
                && part.decision == judgement.decision
            {
                out.push(note.clone());
            }
        }
        let judged = || judgement.parts.iter().filter(|p| !p.command.wrapper);
        if judgement.decision.is_none()
            && !judgement.writes.is_empty()
            && judged().next().is_some()
            && judged().all(|p| p.decision == Some(Decision::Allow))
        {
            // The rules allow every command: the redirection is what leaves it to the mode.
            let files: Vec<String> = judgement.writes.iter().map(|f| format!("`{f}`")).collect();
            out.push(format!(
                "the command writes {} through a redirection, which no rule allows: the mode decides",
                files.join(", ")
            ));
        }
        if out.is_empty() && !judgement.uncertain.is_empty() {
            let denies = self
                .rules
                .iter()
                .any(|r| r.is_command() && r.decision == Decision::Deny);
            out.push(format!(
                "the command cannot be judged for certain ({}){}",
                judgement.uncertain.join("; "),
                if denies {
                    " and deny rules are in force"
                } else {
                    ""
                }
            ));
        }
        out.join("; ")
    }

    /// The strictest rule matching one simple command, and a note when the verdict needs one.
    /// A `deny` or `ask` rule also holds for the program named by a path (`/usr/bin/git
    /// push`) and through its global options (`git -C . push`); one that the command may
    /// match once expanded (`git $x` and a rule on `git push`) makes it ask. A global option
    /// not understood next to a program a deny rule names is refused.
    fn strictest(
        &self,
        command: &SimpleCommand,
        escalate: Option<EscalationKind>,
    ) -> (Option<(Decision, usize)>, Option<String>) {
        let named = command.by_file_name();
        let globals = strip(command);
        let stripped = match &globals {
            Globals::Stripped(c) => Some(c),
            _ => None,
        };
        let program = named.as_ref().unwrap_or(command).program();
        let mut note = None;
        let found = self
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.escalate == escalate)
            .filter_map(|(i, r)| {
                let strict = r.decision > Decision::Allow;
                let by_name = || {
                    strict
                        && [named.as_ref(), stripped]
                            .into_iter()
                            .flatten()
                            .any(|c| r.matches_command(c))
                };
                let names_program = || {
                    r.command
                        .first()
                        .is_some_and(|programs| programs.iter().any(|p| p == program))
                };
                if r.matches_command(command) || by_name() {
                    Some((r.decision, i))
                } else if strict
                    && (r.may_match_command(command)
                        || stripped.is_some_and(|c| r.may_match_command(c)))
                {
                    Some((Decision::Ask, i))
                } else if let Globals::Unknown(option) = &globals
                    && strict
                    && names_program()
                {
                    note = Some(format!(
                        "the global option `{option}` of `{program}` is not understood here, so a rule on `{program}` cannot tell what it runs"
                    ));
                    Some((r.decision, i))
                } else {
                    None
                }
            })
            .fold(None, |best, (d, i)| match best {
                Some((b, _)) if b >= d => best,
                _ => Some((d, i)),
            });
        (found, note)
    }

    /// The verdict on a `shell` call of `command`: every simple command judged on its own,
    /// the strictest decision winning. A wrapper (`env`, `xargs` …) is judged by the command
    /// it runs; a rule on the wrapper itself may still deny or ask. Anything uncertain keeps
    /// the command from `allow` (and makes it ask when deny rules are in force, since a deny
    /// rule cannot see through it).
    pub fn judge_shell(&self, command: &str) -> Judgement {
        self.judge_command(command, None)
    }

    /// The verdict on a `shell` call of `command` escalated to `kind`, by the rules on that
    /// escalation alone (`escalate = "network"` …), judged as [`RuleSet::judge_shell`] judges.
    /// No decision means the person is asked.
    pub fn judge_escalation(&self, command: &str, kind: EscalationKind) -> Judgement {
        self.judge_command(command, Some(kind))
    }

    fn judge_command(&self, command: &str, escalate: Option<EscalationKind>) -> Judgement {
        let split = split(command);
        let parts: Vec<Part> = split
            .commands
            .into_iter()
            .map(|command| {
                let (found, note) = self.strictest(&command, escalate);
                Part {
                    decision: found.map(|(d, _)| d),
                    rule: found.map(|(_, i)| i),
                    note: note.filter(|_| found.is_some()),
                    command,
                }
            })
            .collect();
        let counted = |p: &&Part| !p.command.wrapper || p.decision > Some(Decision::Allow);
        let strictest = parts
            .iter()
            .filter(counted)
            .filter_map(|p| p.decision)
            .max();
        let of = |d: Decision| -> Vec<usize> {
            let mut ids: Vec<usize> = parts
                .iter()
                .filter(counted)
                .filter(|p| p.decision == Some(d))
                .filter_map(|p| p.rule)
                .collect();
            ids.dedup();
            ids
        };
        let judged: Vec<&Part> = parts.iter().filter(|p| !p.command.wrapper).collect();
        let (decision, rules) = match strictest {
            Some(d @ (Decision::Deny | Decision::Ask)) => (Some(d), of(d)),
            _ if !split.uncertain.is_empty() => {
                let denies = self.rules.iter().any(|r| {
                    r.is_command() && r.escalate == escalate && r.decision == Decision::Deny
                });
                (denies.then_some(Decision::Ask), Vec::new())
            }
            Some(Decision::Allow)
                if !judged.is_empty()
                    && split.writes.is_empty()
                    && judged.iter().all(|p| p.decision == Some(Decision::Allow)) =>
            {
                let mut ids: Vec<usize> = judged.iter().filter_map(|p| p.rule).collect();
                ids.sort_unstable();
                ids.dedup();
                (Some(Decision::Allow), ids)
            }
            _ => (None, Vec::new()),
        };
        Judgement {
            decision,
            rules,
            parts,
            uncertain: split.uncertain,
            writes: split.writes,
        }
    }

    /// The verdict on a call of another tool (`path`: a writer's normalised target).
    pub fn judge_tool(&self, tool: &str, path: Option<&str>) -> Judgement {
        let found = self
            .rules
            .iter()
            .enumerate()
            .filter(|(_, r)| r.matches_tool(tool, path))
            .map(|(i, r)| (r.decision, i))
            .fold(None, |best: Option<(Decision, usize)>, (d, i)| match best {
                Some((b, _)) if b >= d => best,
                _ => Some((d, i)),
            });
        Judgement {
            decision: found.map(|(d, _)| d),
            rules: found.map(|(_, i)| i).into_iter().collect(),
            ..Judgement::default()
        }
    }
}
