//! Step 5's tool calls, each through the same path whoever serves the tool (the built-in file
//! tools or a tool plugin):
//!
//! 1. `pre-tool-call` through the interceptor chain (`worker/tool_chain.rs`): the first deny
//!    wins, a rewrite changes the arguments later interceptors and the tool see;
//! 2. the permission mode judges the call's effect ([`ToolRegistry::effect`](crate::worker::ToolRegistry::effect)):
//!    `read-only` denies a write or a command (decided by `mode`), `ask` asks the person about
//!    both, `auto-edit` asks about commands only, `full-auto` asks about neither; reads never
//!    ask because of the mode. Then approval, when the mode asks or the tool's plugin is marked
//!    `approve = "ask"` (asked once, of the front end through [`TurnSink::approve_tool`];
//!    `always` holds for the rest of this worker's life). A call the chain denied is never
//!    judged nor asked about;
//! 3. the tool runs (a built-in write's file checkpointed around it, `turn/checkpoint.rs`), or a denial becomes its `is_error` result saying who denied and why;
//! 4. `post-tool-call`, for every call settled either way — one that ran, with its output, and
//!    one that was denied (by an interceptor, the person or policy), with the denial the model
//!    sees as its result, as the WIT contract says ("finished (or was denied)"). Only the calls
//!    left unrun because the turn stopped skip it. Its items follow the results.
//!
//! A tool plugin's own failure (trap, deadline, memory cap, output over its cap) is its call's
//! `is_error` result either way; under the entry's `failure = "open"` (the default for tools)
//! the person gets a warning and the turn goes on, under `closed` the results are committed
//! and the turn ends, the answer's later calls answered as not run.
//!
//! The results of one answer's calls, then the `post-tool-call` items in call order, are
//! committed as one group (every call of the answer is answered before anything else, as the
//! providers require). Each call's [`ToolCallOutcome`] is the one record of what became of it:
//! the hooks' `ToolDecided` events, the committed result and the `tool_call` audit record all
//! come from it. The audit log also gets a `point` record per `post-tool-call`, naming the
//! items it added, for replay.

use super::{TurnOutcome, Worker};
use crate::config::{Approve, FailurePolicy};
use crate::domain::builtin::ToolEffect;
use crate::domain::builtin::{EDIT_FILE, SHELL, WRITE_FILE};
use crate::domain::rules::Decision;
use crate::domain::{
    Alert, Approval, AskWhy, CallPoint, DecidedBy, Entry, Event, Interceptor, ModeVerdict,
    ToolCall, TurnEvent, TurnSink,
};
use crate::store::{AuditEvent, PointEndRecord, PointInputRecord, PointRecord};
use crate::worker::chain::{PointEnd, Verdict, run_point_for};
use crate::worker::outcome::{ApprovalAnswer, ToolCallOutcome};
use crate::worker::tool_chain::run_pre_tool;
use crate::worker::validate::call_ids;
use crate::worker::{ToolOwner, WorkerError};

/// Why the turn stops before the answer's later calls.
pub(super) struct Stop {
    pub(super) plugin: String,
    pub(super) message: String,
    /// The tool's own failure (`on` a call), or a `post-tool-call` failure (`after` it).
    during_call: bool,
    tool: String,
}

/// How one call's `post-tool-call` ended: the items its chain added, and why the turn stops
/// when an interceptor cancelled or failed closed.
pub(super) struct PostToolEnd {
    pub(super) items: Vec<Entry>,
    pub(super) stop: Option<Stop>,
    /// An interceptor replaced what the model sees of the call's result (the outcome holds
    /// the new text).
    pub(super) replaced: bool,
}

/// Where one `post-tool-call` point record stands among the audit events, and how many items
/// its chain added (their sequence numbers are known once the group is committed).
struct PostTool {
    at: usize,
    added: usize,
}

impl Worker {
    /// Run the model's tool calls and commit their results and `post-tool-call` items as one
    /// group. A closed `post-tool-call` failure stops the turn after the commit.
    pub(super) fn run_tools(
        &mut self,
        sink: &mut dyn TurnSink,
        calls: &[ToolCall],
    ) -> Result<Option<TurnOutcome>, WorkerError> {
        let mut results = Vec::with_capacity(calls.len());
        let mut added: Vec<Entry> = Vec::new();
        let mut events: Vec<AuditEvent> = Vec::new();
        let mut posts: Vec<PostTool> = Vec::new();
        let mut stop: Option<Stop> = None;
        for call in calls {
            let _call_span = crate::trace::span("tool call")
                .with("gen_ai.tool.name", &call.name)
                .with("gen_ai.tool.call.id", &call.id);
            sink.event(&TurnEvent::ToolCallRequested { call: call.clone() });
            let outcome = match &stop {
                // The turn is over: later calls are answered, not run.
                Some(stop) => {
                    let outcome = self.not_run(call, stop);
                    self.tell_decided(sink, &outcome);
                    outcome
                }
                None => self.settle(sink, call, &mut events),
            };
            let mut outcome = outcome;
            events.push(outcome.audit_record());
            let at = results.len();
            results.push(outcome.result_entry());
            if stop.is_none() {
                stop = self.failed_closed(sink, &outcome);
            }
            if !outcome.is_settled() || stop.is_some() {
                continue;
            }
            // 4. `post-tool-call`, ran or denied, under the chain's rules for added items (ids
            //    already taken include those of items added after earlier calls of this answer).
            let post = self.post_tool_call(sink, &mut outcome, &added, &mut events);
            if post.replaced {
                results[at] = outcome.result_entry();
            }
            stop = post.stop;
            posts.push(PostTool {
                at: events.len() - 1,
                added: post.items.len(),
            });
            added.extend(post.items);
        }
        let first_added = results.len();
        results.extend(added);
        let committed = results.len();
        self.commit(sink, results)?;
        // Items added after each call, in call order, follow the results in the group.
        let mut seqs = self.last_seqs(committed).into_iter().skip(first_added);
        for post in posts {
            if let Some(AuditEvent::Point(record)) = events.get_mut(post.at) {
                record.added = seqs.by_ref().take(post.added).collect();
            }
        }
        self.audit(events)?;
        Ok(stop.map(|stop| {
            let when = if stop.during_call {
                format!("running tool `{}`", stop.tool)
            } else {
                "after a tool call".to_owned()
            };
            self.stopped_by(sink, &stop.plugin, &stop.message, &when)
        }))
    }

    /// Step 4 for one settled call: `post-tool-call` through the chain, its decisions and its
    /// `point` record pushed to `events` (the record last). `added` holds the items earlier
    /// calls of the same answer added (their ids are taken too).
    pub(super) fn post_tool_call(
        &mut self,
        sink: &mut dyn TurnSink,
        outcome: &mut ToolCallOutcome,
        added: &[Entry],
        events: &mut Vec<AuditEvent>,
    ) -> PostToolEnd {
        let call = outcome.call();
        let ran_call = outcome.call_to_run();
        let output = outcome.output();
        let ask = |plugin: &mut dyn Interceptor| {
            plugin.post_tool_call(&ran_call, output).map(|items| {
                if items.is_empty() {
                    Verdict::Pass(None)
                } else {
                    Verdict::Add(items)
                }
            })
        };
        let taken = call_ids(added.iter().map(|e| &e.item));
        let tool = Some(call.name.as_str());
        let mut run = if taken.is_empty() {
            run_point_for(
                &mut self.chain,
                CallPoint::PostToolCall,
                tool,
                &self.call_ids,
                ask,
            )
        } else {
            let mut used = self.call_ids.clone();
            used.extend(taken.into_iter().map(str::to_owned));
            run_point_for(&mut self.chain, CallPoint::PostToolCall, tool, &used, ask)
        };
        // The interceptors asked here saw the call too: its `tool_call` record names them.
        if let Some(AuditEvent::ToolCall { seen_by, .. }) = events
            .iter_mut()
            .rev()
            .find(|e| matches!(e, AuditEvent::ToolCall { call_id, .. } if *call_id == call.id))
        {
            crate::worker::outcome::merge_seen(seen_by, std::mem::take(&mut run.seen));
            let order: Vec<&str> = self.chain.iter().map(|e| e.plugin.name()).collect();
            seen_by.sort_by_key(|seen| order.iter().position(|name| *name == seen.plugin));
        }
        let (end, decisions) = self.report(sink, run);
        events.extend(decisions);
        let arguments = (!outcome.rewrites().is_empty()).then(|| outcome.arguments().clone());
        let mut stop = None;
        let (items, end) = match end {
            PointEnd::Items(items) => (items, PointEndRecord::Done),
            PointEnd::Cancelled { plugin, reason } => {
                let end = PointEndRecord::cancelled(&plugin, &reason);
                stop = Some(Stop {
                    plugin,
                    message: reason,
                    during_call: false,
                    tool: call.name.clone(),
                });
                (Vec::new(), end)
            }
            PointEnd::FailedClosed(failure) => {
                let message = failure.to_string();
                let end = PointEndRecord::failed_closed(&failure.plugin, &message);
                stop = Some(Stop {
                    plugin: failure.plugin.clone(),
                    message,
                    during_call: false,
                    tool: call.name.clone(),
                });
                (Vec::new(), end)
            }
        };
        let input = PointInputRecord::PostToolCall {
            call_id: call.id.clone(),
            arguments,
        };
        // What the model sees of the result, replaced (a hook's `updatedToolOutput`): the last
        // enforcing entry's word counts; a shadow's is dropped. Audited before the point.
        let mut replaced = None;
        for entry in &mut self.chain {
            if let Some(text) = entry.plugin.replaced_output()
                && entry.shadow.is_none()
            {
                replaced = Some((entry.plugin.name().to_owned(), text));
            }
        }
        events.push(PointRecord::event(input, end, Vec::new()));
        let was_replaced = replaced.is_some();
        if let Some((plugin, text)) = replaced {
            events.insert(
                events.len() - 1,
                AuditEvent::PluginDecision {
                    plugin,
                    hook: CallPoint::PostToolCall.to_string(),
                    decision: "replace-output".to_owned(),
                    reason: Some(format!("{} bytes", text.len())),
                },
            );
            outcome.replace_output(text);
        }
        PostToolEnd {
            items,
            stop,
            replaced: was_replaced,
        }
    }

    /// The tool plugin of a call that ran failed: reported; `Some` when its policy is closed
    /// and the turn stops after the commit.
    pub(super) fn failed_closed(
        &mut self,
        sink: &mut dyn TurnSink,
        outcome: &ToolCallOutcome,
    ) -> Option<Stop> {
        let owner = outcome.owner()?.clone();
        let message = outcome.output().figures.as_ref()?.failure.clone()?;
        let tool = outcome.call().name.clone();
        self.tool_failed(sink, &tool, &owner, &message)
            .map(|(plugin, message)| Stop {
                plugin,
                message,
                during_call: true,
                tool,
            })
    }

    /// A call left unrun because a closed failure of a plugin (a `post-tool-call` interceptor,
    /// or the tool plugin of an earlier call) ended the turn.
    fn not_run(&self, call: &ToolCall, stop: &Stop) -> ToolCallOutcome {
        let reason = format!(
            "the turn stopped when plugin {} failed {} an earlier call",
            stop.plugin,
            if stop.during_call { "on" } else { "after" }
        );
        ToolCallOutcome::not_run(call.clone(), self.tools.owner(&call.name).cloned(), reason)
    }

    /// Ask the front end about `call` (unless the person said `always` for this tool before),
    /// for the reason `why`: the answer, and the reason when it is no.
    fn approval(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
        why: &AskWhy,
    ) -> (ApprovalAnswer, Option<String>) {
        // An earlier `always` for the tool never answers for a rule that asks.
        // Nor for an escalation, which is granted for one call only.
        let escalation = matches!(why, AskWhy::Escalation(_));
        if self.always_approved.contains(&call.name)
            && !matches!(why, AskWhy::Rule { .. } | AskWhy::Interceptor { .. })
            && !escalation
        {
            return (ApprovalAnswer::Remembered, None);
        }
        let message = format!("warden needs your permission to use {}", call.name);
        for entry in &mut self.chain {
            entry.plugin.on_notification(&message);
        }
        match sink.approve_tool(call, why) {
            Approval::Yes => (ApprovalAnswer::Yes, None),
            Approval::Always if escalation => (ApprovalAnswer::Yes, None),
            // A command: the narrowest rule that covers it, saved (never the whole tool).
            Approval::Always if call.name == SHELL => {
                if self.save_always_rule(sink, call) {
                    (ApprovalAnswer::Always, None)
                } else {
                    (ApprovalAnswer::Yes, None)
                }
            }
            // A write: a rule for both writers on the target's narrowest glob, saved.
            Approval::Always if call.name == WRITE_FILE || call.name == EDIT_FILE => {
                if self.save_always_write_rule(sink, call) {
                    (ApprovalAnswer::Always, None)
                } else {
                    (ApprovalAnswer::Yes, None)
                }
            }
            // A host's question: `always` stands for that host only (remembered by the caller).
            Approval::Always if matches!(why, AskWhy::Host { .. }) => (ApprovalAnswer::Yes, None),
            Approval::Always => {
                self.always_approved.insert(call.name.clone());
                (ApprovalAnswer::Always, None)
            }
            Approval::No(reason) => (ApprovalAnswer::No, Some(reason)),
        }
    }

    /// Steps 1–3 for one call; pushes the chain's audit records to `events`.
    pub(super) fn settle(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
        events: &mut Vec<AuditEvent>,
    ) -> ToolCallOutcome {
        // 1. The chain.
        let pre = run_pre_tool(&mut self.chain, call);
        events.extend(pre.decisions);
        let mut outcome = pre.outcome;
        outcome.served_by(self.tools.owner(&call.name).cloned());
        for failure in &pre.failures {
            self.plugin_failed(sink, failure);
            if failure.closed {
                self.raise(
                    sink,
                    Alert::error(
                        crate::domain::Source::Plugin(failure.plugin.clone()).to_string(),
                        format!(
                            "tool call `{}` denied: plugin {} failed and its policy is closed: {failure}",
                            call.name, failure.plugin
                        ),
                    ),
                );
            }
        }
        self.chain_alerts(sink);
        for event in outcome.chain_events() {
            self.emit(sink, event);
        }

        // 2. The rules and the mode, then approval (a call the chain denied is neither judged
        //    nor asked). A rule's deny refuses in every mode, its ask asks in every mode that
        //    lets the call through, its allow stands for the mode's question.
        if outcome.denied().is_none() {
            let mut ask = None;
            let effect = self.tools.effect(&call.name).unwrap_or(ToolEffect::Read);
            let judgement = self.judge_rules(&outcome.call_to_run());
            let rule_ids = self.config.rules.ids(&judgement).unwrap_or_default();
            let rule_reason = self.config.rules.reason(&judgement);
            if judgement.decision == Some(Decision::Deny) {
                outcome.ruled(rule_ids.clone(), false);
                outcome.deny(DecidedBy::Rule(rule_ids.clone()), rule_reason.clone());
            } else if effect != ToolEffect::Read {
                let mode = self.mode;
                match mode.judge(effect) {
                    ModeVerdict::Deny => {
                        let reason = mode.denial(&call.name, effect);
                        outcome.judged_by_mode(mode, effect, false, Some(reason));
                    }
                    ModeVerdict::Ask if judgement.decision == Some(Decision::Allow) => {
                        outcome.judged_by_mode(mode, effect, false, None);
                        outcome.ruled(rule_ids.clone(), true);
                    }
                    ModeVerdict::Ask => {
                        outcome.judged_by_mode(mode, effect, false, None);
                        ask = Some(AskWhy::Mode { mode, effect });
                    }
                    ModeVerdict::Run => {
                        outcome.judged_by_mode(mode, effect, true, None);
                        // The mode alone lets it run; the audit names the rule all the same.
                        if judgement.decision == Some(Decision::Allow) {
                            outcome.ruled(rule_ids.clone(), false);
                        }
                    }
                }
            } else if judgement.decision == Some(Decision::Allow) {
                // A read runs unasked anyway; the audit names the rule that allows it.
                outcome.ruled(rule_ids.clone(), false);
            }
            if outcome.denied().is_none() && judgement.decision == Some(Decision::Ask) {
                if !rule_ids.is_empty() {
                    outcome.ruled(rule_ids.clone(), false);
                }
                ask = Some(AskWhy::Rule {
                    id: rule_ids,
                    why: rule_reason,
                });
            }
            // An interceptor's ask (a hook's `permissionDecision: "ask"`) asks in every mode
            // that let the call through.
            if outcome.denied().is_none()
                && let Some((plugin, why)) = outcome.asked()
            {
                ask = Some(AskWhy::Interceptor {
                    plugin: plugin.to_owned(),
                    why: why.to_owned(),
                });
            }
            // A plugin's own `approve = "ask"` asks in every mode that let the call through.
            if outcome.denied().is_none()
                && let Some(owner) = outcome.owner().filter(|o| o.approve == Approve::Ask)
            {
                ask = Some(AskWhy::Plugin(owner.plugin.clone()));
            }
            if outcome.denied().is_none()
                && let Some(owner) = outcome.owner().filter(|o| o.approve == Approve::PerHost)
            {
                let to_ask = outcome.call_to_run();
                let host = call_host(&to_ask.arguments);
                let key = host.as_ref().map(|h| host_key(&to_ask.name, h));
                if !key
                    .as_ref()
                    .is_some_and(|k| self.hosts_approved.contains(k))
                {
                    ask = Some(AskWhy::Host {
                        plugin: owner.plugin.clone(),
                        host: host.unwrap_or_else(|| "a URL without a host".to_owned()),
                    });
                }
            }
            // An escalated command asks in every mode that let it through, unless policy
            // forbids its kind or a rule on that escalation decides.
            self.escalate_repository_writes(&mut outcome);
            self.judge_escalation(&mut outcome, &mut ask);
            if let Some(why) = ask {
                let to_ask = outcome.call_to_run();
                let (answer, refused) = self.approval(sink, &to_ask, &why);
                if refused.is_none()
                    && let AskWhy::Host { host, .. } = &why
                    && call_host(&to_ask.arguments).as_ref() == Some(host)
                {
                    self.hosts_approved.insert(host_key(&to_ask.name, host));
                }
                outcome.approve(answer, refused);
            }
        }
        if let Some(event) = outcome.final_event() {
            self.emit(sink, event);
        }
        self.tell_decided(sink, &outcome);

        // 3. Run, or deny.
        if outcome.denied().is_some() {
            outcome.settle_denied();
            return outcome;
        }
        let to_run = outcome.call_to_run();
        sink.event(&TurnEvent::ToolCallStarted {
            call: to_run.clone(),
        });
        let before = self.checkpoint_before(&to_run);
        let shell_before = self.shell_checkpoint_before(&to_run);
        let cancel = self.cancel.clone();
        let output = self
            .tools
            .output_cancellable(&to_run, self.resolver.as_mut(), &|| cancel.is_cancelled());
        let mut changed = Vec::new();
        if let Some(before) = before {
            changed.extend(self.checkpoint_after(sink, before, &to_run));
        }
        if let Some(before) = shell_before {
            changed.extend(self.shell_checkpoint_after(sink, before, &to_run));
        }
        self.emit(
            sink,
            Event::ToolRan {
                name: call.name.clone(),
                call_id: call.id.clone(),
                is_error: output.is_error,
            },
        );
        outcome.ran(output);
        Self::tell_ran(sink, &outcome);
        for change in changed {
            sink.event(&TurnEvent::FileChanged(change.change.clone()));
            self.changes.add(change);
        }
        outcome
    }
}

impl Worker {
    /// The tool plugin of `tool` failed: the hooks hear of it; under `open` the person is
    /// warned (the model sees the error result), under `closed` the failure is returned as
    /// `(plugin, message)` for the turn to stop after the commit (its alert says so).
    fn tool_failed(
        &mut self,
        sink: &mut dyn TurnSink,
        tool: &str,
        owner: &ToolOwner,
        message: &str,
    ) -> Option<(String, String)> {
        if owner.failure == FailurePolicy::Open {
            self.raise(
                sink,
                Alert::warn(
                    format!("plugin:{}", owner.plugin),
                    format!(
                        "tool `{tool}` failed: {message} (failure policy: open; the model sees the error)"
                    ),
                ),
            );
        }
        self.emit(
            sink,
            Event::PluginFailed {
                plugin: owner.plugin.clone(),
                message: message.to_owned(),
            },
        );
        (owner.failure == FailurePolicy::Closed).then(|| (owner.plugin.clone(), message.to_owned()))
    }
}

/// The host (`name:port`, lower case) of a call's `url` argument, when it has one.
fn call_host(arguments: &serde_json::Value) -> Option<String> {
    let url = reqwest::Url::parse(arguments.get("url")?.as_str()?.trim()).ok()?;
    let host = url.host_str()?.to_ascii_lowercase();
    let port = url.port_or_known_default()?;
    Some(format!("{host}:{port}"))
}

/// What a yes for `host` is remembered by: the tool and the host.
fn host_key(tool: &str, host: &str) -> String {
    format!("{tool}@{host}")
}

#[cfg(test)]
mod host_tests {
    use super::call_host;

    #[test]
    fn a_calls_host_is_its_urls_name_and_port_in_lower_case() {
        let host = |url: &str| call_host(&serde_json::json!({ "url": url }));
        assert_eq!(host("https://Docs.RS/x").as_deref(), Some("docs.rs:443"));
        assert_eq!(
            host("http://127.0.0.1:8080/a").as_deref(),
            Some("127.0.0.1:8080")
        );
        assert_eq!(
            host(" http://example.com ").as_deref(),
            Some("example.com:80")
        );
        assert_eq!(host("not a url"), None);
        assert_eq!(call_host(&serde_json::json!({"path": "x"})), None);
    }
}
