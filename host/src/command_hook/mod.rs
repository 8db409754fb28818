//! Command hooks (`[[hooks]]`): the hooks written for Claude Code and Codex, run by warden as
//! entries of the interceptor chain. Each [`CommandHook`] answers at its event's call point
//! only — `UserPromptSubmit` and `SessionStart` at `on-prompt-submit`, `PreToolUse` at
//! `pre-tool-call`, `PostToolUse` at `post-tool-call`, `Stop` (`SubagentStop` in a child
//! session) at `on-turn-end`, `PreCompact` at `compaction`; `SessionEnd` and `Notification`
//! observe — by running its command once in the sandbox ([`run_once`]) with Claude Code's
//! JSON on its standard input ([`input`]), and reading its answer as Claude Code does
//! ([`parse_reply`]). A crash, a deadline, output warden cannot read or an exit code other than
//! 0 and 2 is a [`PluginFailure`]: the chain's failure policy (`on_error`) decides.

mod input;

use std::collections::BTreeSet;
use std::time::Duration;

use crate::config::CommandHookEntry;
use crate::domain::hook_event::HookEvent;
use crate::domain::hook_reply::{HookReply, Permission, parse_reply};
use crate::domain::hook_tools::from_claude;
use crate::domain::tool_matcher::ToolMatcher;
use crate::domain::{
    Alert, CompactionInfo, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo,
    SubmittedPrompt, ToolCall, ToolDecision, ToolOutput, TurnContext, TurnEndDecision, TurnInfo,
};
use crate::sandbox::confined::{Grants, LaunchContext};
use crate::sandbox::run_once::{Ran, run_once};

/// The variables that tell a hook the workspace root, as Claude Code and warden name them.
const PROJECT_DIR_VARS: [&str; 2] = ["CLAUDE_PROJECT_DIR", "WARDEN_PROJECT_DIR"];

/// Why a hook's answer did not count, as its failure says it.
#[derive(Debug)]
struct HookFailed {
    name: String,
    event: HookEvent,
    message: String,
}

impl std::fmt::Display for HookFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "hook {} ({}) failed: {}",
            self.name, self.event, self.message
        )
    }
}

impl std::error::Error for HookFailed {}

/// One `[[hooks]]` entry in the chain.
pub struct CommandHook {
    entry: CommandHookEntry,
    /// `hook:NAME`: its name in the chain, the audit log and item sources.
    chain_name: String,
    digest: String,
    /// Its `matcher`, on the event's own field (`SessionStart`'s source, …); the tool
    /// events' is the chain entry's.
    matcher: Option<ToolMatcher>,
    launch: LaunchContext,
    context: TurnContext,
    /// `additionalContext` from `PreToolUse`, committed after the call's result.
    pending_context: Option<(String, String)>,
    /// `updatedToolOutput`, taken by the worker after `post-tool-call`.
    replaced: Option<String>,
    alerts: Vec<Alert>,
    /// Fields already named as not acted on (once each).
    told: BTreeSet<String>,
    /// The variables passed through: the entry's `env` and [`PROJECT_DIR_VARS`].
    env_names: Vec<String>,
    /// The workspace files its command names, with their sha256 when it was set up: one that
    /// changes afterwards (a model's write, another hook) is not run.
    pinned: std::collections::BTreeMap<String, String>,
}

/// The sha256 (hex) of the file at `path`, or why it could not be read.
fn file_sha256(path: &std::path::Path) -> String {
    use sha2::Digest;
    match std::fs::read(path) {
        Ok(bytes) => hex::encode(sha2::Sha256::digest(&bytes)),
        Err(err) => format!("unreadable: {err}"),
    }
}

impl CommandHook {
    /// The hook of `entry`, run through the launcher `launch` names. `Err` when its matcher
    /// does not compile (the configuration checked it already).
    pub fn new(entry: CommandHookEntry, launch: LaunchContext) -> Result<Self, String> {
        let matcher = match &entry.matcher {
            Some(source) if !entry.event.matches_tools() => Some(
                ToolMatcher::parse(source)
                    .map_err(|why| format!("hook {}: `matcher` {why}", entry.name))?,
            ),
            _ => None,
        };
        let pinned = launch.roots.first().map_or_else(Default::default, |root| {
            crate::config::command_files(root, &entry.command, &file_sha256)
        });
        let mut env_names = entry.env.clone();
        env_names.extend(PROJECT_DIR_VARS.map(str::to_owned));
        Ok(Self {
            pinned,
            env_names,
            chain_name: format!("hook:{}", entry.name),
            digest: entry.digest(),
            matcher,
            launch,
            context: TurnContext::default(),
            pending_context: None,
            replaced: None,
            alerts: Vec::new(),
            told: BTreeSet::new(),
            entry,
        })
    }

    /// The entry it runs.
    pub fn entry(&self) -> &CommandHookEntry {
        &self.entry
    }

    fn failure(&self, event: HookEvent, message: String) -> PluginFailure {
        let point = event.name().to_owned();
        PluginFailure::from_cause(
            self.chain_name.clone(),
            point,
            HookFailed {
                name: self.entry.name.clone(),
                event,
                message,
            },
        )
    }

    /// Run the command for `event` with `input`, and read its answer.
    fn run(
        &mut self,
        event: HookEvent,
        input: &serde_json::Value,
    ) -> Result<HookReply, PluginFailure> {
        if let Some(root) = self.launch.roots.first() {
            let now = crate::config::command_files(root, &self.entry.command, &file_sha256);
            if let Some(changed) = self
                .pinned
                .iter()
                .find(|(file, digest)| now.get(*file) != Some(*digest))
                .map(|(file, _)| file.clone())
            {
                return Err(self.failure(
                    event,
                    format!(
                        "{changed} changed since warden started; the hook was not run (start warden again to use the new script; a project's hooks ask for `warden trust` again)"
                    ),
                ));
            }
        }
        let _span = crate::trace::span("command hook")
            .with("hook", self.entry.name.as_str())
            .with("event", event.name());
        let key = format!("hooks.{}.allowed_hosts", self.entry.name);
        let grants = Grants {
            key: &key,
            fs: self.entry.fs,
            network: false,
            allowed_hosts: &self.entry.allowed_hosts,
            unix_sockets: &[],
            env: &self.env_names,
        };
        let argv = [
            "/bin/sh".to_owned(),
            "-c".to_owned(),
            self.entry.command.clone(),
        ];
        let mut bytes =
            serde_json::to_vec(input).map_err(|e| self.failure(event, e.to_string()))?;
        bytes.push(b'\n');
        let timeout = Duration::from_secs(self.entry.timeout_s.max(1));
        let run = run_once(&grants, &argv, &self.launch, &bytes, timeout)
            .map_err(|why| self.failure(event, format!("could not start: {why}")))?;
        for line in run.planted {
            self.alerts.push(Alert::warn(self.chain_name.clone(), line));
        }
        let reply = match run.ran {
            Ran::TimedOut => {
                return Err(self.failure(
                    event,
                    format!(
                        "did not finish within its timeout of {} s (its processes were killed)",
                        self.entry.timeout_s
                    ),
                ));
            }
            Ran::Exited {
                code: Some(code),
                stdout,
                stderr,
                ..
            } => parse_reply(event, code, &stdout, &stderr)
                .map_err(|why| self.failure(event, why))?,
            Ran::Exited { signal, .. } => {
                return Err(self.failure(
                    event,
                    format!("was killed by signal {}", signal.unwrap_or_default()),
                ));
            }
        };
        self.note(event, &reply);
        Ok(reply)
    }

    /// Alerts for the person: its `systemMessage`, and the fields it gave that warden does not
    /// act on at `event` (each named once).
    fn note(&mut self, event: HookEvent, reply: &HookReply) {
        let source = self.chain_name.clone();
        if let Some(message) = &reply.system_message {
            self.alerts
                .push(Alert::warn(source.clone(), message.clone()));
        }
        let new: Vec<String> = reply
            .unhonoured
            .iter()
            .filter(|field| self.told.insert(format!("{event}:{field}")))
            .cloned()
            .collect();
        if !new.is_empty() {
            self.alerts.push(Alert::warn(
                source,
                format!(
                    "its {event} answer gave {}, which warden does not act on at {event} (see docs/hooks.md)",
                    new.join(", ")
                ),
            ));
        }
    }

    /// Whether the event's own field (`SessionStart`'s source, …) passes the matcher.
    fn matches(&self, value: &str) -> bool {
        self.matcher.as_ref().is_none_or(|m| m.matches(value))
    }

    /// A context item of this hook.
    fn context_item(text: String) -> Item {
        Item::system(text)
    }
}

impl Interceptor for CommandHook {
    fn name(&self) -> &str {
        &self.chain_name
    }

    fn sha256(&self) -> Option<String> {
        Some(self.digest.clone())
    }

    fn set_context(&mut self, context: &TurnContext) {
        // The project directory a hook is told of: set once per context, not per run.
        if context.cwd != self.context.cwd {
            for var in PROJECT_DIR_VARS {
                self.launch.vars.retain(|(k, _)| k != var);
                self.launch.vars.push((var.to_owned(), context.cwd.clone()));
            }
        }
        self.context = context.clone();
    }

    fn take_alerts(&mut self) -> Vec<Alert> {
        std::mem::take(&mut self.alerts)
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        let reply = match self.entry.event {
            HookEvent::UserPromptSubmit => {
                let input = input::prompt(&self.context, &prompt.text);
                self.run(HookEvent::UserPromptSubmit, &input)?
            }
            HookEvent::SessionStart => {
                let Some(source) = self.context.session_start else {
                    return Ok(PromptDecision::Continue);
                };
                if !self.matches(source) {
                    return Ok(PromptDecision::Continue);
                }
                let input = input::session_start(&self.context, source);
                self.run(HookEvent::SessionStart, &input)?
            }
            _ => return Ok(PromptDecision::Continue),
        };
        if let Some(reason) = reply.stop.or(reply.block) {
            return Ok(PromptDecision::Cancel(reason));
        }
        Ok(match reply.context {
            Some(text) => PromptDecision::ContinueWith(vec![Self::context_item(text)]),
            None => PromptDecision::Continue,
        })
    }

    fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(Vec::new())
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        let event = if self.context.parent.is_some() {
            HookEvent::SubagentStop
        } else {
            HookEvent::Stop
        };
        if self.entry.event != event {
            return Ok(TurnEndDecision::Finish);
        }
        let input = input::stop(&self.context, &turn.answer, turn.continuations > 0);
        let reply = self.run(event, &input)?;
        if reply.stop.is_some() {
            return Ok(TurnEndDecision::Finish);
        }
        Ok(match reply.block {
            Some(reason) => TurnEndDecision::ContinueWith(vec![Self::context_item(reason)]),
            None => TurnEndDecision::Finish,
        })
    }

    fn on_compaction(&mut self, _: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        if self.entry.event != HookEvent::PreCompact || !self.matches("auto") {
            return Ok(Vec::new());
        }
        let input = input::pre_compact(&self.context, "auto");
        self.run(HookEvent::PreCompact, &input)?;
        Ok(Vec::new())
    }

    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        if self.entry.event != HookEvent::PreToolUse {
            return Ok(ToolDecision::Allow);
        }
        let input = input::pre_tool(&self.context, call);
        let reply = self.run(HookEvent::PreToolUse, &input)?;
        if let Some(text) = reply.context.clone() {
            self.pending_context = Some((call.id.clone(), text));
        }
        if let Some(reason) = reply.stop.or(reply.block) {
            return Ok(ToolDecision::Deny(reason));
        }
        let rewrite = match &reply.updated_input {
            Some(updated) => Some(
                from_claude(&call.name, updated, std::path::Path::new(&self.context.cwd))
                    .map_err(|why| self.failure(HookEvent::PreToolUse, why))?,
            ),
            None => None,
        };
        Ok(match (reply.permission, rewrite) {
            (Some((Permission::Deny, reason)), _) => ToolDecision::Deny(
                reason.unwrap_or_else(|| format!("denied by hook {}", self.entry.name)),
            ),
            (Some((Permission::Ask, reason)), rewrite) => {
                if rewrite.is_some() && self.told.insert("PreToolUse:updatedInput+ask".into()) {
                    self.alerts.push(Alert::warn(
                        self.chain_name.clone(),
                        "its PreToolUse answer asked and rewrote the call at once: warden asks about the call as the model made it (see docs/hooks.md)",
                    ));
                }
                ToolDecision::Ask(
                    reason.unwrap_or_else(|| format!("hook {} asks", self.entry.name)),
                )
            }
            (_, Some(arguments)) => ToolDecision::Rewrite(arguments),
            (_, None) => ToolDecision::Allow,
        })
    }

    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        let mut items = Vec::new();
        if let Some((id, text)) = self.pending_context.take()
            && id == call.id
        {
            items.push(Self::context_item(text));
        }
        if self.entry.event != HookEvent::PostToolUse {
            return Ok(items);
        }
        let input = input::post_tool(&self.context, call, output);
        let reply = self.run(HookEvent::PostToolUse, &input)?;
        if let Some(reason) = reply.block {
            items.push(Self::context_item(format!(
                "PostToolUse hook {} on this call: {reason}",
                self.entry.name
            )));
        }
        if let Some(text) = reply.context {
            items.push(Self::context_item(text));
        }
        self.replaced = reply.updated_output;
        Ok(items)
    }

    fn replaced_output(&mut self) -> Option<String> {
        self.replaced.take()
    }

    fn on_session_end(&mut self, reason: &str) {
        if self.entry.event != HookEvent::SessionEnd || !self.matches(reason) {
            return;
        }
        let input = input::session_end(&self.context, reason);
        if let Err(err) = self.run(HookEvent::SessionEnd, &input) {
            tracing::warn!(hook = self.entry.name.as_str(), "{err}");
        }
    }

    fn on_notification(&mut self, message: &str) {
        if self.entry.event != HookEvent::Notification || !self.matches("permission_prompt") {
            return;
        }
        let input = input::notification(&self.context, message);
        if let Err(err) = self.run(HookEvent::Notification, &input) {
            self.alerts
                .push(Alert::warn(self.chain_name.clone(), err.to_string()));
        }
    }
}
