//! `pre-tool-call` through the interceptor chain, in config order, for one tool call: the first
//! `deny` wins and stops the chain; a `rewrite` replaces the arguments every later interceptor
//! and the tool see; a failing interceptor is skipped under `failure = "open"` and denies the
//! call under `failure = "closed"`. Approval and the run itself are the turn's business
//! (`turn/tool_calls.rs`).

use std::time::Instant;

use crate::config::FailurePolicy;
use crate::domain::{ToolCall, ToolDecision};
use crate::store::AuditEvent;
use crate::worker::chain::{ChainEntry, Failure};

/// The call point's name, in audit records and failures.
pub(crate) const PRE_TOOL_CALL: &str = "pre-tool-call";

/// Who decides when no interceptor denies and no approval is asked.
pub(crate) const BY_DEFAULT: &str = "default";
/// Who decides when a closed interceptor failed.
pub(crate) const BY_POLICY: &str = "policy";

/// How the chain judged one call.
pub(crate) struct PreToolRun {
    /// The call with the arguments the tool would see (after rewrites).
    pub(crate) call: ToolCall,
    /// `Some((by, reason))` when the call was denied.
    pub(crate) denied: Option<(String, String)>,
    /// Every decision worth telling the hooks, in order: rewrites, then the deny if any
    /// (`by` is `plugin:<name>`, or `policy` for a closed failure).
    pub(crate) decided: Vec<(String, ToolDecision)>,
    /// `plugin:<name>` of each interceptor that rewrote the arguments, in order.
    pub(crate) rewritten_by: Vec<String>,
    /// Audit records of every decision other than a plain allow.
    pub(crate) decisions: Vec<AuditEvent>,
    /// Interceptors that failed, for the caller to report.
    pub(crate) failures: Vec<Failure>,
}

fn audit(plugin: &str, decision: &str, reason: Option<String>) -> AuditEvent {
    AuditEvent::PluginDecision {
        plugin: plugin.to_owned(),
        hook: PRE_TOOL_CALL.to_owned(),
        decision: decision.to_owned(),
        reason,
    }
}

/// Ask every interceptor of `chain` about `call`.
pub(crate) fn run_pre_tool(chain: &mut [ChainEntry], call: &ToolCall) -> PreToolRun {
    let mut run = PreToolRun {
        call: call.clone(),
        denied: None,
        decided: Vec::new(),
        rewritten_by: Vec::new(),
        decisions: Vec::new(),
        failures: Vec::new(),
    };
    for entry in chain.iter_mut() {
        let name = entry.plugin.name().to_owned();
        let span = tracing::debug_span!(
            "plugin call",
            plugin = %name,
            point = PRE_TOOL_CALL,
            outcome = tracing::field::Empty,
            us = tracing::field::Empty
        );
        let _entered = span.enter();
        let started = Instant::now();
        let result = entry
            .plugin
            .pre_tool_call(&run.call)
            .map_err(|e| e.to_string())
            .and_then(|decision| match decision {
                ToolDecision::Rewrite(arguments) if !arguments.is_object() => Err(format!(
                    "plugin {name}: {PRE_TOOL_CALL} returned invalid output: rewritten arguments must be a JSON object"
                )),
                other => Ok(other),
            });
        span.record("us", started.elapsed().as_micros() as u64);
        let by = format!("plugin:{name}");
        match (result, entry.failure) {
            (Ok(ToolDecision::Allow), _) => {
                span.record("outcome", "allow");
            }
            (Ok(ToolDecision::Rewrite(arguments)), _) => {
                span.record("outcome", "rewrite");
                run.decisions.push(audit(
                    &name,
                    "rewrite",
                    Some(format!("tool `{}`", run.call.name)),
                ));
                run.decided
                    .push((by.clone(), ToolDecision::Rewrite(arguments.clone())));
                run.rewritten_by.push(by);
                run.call.arguments = arguments;
            }
            (Ok(ToolDecision::Deny(reason)), _) => {
                span.record("outcome", "deny");
                run.decisions
                    .push(audit(&name, "deny", Some(reason.clone())));
                run.decided
                    .push((by.clone(), ToolDecision::Deny(reason.clone())));
                run.denied = Some((by, reason));
                return run;
            }
            (Err(message), FailurePolicy::Open) => {
                span.record("outcome", "failed-open");
                run.decisions
                    .push(audit(&name, "failed-open", Some(message.clone())));
                run.failures.push(Failure {
                    plugin: name,
                    message,
                    closed: false,
                });
            }
            (Err(message), FailurePolicy::Closed) => {
                span.record("outcome", "failed-closed");
                run.decisions
                    .push(audit(&name, "failed-closed", Some(message.clone())));
                let reason =
                    format!("plugin {name} failed and its failure policy is closed: {message}");
                run.decided
                    .push((BY_POLICY.to_owned(), ToolDecision::Deny(reason.clone())));
                run.denied = Some((BY_POLICY.to_owned(), reason));
                run.failures.push(Failure {
                    plugin: name,
                    message,
                    closed: true,
                });
                return run;
            }
        }
    }
    run
}

/// Who denied a tool call (`plugin:<name>`, or `policy` for a closed failure), and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolDenial {
    /// Who denied it.
    pub by: String,
    /// Why.
    pub reason: String,
}

/// The chain's verdict on `call`, as a turn asks it before approval and the run: the call
/// with the arguments the tool would receive (after rewrites), or the denial. Audit records
/// and failures are the turn's; this gives the decision alone.
pub fn pre_tool_verdict(chain: &mut [ChainEntry], call: &ToolCall) -> Result<ToolCall, ToolDenial> {
    let run = run_pre_tool(chain, call);
    match run.denied {
        Some((by, reason)) => Err(ToolDenial { by, reason }),
        None => Ok(run.call),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
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
}
