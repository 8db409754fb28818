//! [`ToolCallOutcome`]: what became of one tool call, as one typed record. The path fills it in
//! as it goes — the chain's rewrites and denial (`tool_chain.rs`), the person's answer, the
//! tool's output with its own figures — and the turn derives everything else from it: the
//! hooks' `ToolDecided` events, the `ToolResult` item it commits, and the `tool_call` audit
//! record. Nothing re-derives who decided from strings.

use std::fmt;

use serde_json::Value;

use crate::domain::builtin::ToolEffect;
use crate::domain::{
    DENIED_PREFIX, DecidedBy, Entry, Escalation, Event, Item, Mode, NOT_RUN_PREFIX, Source,
    ToolCall, ToolDecision, ToolOutput,
};
use crate::store::{AuditEvent, PluginSeen, ToolGrantRecord, ToolHttpRecord};
use crate::worker::ToolOwner;

/// The output of a call not settled yet.
static UNSETTLED: ToolOutput = ToolOutput {
    content: String::new(),
    is_error: true,
    figures: None,
    exit_code: None,
};

/// The person's answer when a tool's entry asks for approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalAnswer {
    /// Yes, this once.
    Yes,
    /// Yes, and for the rest of this worker's life.
    Always,
    /// An earlier `always` answered for the person.
    Remembered,
    /// No.
    No,
}

impl fmt::Display for ApprovalAnswer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Yes => "yes",
            Self::Always => "always",
            Self::Remembered => "remembered",
            Self::No => "no",
        })
    }
}

/// One interceptor's rewrite of a call's arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Rewrite {
    /// The interceptor's name.
    pub plugin: String,
    /// The arguments after it (a JSON object).
    pub arguments: Value,
}

/// What became of one tool call.
#[derive(Debug, Clone)]
pub struct ToolCallOutcome {
    /// The call as the model asked for it.
    call: ToolCall,
    /// The tool plugin that serves it (`None` for a built-in tool).
    owner: Option<ToolOwner>,
    /// Rewrites, in chain order.
    rewrites: Vec<Rewrite>,
    /// The interceptor that asked for the person's approval, and why (the first to ask).
    asked: Option<(String, String)>,
    /// Who denied it and why (`None`: allowed, so far).
    denied: Option<(DecidedBy, String)>,
    /// The person's answer, when asked.
    approval: Option<ApprovalAnswer>,
    /// The mode that judged a call that writes or runs commands (`None` for a read, or a call
    /// the chain denied first), and whether the mode alone let it run.
    mode: Option<(Mode, ToolEffect, bool)>,
    /// The `[[rules]]` id(s) that decided, and whether the rule alone let it run.
    rule: Option<(String, bool)>,
    /// What it produced (or why it did not run); `None` until settled.
    output: Option<ToolOutput>,
    /// The escalation a `shell` call asked for.
    escalation: Option<Escalation>,
    /// The interceptors asked about it so far, in chain order, once each.
    seen_by: Vec<PluginSeen>,
}

impl ToolCallOutcome {
    /// A call nobody has judged yet.
    pub(crate) fn new(call: ToolCall) -> Self {
        Self {
            call,
            owner: None,
            rewrites: Vec::new(),
            asked: None,
            denied: None,
            approval: None,
            mode: None,
            rule: None,
            output: None,
            escalation: None,
            seen_by: Vec::new(),
        }
    }

    /// A call left unrun because the turn stopped before it (denied by policy).
    pub(crate) fn not_run(call: ToolCall, owner: Option<ToolOwner>, reason: String) -> Self {
        let output = ToolOutput::error(format!("{NOT_RUN_PREFIX}{reason}"));
        Self {
            owner,
            denied: Some((DecidedBy::Policy, reason)),
            output: Some(output),
            ..Self::new(call)
        }
    }

    /// The interceptors in `seen` were asked about the call (each listed once).
    pub(crate) fn seen_by(&mut self, seen: Vec<PluginSeen>) {
        merge_seen(&mut self.seen_by, seen);
    }

    /// The tool plugin that serves the call.
    pub(crate) fn served_by(&mut self, owner: Option<ToolOwner>) {
        self.owner = owner;
    }

    /// `plugin` rewrote the arguments.
    pub(crate) fn rewrite(&mut self, plugin: &str, arguments: Value) {
        self.rewrites.push(Rewrite {
            plugin: plugin.to_owned(),
            arguments,
        });
    }

    /// `plugin` asks for the person's approval before the call runs (the first ask is kept).
    pub(crate) fn ask(&mut self, plugin: &str, reason: String) {
        if self.asked.is_none() {
            self.asked = Some((plugin.to_owned(), reason));
        }
    }

    /// The interceptor that asked for the person's approval, and why.
    pub fn asked(&self) -> Option<(&str, &str)> {
        self.asked.as_ref().map(|(p, r)| (p.as_str(), r.as_str()))
    }

    /// `by` denied the call.
    pub(crate) fn deny(&mut self, by: DecidedBy, reason: String) {
        self.denied = Some((by, reason));
    }

    /// `mode` judged the call, of `effect` (a write or a command): it denied it (`reason`), or
    /// let it run without asking (`None` and `ran_unasked`), or asked the person.
    pub(crate) fn judged_by_mode(
        &mut self,
        mode: Mode,
        effect: ToolEffect,
        ran_unasked: bool,
        denied: Option<String>,
    ) {
        self.mode = Some((mode, effect, ran_unasked));
        if let Some(reason) = denied {
            self.deny(DecidedBy::Mode, reason);
        }
    }

    /// The rule(s) `ids` decided the call: `allowed` when they alone let it run.
    /// The call asks for `escalation` (recorded in the audit whatever became of it).
    pub(crate) fn escalated(&mut self, escalation: Escalation) {
        self.escalation = Some(escalation);
    }

    pub(crate) fn ruled(&mut self, ids: String, allowed: bool) {
        self.rule = Some((ids, allowed));
    }

    /// The person answered; `refused` is the reason of a no.
    pub(crate) fn approve(&mut self, answer: ApprovalAnswer, refused: Option<String>) {
        self.approval = Some(answer);
        if let Some(reason) = refused {
            self.deny(DecidedBy::Approval, reason);
        }
    }

    /// The tool ran and produced `output`.
    pub(crate) fn ran(&mut self, output: ToolOutput) {
        self.output = Some(output);
    }

    /// What the model sees of the call's result is `text` instead (an interceptor's
    /// replacement after the call); whether it failed stays as it was.
    pub(crate) fn replace_output(&mut self, text: String) {
        if let Some(output) = self.output.as_mut() {
            output.content = text;
        }
    }

    /// A denied call's output: who denied it and why, as an error result.
    pub(crate) fn settle_denied(&mut self) {
        if let Some((by, reason)) = &self.denied {
            self.output = Some(ToolOutput::error(format!("{DENIED_PREFIX}{by}: {reason}")));
        }
    }

    /// The call as the model asked for it.
    pub fn call(&self) -> &ToolCall {
        &self.call
    }

    /// The tool plugin that serves the call.
    pub fn owner(&self) -> Option<&ToolOwner> {
        self.owner.as_ref()
    }

    /// Who denied the call and why.
    pub fn denied(&self) -> Option<(&DecidedBy, &str)> {
        self.denied
            .as_ref()
            .map(|(by, reason)| (by, reason.as_str()))
    }

    /// The rewrites, in chain order.
    pub fn rewrites(&self) -> &[Rewrite] {
        &self.rewrites
    }

    /// The arguments the tool receives: the last rewrite's, or the model's.
    pub fn arguments(&self) -> &Value {
        self.rewrites
            .last()
            .map_or(&self.call.arguments, |r| &r.arguments)
    }

    /// The call with the arguments the tool receives.
    pub fn call_to_run(&self) -> ToolCall {
        ToolCall {
            id: self.call.id.clone(),
            name: self.call.name.clone(),
            arguments: self.arguments().clone(),
        }
    }

    /// The call with the arguments the tool receives, taking the record apart.
    pub fn into_call_to_run(mut self) -> ToolCall {
        if let Some(last) = self.rewrites.pop() {
            self.call.arguments = last.arguments;
        }
        self.call
    }

    /// What it produced (an empty error before it was settled).
    pub fn output(&self) -> &ToolOutput {
        self.output.as_ref().unwrap_or(&UNSETTLED)
    }

    /// Settled: it ran, or its denial became its result (what `post-tool-call` is shown).
    pub fn is_settled(&self) -> bool {
        self.output.is_some()
    }

    /// The tool ran: it was settled and nobody denied it.
    pub fn has_run(&self) -> bool {
        self.output.is_some() && self.denied.is_none()
    }

    /// The hooks' events for what the chain decided: each rewrite, then a deny by an
    /// interceptor or by policy.
    pub(crate) fn chain_events(&self) -> Vec<Event> {
        let mut events: Vec<Event> = self
            .rewrites
            .iter()
            .map(|r| Event::ToolDecided {
                call: self.call.clone(),
                by: DecidedBy::Plugin(r.plugin.clone()).to_string(),
                decision: ToolDecision::Rewrite(r.arguments.clone()),
            })
            .collect();
        if let Some((by @ (DecidedBy::Plugin(_) | DecidedBy::Policy), reason)) = &self.denied {
            events.push(Event::ToolDecided {
                call: self.call.clone(),
                by: by.to_string(),
                decision: ToolDecision::Deny(reason.clone()),
            });
        }
        events
    }

    /// The hooks' event for the decision after the chain: allowed (by the person when asked,
    /// else by the mode when it alone let a write or command run, else by default), or
    /// refused by the mode or the person. `None` when the chain denied it.
    pub(crate) fn final_event(&self) -> Option<Event> {
        let (by, decision) = match &self.denied {
            None if self.approval.is_some() => (DecidedBy::Approval, ToolDecision::Allow),
            None if self.ran_unasked_by_mode() => (DecidedBy::Mode, ToolDecision::Allow),
            None if self.ran_unasked_by_rule().is_some() => (
                DecidedBy::Rule(self.ran_unasked_by_rule().unwrap_or_default().to_owned()),
                ToolDecision::Allow,
            ),
            None => (DecidedBy::Default, ToolDecision::Allow),
            Some((by @ (DecidedBy::Approval | DecidedBy::Mode | DecidedBy::Rule(_)), reason)) => {
                (by.clone(), ToolDecision::Deny(reason.clone()))
            }
            Some(_) => return None,
        };
        Some(Event::ToolDecided {
            call: self.call.clone(),
            by: by.to_string(),
            decision,
        })
    }

    /// The call's `ToolResult` item, as committed.
    pub(crate) fn result_entry(&self) -> Entry {
        let output = self.output();
        Entry::new(
            Source::Tool,
            Item::ToolResult {
                call_id: self.call.id.clone(),
                content: output.content.clone(),
                is_error: output.is_error,
            },
        )
    }

    /// The mode alone let this write or command run (`auto-edit`, `full-auto`).
    fn ran_unasked_by_mode(&self) -> bool {
        self.mode.is_some_and(|(_, _, unasked)| unasked)
    }

    /// The rule(s) that alone let this call run.
    fn ran_unasked_by_rule(&self) -> Option<&str> {
        self.rule
            .as_ref()
            .filter(|(_, allowed)| *allowed)
            .map(|(ids, _)| ids.as_str())
    }

    /// Who the audit log names as deciding: the denier; else the person when asked; else the
    /// mode when it alone let a write or command run; else the last interceptor that rewrote
    /// the arguments; else nobody (`default`).
    pub fn decided_by(&self) -> DecidedBy {
        match (&self.denied, self.approval, self.rewrites.last()) {
            (Some((by, _)), _, _) => by.clone(),
            (None, Some(_), _) => DecidedBy::Approval,
            (None, None, _) if self.ran_unasked_by_mode() => DecidedBy::Mode,
            (None, None, _) if self.ran_unasked_by_rule().is_some() => {
                DecidedBy::Rule(self.ran_unasked_by_rule().unwrap_or_default().to_owned())
            }
            (None, None, Some(last)) => DecidedBy::Plugin(last.plugin.clone()),
            (None, None, None) => DecidedBy::Default,
        }
    }

    /// The call's `tool_call` audit record.
    pub fn audit_record(&self) -> AuditEvent {
        let output = self.output();
        let grants = self.owner.as_ref().map_or_else(Box::default, grant_record);
        let hosts_granted = !grants.allowed_hosts.is_empty();
        let decision = match (&self.denied, self.rewrites.is_empty()) {
            (Some(_), _) => "denied",
            (None, true) => "allowed",
            (None, false) => "rewritten",
        };
        let bytes_in = if self.has_run() {
            self.arguments()
        } else {
            &self.call.arguments
        }
        .to_string()
        .len() as u64;
        let figures = output.figures.as_ref();
        AuditEvent::ToolCall {
            tool: self.call.name.clone(),
            call_id: self.call.id.clone(),
            plugin: self.owner.as_ref().map(|o| o.plugin.clone()),
            grants,
            decision: decision.to_owned(),
            by: self.decided_by().to_string(),
            reason: self.denied.as_ref().map(|(_, reason)| reason.clone()),
            rewritten_by: self
                .rewrites
                .iter()
                .map(|r| DecidedBy::Plugin(r.plugin.clone()).to_string())
                .collect(),
            approval: self.approval.map(|a| a.to_string()),
            mode: self.mode.map(|(mode, _, _)| mode),
            rule: self.rule.as_ref().map(|(ids, _)| Box::new(ids.clone())),
            bytes_in,
            bytes_out: output.content.len() as u64,
            is_error: output.is_error,
            http: figures
                .filter(|a| a.http_requests > 0 || a.http_refused > 0 || hosts_granted)
                .map(|a| ToolHttpRecord {
                    requests: a.http_requests,
                    refused: a.http_refused,
                    bytes_out: a.http_bytes_out,
                    bytes_in: a.http_bytes_in,
                }),
            plugin_failure: figures.and_then(|a| a.failure.clone()).map(Box::new),
            mcp: figures.and_then(|a| a.mcp.clone()).map(Box::new),
            escalation: self.escalation.clone().map(Box::new),
            seen_by: self.seen_by.clone(),
        }
    }
}

/// Adds to `into` each of `seen` it does not list yet, in order.
pub(crate) fn merge_seen(into: &mut Vec<PluginSeen>, seen: Vec<PluginSeen>) {
    for plugin in seen {
        if !into.contains(&plugin) {
            into.push(plugin);
        }
    }
}

/// A tool plugin's grants as the audit log records them.
fn grant_record(owner: &ToolOwner) -> Box<ToolGrantRecord> {
    Box::new(ToolGrantRecord {
        fs: owner.grants.fs.as_str().to_owned(),
        allowed_hosts: owner.grants.allowed_hosts.clone(),
        env: owner.grants.env.clone(),
    })
}
