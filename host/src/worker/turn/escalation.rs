//! A `shell` call's `escalate`: refused when policy forbids its kind (or its hosts leave the
//! managed ceiling, or a `git` escalation's command runs anything but git), decided by a rule on that escalation when one matches, else asked about
//! in every mode; recorded on the call's audit record whatever became of it.

use super::Worker;
use crate::config::{HostPattern, ShellSandbox, escalation_kinds};
use crate::domain::builtin::SHELL;
use crate::domain::rules::Decision;
use crate::domain::{AskWhy, DecidedBy, Escalation, EscalationKind};
use crate::worker::outcome::ToolCallOutcome;

impl Worker {
    /// A `shell` call running only git subcommands that write the repository (`git add … &&
    /// git commit …`), without `escalate`, gets the `git` escalation it needs when policy
    /// allows that kind and the sandbox is on: the person is asked once, about the
    /// escalation, rather than about the command and then again, after it met the read-only
    /// `.git`, about the escalation. Recorded as the host's rewrite of the arguments.
    pub(super) fn escalate_repository_writes(&self, outcome: &mut ToolCallOutcome) {
        let call = outcome.call_to_run();
        if call.name != SHELL
            || outcome.denied().is_some()
            || self.config.tools.shell.sandbox == ShellSandbox::None
            || call.arguments.get("escalate").is_some_and(|e| !e.is_null())
        {
            return;
        }
        let Some(command) = call.arguments.get("command").and_then(|c| c.as_str()) else {
            return;
        };
        let Some(sub) = crate::domain::writes_repository(command) else {
            return;
        };
        let escalation = Escalation {
            kind: EscalationKind::Git,
            hosts: Vec::new(),
            reason: format!("`git {sub}` writes the repository, read-only in the sandbox"),
        };
        if self.escalation_refused(&escalation).is_some() {
            return;
        }
        let mut arguments = call.arguments.clone();
        if let (Some(map), Ok(value)) =
            (arguments.as_object_mut(), serde_json::to_value(&escalation))
        {
            map.insert("escalate".to_owned(), value);
            outcome.rewrite(super::HOST, arguments);
        }
    }

    /// Judge the escalation of `outcome`'s call, if it asks for one: deny it, or make `ask`
    /// the escalation's question (unless a rule allows it).
    pub(super) fn judge_escalation(&self, outcome: &mut ToolCallOutcome, ask: &mut Option<AskWhy>) {
        let call = outcome.call_to_run();
        if call.name != SHELL {
            return;
        }
        // A malformed `escalate` is the tool's to report (it refuses to run the call).
        let Ok(Some(escalation)) = Escalation::from_arguments(&call.arguments) else {
            return;
        };
        outcome.escalated(escalation.clone());
        if outcome.denied().is_some() {
            return;
        }
        if let Some(reason) = self.escalation_refused(&escalation) {
            outcome.deny(DecidedBy::Policy, reason);
            return;
        }
        let command = call
            .arguments
            .get("command")
            .and_then(|c| c.as_str())
            .unwrap_or_default();
        let judgement = self.config.rules.judge_escalation(command, escalation.kind);
        let ids = self.config.rules.ids(&judgement).unwrap_or_default();
        // A rule's deny says why in its own words; nothing else lets more than git run.
        if escalation.kind == EscalationKind::Git
            && !matches!(judgement.decision, Some(Decision::Deny))
            && let Err(why) = crate::domain::git_only(command)
        {
            outcome.deny(DecidedBy::Policy, why);
            return;
        }
        match judgement.decision {
            Some(Decision::Deny) => {
                let reason = self.config.rules.reason(&judgement);
                outcome.ruled(ids.clone(), false);
                outcome.deny(DecidedBy::Rule(ids), reason);
            }
            Some(Decision::Allow) => {
                outcome.ruled(ids, ask.is_none());
            }
            Some(Decision::Ask) | None => {
                if !ids.is_empty() {
                    outcome.ruled(ids, false);
                }
                *ask = Some(AskWhy::Escalation(escalation));
            }
        }
    }

    /// Why policy refuses `escalation`, if it does.
    fn escalation_refused(&self, escalation: &Escalation) -> Option<String> {
        let policy = &self.config.policy;
        let kind = escalation.kind;
        if !escalation_kinds(policy.allow_escalation.as_ref()).contains(&kind) {
            return Some(format!(
                "escalation `{kind}` is not allowed by policy (`policy.allow_escalation`); the command runs in the default sandbox only"
            ));
        }
        if kind == EscalationKind::Unsandboxed && !policy.allow_unsandboxed_shell {
            return Some(
                "escalation `unsandboxed` is forbidden by managed policy (`policy.allow_unsandboxed_shell = false`)"
                    .to_owned(),
            );
        }
        if kind != EscalationKind::Network {
            return None;
        }
        let mut patterns = Vec::new();
        for host in &escalation.hosts {
            match HostPattern::parse(host) {
                Ok(p) => patterns.push(p),
                Err(why) => return Some(format!("escalation `network`: {why}")),
            }
        }
        let ceiling = policy.shell_allowed_hosts.as_ref()?;
        if patterns.is_empty() {
            return Some(format!(
                "escalation `network` to every host is above the ceiling `policy.shell_allowed_hosts = {ceiling:?}` of managed policy; name the hosts instead"
            ));
        }
        let ceiling = crate::config::parse_host_patterns(ceiling).unwrap_or_default();
        escalation
            .hosts
            .iter()
            .zip(&patterns)
            .find(|(_, p)| !ceiling.iter().any(|c| p.within(c)))
            .map(|(host, _)| {
                format!(
                    "escalation `network` to {host:?} is outside the ceiling `policy.shell_allowed_hosts` of managed policy; refused"
                )
            })
    }
}
