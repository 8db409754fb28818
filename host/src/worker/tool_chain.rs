//! `pre-tool-call` through the interceptor chain's one runner, for one tool call: the first
//! `deny` wins and stops the chain; a `rewrite` replaces the arguments every later interceptor
//! and the tool see; a failing interceptor is skipped under `failure = "open"` and denies the
//! call under `failure = "closed"`. Approval and the run itself are the turn's business
//! (`turn/tool_calls.rs`), which carries what this decides in a [`ToolCallOutcome`].

use std::cell::RefCell;

use crate::domain::{CallPoint, DecidedBy, ToolCall, ToolDecision};
use crate::store::AuditEvent;
use crate::worker::chain::{CallFailure, ChainEnd, ChainEntry, Failure, Outcome, run_chain};
use crate::worker::outcome::ToolCallOutcome;

/// How the chain judged one call.
pub struct PreToolRun {
    /// The call's outcome so far: its rewrites and, when the chain denied it, who and why.
    pub(crate) outcome: ToolCallOutcome,
    /// Audit records of every decision other than a plain allow.
    pub(crate) decisions: Vec<AuditEvent>,
    /// Interceptors that failed, for the caller to report.
    pub(crate) failures: Vec<Failure>,
}

impl PreToolRun {
    /// The call's outcome so far: the arguments after rewrites, or who denied it and why.
    pub fn outcome(&self) -> &ToolCallOutcome {
        &self.outcome
    }

    /// The call's outcome, taken out of the run.
    pub fn into_outcome(self) -> ToolCallOutcome {
        self.outcome
    }
}

/// Ask every interceptor of `chain` about `call`: step 1 of every tool call a turn makes.
pub fn run_pre_tool(chain: &mut [ChainEntry], call: &ToolCall) -> PreToolRun {
    let mut outcome = ToolCallOutcome::new(call.clone());
    // The call each interceptor sees: the model's until one rewrites it (cloned only then).
    let rewritten: RefCell<Option<ToolCall>> = RefCell::new(None);
    let mut run = run_chain(
        chain,
        CallPoint::PreToolCall,
        Some(&call.name),
        "allow",
        |_, plugin| {
            let rewritten = rewritten.borrow();
            plugin
                .pre_tool_call(rewritten.as_ref().unwrap_or(call))
                .map_err(CallFailure::Failed)
        },
        |name, decision| match decision {
            ToolDecision::Allow => (Outcome::quiet("allow"), None),
            ToolDecision::Rewrite(arguments) => {
                let audited = Outcome::audited("rewrite", Some(format!("tool `{}`", call.name)));
                outcome.rewrite(name, arguments.clone());
                let mut rewritten = rewritten.borrow_mut();
                match rewritten.as_mut() {
                    Some(current) => current.arguments = arguments,
                    None => {
                        *rewritten = Some(ToolCall {
                            id: call.id.clone(),
                            name: call.name.clone(),
                            arguments,
                        });
                    }
                }
                (audited, None)
            }
            ToolDecision::Deny(reason) => (
                Outcome::audited("deny", Some(reason.clone())),
                Some((DecidedBy::Plugin(name.to_owned()), reason)),
            ),
            ToolDecision::Ask(reason) => {
                outcome.ask(name, reason.clone());
                (Outcome::audited("ask", Some(reason)), None)
            }
        },
        |decision| match decision {
            ToolDecision::Allow => ("allow", None),
            ToolDecision::Ask(reason) => ("ask", Some(reason.clone())),
            ToolDecision::Rewrite(_) => ("rewrite", None),
            ToolDecision::Deny(reason) => ("deny", Some(reason.clone())),
        },
    );
    outcome.seen_by(std::mem::take(&mut run.seen));
    let shadowed = run.shadow_records(CallPoint::PreToolCall, Some((&call.name, &call.id)));
    let mut decisions = run.decisions;
    decisions.extend(shadowed);
    match run.end {
        ChainEnd::Done => {}
        ChainEnd::Stopped((by, reason)) => outcome.deny(by, reason),
        ChainEnd::FailedClosed(failure) => outcome.deny(
            DecidedBy::Policy,
            format!(
                "plugin {} failed and its failure policy is closed: {failure}",
                failure.plugin
            ),
        ),
    }
    PreToolRun {
        outcome,
        decisions,
        failures: run.failures,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::FailurePolicy;
    use crate::domain::{
        Interceptor, Item, PluginFailure, PromptDecision, RequestInfo, SubmittedPrompt,
        TurnEndDecision, TurnInfo,
    };

    /// Rewrites `path` to `b`, then denies any call whose `path` is `b`.
    struct Judge(&'static str);

    impl Interceptor for Judge {
        fn name(&self) -> &str {
            self.0
        }
        fn on_prompt_submit(
            &mut self,
            _: &SubmittedPrompt,
        ) -> Result<PromptDecision, PluginFailure> {
            Ok(PromptDecision::Continue)
        }
        fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
            Ok(Vec::new())
        }
        fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
            Ok(TurnEndDecision::Finish)
        }
        fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
            Ok(match call.arguments["path"].as_str() {
                Some("a") => ToolDecision::Rewrite(serde_json::json!({"path": "b"})),
                Some("b") if self.0 == "deny-b" => ToolDecision::Deny("no b".into()),
                _ => ToolDecision::Allow,
            })
        }
    }

    fn chain(names: &[&'static str]) -> Vec<ChainEntry> {
        names
            .iter()
            .map(|n| ChainEntry {
                plugin: Box::new(Judge(n)),
                failure: FailurePolicy::Closed,
                shadow: None,
                matcher: None,
            })
            .collect()
    }

    fn call(path: &str) -> ToolCall {
        ToolCall {
            id: "c1".into(),
            name: "grep".into(),
            arguments: serde_json::json!({ "path": path }),
        }
    }

    /// Who denied a call (`plugin:<name>`, or `policy`), and why.
    #[derive(Debug, Clone, PartialEq, Eq)]
    struct ToolDenial {
        by: String,
        reason: String,
    }

    /// The call with the arguments the tool would receive after the chain's rewrites, or who
    /// denied it and why.
    fn pre_tool_verdict(chain: &mut [ChainEntry], call: &ToolCall) -> Result<ToolCall, ToolDenial> {
        let outcome = run_pre_tool(chain, call).outcome;
        match outcome.denied() {
            Some((by, reason)) => Err(ToolDenial {
                by: by.to_string(),
                reason: reason.to_owned(),
            }),
            None => Ok(outcome.call_to_run()),
        }
    }

    #[test]
    fn an_entry_is_asked_only_about_the_tools_its_matcher_matches() -> Result<(), String> {
        let mut entries = chain(&["deny-b"]);
        entries[0].matcher = Some(crate::domain::tool_matcher::ToolMatcher::parse("Bash")?);
        // `grep` is not `Bash` (`shell`): not asked, not among those that saw the call.
        let run = run_pre_tool(&mut entries, &call("b"));
        assert!(run.outcome().denied().is_none());
        assert!(run.decisions.is_empty());
        let shell = ToolCall {
            name: "shell".into(),
            ..call("b")
        };
        let run = run_pre_tool(&mut entries, &shell);
        assert_eq!(
            run.outcome().denied().map(|(by, _)| by.to_string()),
            Some("plugin:deny-b".to_owned())
        );
        // `Grep` (Claude Code's name) and `grep` (warden's) both match the grep tool.
        for source in ["Grep", "grep", "Read|Grep", "*"] {
            entries[0].matcher = Some(crate::domain::tool_matcher::ToolMatcher::parse(source)?);
            let run = run_pre_tool(&mut entries, &call("b"));
            assert!(run.outcome().denied().is_some(), "{source}");
        }
        Ok(())
    }

    #[test]
    fn the_verdict_carries_rewrites_and_names_who_denied() {
        let allowed = pre_tool_verdict(&mut chain(&["rewriter"]), &call("a"));
        assert_eq!(allowed, Ok(call("b")));
        let denied = pre_tool_verdict(&mut chain(&["rewriter", "deny-b"]), &call("a"));
        assert_eq!(
            denied,
            Err(ToolDenial {
                by: "plugin:deny-b".into(),
                reason: "no b".into()
            })
        );
        assert_eq!(
            pre_tool_verdict(&mut chain(&["deny-b"]), &call("c")),
            Ok(call("c"))
        );
    }

    fn shadow_of(name: &'static str) -> ChainEntry {
        ChainEntry {
            plugin: Box::new(Judge(name)),
            failure: FailurePolicy::Closed,
            shadow: Some("ab".repeat(32)),
            matcher: None,
        }
    }

    fn shadow_decisions(run: &PreToolRun) -> Vec<(String, String, bool)> {
        run.decisions
            .iter()
            .filter_map(|d| match d {
                AuditEvent::ShadowDecision {
                    decision,
                    chain,
                    differs,
                    ..
                } => Some((decision.clone(), chain.clone(), *differs)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn a_shadow_is_asked_and_recorded_but_neither_denies_nor_rewrites() {
        // Alone: its rewrite and its deny are recorded, not applied.
        let mut entries = vec![shadow_of("rewriter")];
        let run = run_pre_tool(&mut entries, &call("a"));
        assert_eq!(run.outcome().call_to_run(), call("a"));
        assert_eq!(
            shadow_decisions(&run),
            [("rewrite".into(), "allow".into(), true)]
        );
        let mut entries = vec![shadow_of("deny-b")];
        let run = run_pre_tool(&mut entries, &call("b"));
        assert!(run.outcome().denied().is_none());
        assert_eq!(
            shadow_decisions(&run),
            [("deny".into(), "allow".into(), true)]
        );
        // Beside an enforcing rewriter it sees the rewritten call, and agrees.
        let mut entries = chain(&["rewriter"]);
        entries.push(shadow_of("deny-b"));
        let run = run_pre_tool(&mut entries, &call("a"));
        assert_eq!(run.outcome().call_to_run(), call("b"));
        assert_eq!(
            shadow_decisions(&run),
            [("deny".into(), "rewrite".into(), true)]
        );
        // After the chain denied, a later shadow is still asked; agreeing is not a difference.
        let mut entries = chain(&["deny-b"]);
        entries.push(shadow_of("deny-b"));
        let run = run_pre_tool(&mut entries, &call("b"));
        assert!(run.outcome().denied().is_some());
        assert_eq!(
            shadow_decisions(&run),
            [("deny".into(), "deny".into(), false)]
        );
    }

    /// Fails every call.
    struct Broken;

    impl Interceptor for Broken {
        fn name(&self) -> &str {
            "broken"
        }
        fn on_prompt_submit(
            &mut self,
            _: &SubmittedPrompt,
        ) -> Result<PromptDecision, PluginFailure> {
            Err(PluginFailure::new("broken", "on-prompt-submit", "trapped"))
        }
        fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
            Err(PluginFailure::new("broken", "pre-llm-request", "trapped"))
        }
        fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
            Err(PluginFailure::new("broken", "on-turn-end", "trapped"))
        }
        fn pre_tool_call(&mut self, _: &ToolCall) -> Result<ToolDecision, PluginFailure> {
            Err(PluginFailure::new("broken", "pre-tool-call", "trapped"))
        }
    }

    #[test]
    fn a_failing_shadow_under_a_closed_policy_fails_nothing() {
        let mut entries = vec![ChainEntry {
            plugin: Box::new(Broken),
            failure: FailurePolicy::Closed,
            shadow: Some("cd".repeat(32)),
            matcher: None,
        }];
        let run = run_pre_tool(&mut entries, &call("c"));
        assert!(run.outcome().denied().is_none());
        assert!(run.failures.is_empty());
        assert_eq!(
            shadow_decisions(&run),
            [("failed-closed".into(), "allow".into(), true)]
        );
    }
}
