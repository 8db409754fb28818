//! Step 5's tool calls, each through the same path whoever serves the tool (the built-in file
//! tools or a tool plugin):
//!
//! 1. `pre-tool-call` through the interceptor chain (`worker/tool_chain.rs`): the first deny
//!    wins, a rewrite changes the arguments later interceptors and the tool see;
//! 2. approval, when the tool's plugin is marked `approve = "ask"` (asked of the front end
//!    through [`TurnSink::approve_tool`]; `always` holds for the rest of this worker's life);
//! 3. the tool runs, or a denial becomes its `is_error` result saying who denied and why;
//! 4. `post-tool-call` items follow the results.
//!
//! A tool plugin's own failure (trap, deadline, memory cap, output over its cap) is its call's
//! `is_error` result either way; under the entry's `failure = "open"` (the default for tools)
//! the person gets a warning and the turn goes on, under `closed` the results are committed
//! and the turn ends, the answer's later calls answered as not run.
//!
//! The results of one answer's calls, then the `post-tool-call` items in call order, are
//! committed as one group (every call of the answer is answered before anything else, as the
//! providers require). Hooks see `ToolDecided` and `ToolRan`; the audit log gets one
//! `tool_call` record per call.

use super::{TurnOutcome, Worker};
use crate::config::{Approve, FailurePolicy, FsGrant};
use crate::domain::{
    Alert, Approval, Entry, Event, Item, Source, ToolCall, ToolDecision, ToolOutput, TurnSink,
};
use crate::store::{AuditEvent, ToolGrantRecord, ToolHttpRecord};
use crate::worker::chain::{PointEnd, Verdict, run_point};
use crate::worker::tool_chain::{BY_DEFAULT, run_pre_tool};
use crate::worker::{ToolOwner, WorkerError};

/// The call point after a tool ran.
const POST_TOOL_CALL: &str = "post-tool-call";

/// Who decides when the person was asked.
const BY_APPROVAL: &str = "approval";

/// What became of one call.
struct Settled {
    /// The call as the tool received it (or as asked, when denied).
    call: ToolCall,
    output: ToolOutput,
    ran: bool,
    /// `(plugin, message)` when the tool's plugin failed and its policy is closed.
    failed_closed: Option<(String, String)>,
}

/// Why the turn stops before the answer's later calls: `(plugin, message, when)`.
struct Stop {
    plugin: String,
    message: String,
    /// `after` (a `post-tool-call` failure) or `on` (the tool's own failure).
    during_call: bool,
    tool: String,
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
        let mut stop: Option<Stop> = None;
        for call in calls {
            let settled = match &stop {
                // The turn is over: later calls are answered, not run.
                Some(stop) => self.not_run(call, stop, &mut events),
                None => self.settle(sink, call, &mut events),
            };
            let Settled {
                call: ran_call,
                output,
                ran,
                failed_closed,
            } = settled;
            if let Some((plugin, message)) = failed_closed {
                stop = Some(Stop {
                    plugin,
                    message,
                    during_call: true,
                    tool: call.name.clone(),
                });
            }
            results.push(Entry::new(
                Source::Tool,
                Item::ToolResult {
                    call_id: call.id.clone(),
                    content: output.content.clone(),
                    is_error: output.is_error,
                },
            ));
            if !ran || stop.is_some() {
                continue;
            }
            // 4. `post-tool-call`, under the chain's rules for added items (ids already taken
            //    include those of items added after earlier calls of this answer).
            let ask = |plugin: &mut dyn crate::domain::Interceptor| {
                plugin.post_tool_call(&ran_call, &output).map(|items| {
                    if items.is_empty() {
                        Verdict::Pass(None)
                    } else {
                        Verdict::Add(items)
                    }
                })
            };
            let taken = crate::worker::validate::call_ids(added.iter().map(|e| &e.item));
            let run = if taken.is_empty() {
                run_point(&mut self.chain, POST_TOOL_CALL, &self.call_ids, ask)
            } else {
                let mut used = self.call_ids.clone();
                used.extend(taken.into_iter().map(str::to_owned));
                run_point(&mut self.chain, POST_TOOL_CALL, &used, ask)
            };
            let (end, decisions) = self.report(sink, run);
            events.extend(decisions);
            match end {
                PointEnd::Items(items) => added.extend(items),
                PointEnd::Cancelled {
                    plugin,
                    reason: message,
                }
                | PointEnd::FailedClosed { plugin, message } => {
                    stop = Some(Stop {
                        plugin,
                        message,
                        during_call: false,
                        tool: call.name.clone(),
                    });
                }
            }
        }
        results.extend(added);
        self.commit(sink, results)?;
        self.audit(&events)?;
        Ok(stop.map(|stop| {
            let when = if stop.during_call {
                format!("running tool `{}`", stop.tool)
            } else {
                "after a tool call".to_owned()
            };
            self.stopped_by(sink, &stop.plugin, &stop.message, &when)
        }))
    }

    /// A call left unrun because a closed failure of a plugin (a `post-tool-call` interceptor,
    /// or the tool plugin of an earlier call) ended the turn.
    fn not_run(&self, call: &ToolCall, stop: &Stop, events: &mut Vec<AuditEvent>) -> Settled {
        let reason = format!(
            "the turn stopped when plugin {} failed {} an earlier call",
            stop.plugin,
            if stop.during_call { "on" } else { "after" }
        );
        let output = ToolOutput::error(format!("tool call not run: {reason}"));
        events.push(AuditEvent::ToolCall {
            tool: call.name.clone(),
            call_id: call.id.clone(),
            plugin: self.tools.owner(&call.name).map(|o| o.plugin.clone()),
            grants: self
                .tools
                .owner(&call.name)
                .map_or_else(Box::default, grant_record),
            decision: "denied".to_owned(),
            by: crate::worker::tool_chain::BY_POLICY.to_owned(),
            reason: Some(reason),
            rewritten_by: Vec::new(),
            approval: None,
            bytes_in: call.arguments.to_string().len() as u64,
            bytes_out: output.content.len() as u64,
            is_error: true,
            http: None,
            plugin_failure: None,
        });
        Settled {
            call: call.clone(),
            output,
            ran: false,
            failed_closed: None,
        }
    }

    /// Ask the front end about `call` of `plugin` (unless the person said `always` for this
    /// tool before): the audit label of the answer, and the reason when it is no.
    fn approval(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
        plugin: &str,
    ) -> (&'static str, Option<String>) {
        if self.always_approved.contains(&call.name) {
            return ("remembered", None);
        }
        match sink.approve_tool(call, plugin) {
            Approval::Yes => ("yes", None),
            Approval::Always => {
                self.always_approved.insert(call.name.clone());
                ("always", None)
            }
            Approval::No(reason) => ("no", Some(reason)),
        }
    }

    /// Steps 1–3 for one call; pushes its audit records to `events`.
    fn settle(
        &mut self,
        sink: &mut dyn TurnSink,
        call: &ToolCall,
        events: &mut Vec<AuditEvent>,
    ) -> Settled {
        let owner = self.tools.owner(&call.name).cloned();
        // 1. The chain.
        let pre = run_pre_tool(&mut self.chain, call);
        events.extend(pre.decisions);
        for failure in &pre.failures {
            self.plugin_failed(sink, failure);
            if failure.closed {
                self.raise(
                    sink,
                    Alert::error(
                        format!("plugin:{}", failure.plugin),
                        format!(
                            "tool call `{}` denied: plugin {} failed and its policy is closed: {}",
                            call.name, failure.plugin, failure.message
                        ),
                    ),
                );
            }
        }
        for (by, decision) in pre.decided {
            self.emit(
                sink,
                Event::ToolDecided {
                    call: call.clone(),
                    by,
                    decision,
                },
            );
        }
        let mut denied = pre.denied;
        let to_run = pre.call;

        // 2. Approval.
        let mut by = BY_DEFAULT.to_owned();
        let mut approval = None;
        if denied.is_none()
            && let Some(owner) = owner.as_ref().filter(|o| o.approve == Approve::Ask)
        {
            by = BY_APPROVAL.to_owned();
            let (label, refused) = self.approval(sink, &to_run, &owner.plugin);
            approval = Some(label);
            denied = refused.map(|reason| (BY_APPROVAL.to_owned(), reason));
        }
        if denied.is_none() {
            self.emit(
                sink,
                Event::ToolDecided {
                    call: call.clone(),
                    by: by.clone(),
                    decision: ToolDecision::Allow,
                },
            );
        } else if let Some((who, reason)) = &denied
            && who == BY_APPROVAL
        {
            self.emit(
                sink,
                Event::ToolDecided {
                    call: call.clone(),
                    by: who.clone(),
                    decision: ToolDecision::Deny(reason.clone()),
                },
            );
        }

        // 3. Run, or deny.
        let (settled, decision, reason, plugin_audit) = match denied {
            Some((who, reason)) => {
                let output = ToolOutput::error(format!("tool call denied by {who}: {reason}"));
                by = who;
                let settled = Settled {
                    call: call.clone(),
                    output,
                    ran: false,
                    failed_closed: None,
                };
                (settled, "denied", Some(reason), None)
            }
            None => {
                sink.tool_started(&to_run.name, &to_run.arguments);
                let output = self.tools.output(&to_run, self.resolver.as_mut());
                self.emit(
                    sink,
                    Event::ToolRan {
                        name: call.name.clone(),
                        call_id: call.id.clone(),
                        is_error: output.is_error,
                    },
                );
                let decision = if pre.rewritten_by.is_empty() {
                    "allowed"
                } else {
                    "rewritten"
                };
                // The plugin's own figures, and its failure under its entry's policy.
                let plugin_audit = owner
                    .as_ref()
                    .and_then(|_| self.tools.last_audit(&to_run.name));
                let failed_closed = match (&owner, plugin_audit.as_ref()) {
                    (Some(owner), Some(audit)) => audit
                        .failure
                        .as_ref()
                        .and_then(|message| self.tool_failed(sink, &to_run.name, owner, message)),
                    _ => None,
                };
                let settled = Settled {
                    call: to_run,
                    output,
                    ran: true,
                    failed_closed,
                };
                (settled, decision, None, plugin_audit)
            }
        };
        if by == BY_DEFAULT
            && let Some(last) = pre.rewritten_by.last()
        {
            by = last.clone();
        }
        let grants = owner.as_ref().map_or_else(Box::default, grant_record);
        let hosts = grants.allowed_hosts.clone();
        events.push(AuditEvent::ToolCall {
            tool: call.name.clone(),
            call_id: call.id.clone(),
            plugin: owner.map(|o| o.plugin),
            grants,
            decision: decision.to_owned(),
            by,
            reason,
            rewritten_by: pre.rewritten_by,
            approval: approval.map(str::to_owned),
            bytes_in: settled.call.arguments.to_string().len() as u64,
            bytes_out: settled.output.content.len() as u64,
            is_error: settled.output.is_error,
            http: plugin_audit
                .as_ref()
                .filter(|a| a.http_requests > 0 || a.http_refused > 0 || !hosts.is_empty())
                .map(|a| ToolHttpRecord {
                    requests: a.http_requests,
                    refused: a.http_refused,
                    bytes_out: a.http_bytes_out,
                    bytes_in: a.http_bytes_in,
                }),
            plugin_failure: plugin_audit.and_then(|a| a.failure),
        });
        settled
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

/// A tool plugin's grants as the audit log records them.
fn grant_record(owner: &ToolOwner) -> Box<ToolGrantRecord> {
    Box::new(ToolGrantRecord {
        fs: match owner.grants.fs {
            FsGrant::None => "none",
            FsGrant::Read => "read",
            FsGrant::ReadWrite => "read-write",
        }
        .to_owned(),
        allowed_hosts: owner.grants.allowed_hosts.clone(),
        env: owner.grants.env.clone(),
    })
}
