//! Dev builds in a running chat: each plugin the chat loaded from the workspace's dev overlay
//! (`warden plugin dev`) sits behind a slot the worker calls through. Before each turn the
//! chat reads each such file; when its digest changed, and it is the digest the overlay now
//! records as accepted (the watcher of `warden plugin dev` records each rebuild it sees, and
//! running `plugin dev` again accepts the file as it is), the new build is loaded with the same
//! entry (config, limits, grants) and policy as at start, and takes the slot's place: one line
//! says so. A file the overlay does not record as accepted (a command or a tool replaced it)
//! is refused, like a rebuild that does not load: the previous build stays in the slot, and one
//! line says why and how to accept it (once per digest and accepted digest). Nothing is asked:
//! what loads is what the person accepted.

use std::cell::RefCell;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::SystemTime;

use crate::cli::common::env;
use crate::config::{Config, PluginEntry, PluginKind};
use crate::domain::{
    CompactionInfo, Event, Hook, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo,
    SubmittedPrompt, Tool, ToolCall, ToolContext, ToolDecision, ToolOutput, ToolSpec,
    TurnEndDecision, TurnInfo,
};
use crate::plugin::PluginEngine;
use crate::setup;
use crate::worker::ChainEntry;

type InterceptorSlot = Rc<RefCell<Box<dyn Interceptor>>>;
type HookSlot = Rc<RefCell<Box<dyn Hook>>>;
type ToolSlot = Arc<Mutex<Box<dyn Tool + Send>>>;

/// Where a dev build's instance lives.
enum Slot {
    Interceptor(InterceptorSlot),
    Hook(HookSlot),
    /// Each tool of the plugin by name.
    Tools(Vec<(String, ToolSlot)>),
}

/// One dev build the chat loaded.
struct DevBuild {
    entry: PluginEntry,
    /// The digest of the build in the slot.
    sha256: String,
    /// The file's modification time and length when last hashed: unchanged, it is not read.
    stamp: Option<(SystemTime, u64)>,
    /// The digest of the last rebuild that did not load, with the digest accepted then (said
    /// once: tried again when the person accepts another).
    refused: Option<(String, Option<String>)>,
    slot: Slot,
}

/// What a reload did, for the chat to say.
pub(crate) enum Reload {
    /// `name`'s rebuild `sha256` is now in place.
    Loaded { name: String, sha256: String },
    /// `name`'s rebuild `sha256` did not load, for `why`; the previous build stays.
    Refused {
        name: String,
        sha256: String,
        why: String,
    },
}

impl Reload {
    /// What the chat says (for a refusal, the message of an alert from `plugin:NAME`).
    pub(crate) fn message(&self) -> String {
        match self {
            Self::Loaded { name, sha256 } => format!("plugin {name} reloaded (sha256 {sha256})"),
            Self::Refused { sha256, why, .. } => format!(
                "the rebuild (sha256 {sha256}) did not load, the previous build stays: {why}"
            ),
        }
    }
}

/// The dev builds of a chat, and what is needed to load them again.
pub(crate) struct DevBuilds {
    overlay: Option<PathBuf>,
    workspace: PathBuf,
    config: Config,
    engine: Option<PluginEngine>,
    builds: Vec<DevBuild>,
}

impl DevBuilds {
    /// Nothing watched yet, for the entries of `config` in `workspace`.
    pub(crate) fn new(config: &Config, workspace: &Path) -> Self {
        Self {
            overlay: crate::config::dev_overlay_path(workspace, &env),
            workspace: workspace.to_owned(),
            config: config.clone(),
            engine: None,
            builds: Vec::new(),
        }
    }

    /// Whether `entry` comes from the dev overlay.
    pub(crate) fn is_dev(&self, entry: &PluginEntry) -> bool {
        self.overlay.is_some() && entry.declared_in.as_deref() == self.overlay.as_deref()
    }

    /// The engine later builds are loaded with (the one the chat started with).
    pub(crate) fn keep_engine(&mut self, engine: PluginEngine) {
        if !self.builds.is_empty() {
            self.engine = Some(engine);
        }
    }

    /// `entry`'s interceptor, behind a slot a rebuild replaces.
    pub(crate) fn interceptor(&mut self, entry: &PluginEntry, loaded: ChainEntry) -> ChainEntry {
        let slot: InterceptorSlot = Rc::new(RefCell::new(loaded.plugin));
        self.watch(entry, Slot::Interceptor(Rc::clone(&slot)));
        ChainEntry {
            plugin: Box::new(SwapInterceptor {
                name: entry.name.clone(),
                slot,
            }),
            failure: loaded.failure,
            shadow: loaded.shadow,
            matcher: loaded.matcher,
        }
    }

    /// `entry`'s hook, behind a slot a rebuild replaces.
    pub(crate) fn hook(&mut self, entry: &PluginEntry, loaded: Box<dyn Hook>) -> Box<dyn Hook> {
        let slot: HookSlot = Rc::new(RefCell::new(loaded));
        self.watch(entry, Slot::Hook(Rc::clone(&slot)));
        Box::new(SwapHook {
            name: entry.name.clone(),
            slot,
        })
    }

    /// `entry`'s tools, each behind a slot a rebuild replaces.
    pub(crate) fn tools(
        &mut self,
        entry: &PluginEntry,
        loaded: Vec<Box<dyn Tool + Send>>,
    ) -> Vec<Box<dyn Tool + Send>> {
        let mut slots = Vec::new();
        let mut tools: Vec<Box<dyn Tool + Send>> = Vec::new();
        for tool in loaded {
            let spec = tool.spec();
            let slot: ToolSlot = Arc::new(Mutex::new(tool));
            slots.push((spec.name.clone(), Arc::clone(&slot)));
            tools.push(Box::new(SwapTool { spec, slot }));
        }
        self.watch(entry, Slot::Tools(slots));
        tools
    }

    fn watch(&mut self, entry: &PluginEntry, slot: Slot) {
        let sha256 = std::fs::read(&entry.path)
            .map(|bytes| crate::plugin::sha256_hex(&bytes))
            .unwrap_or_default();
        self.builds.push(DevBuild {
            entry: entry.clone(),
            sha256,
            stamp: stamp(&entry.path),
            refused: None,
            slot,
        });
    }

    /// Load each dev build whose file changed since it was loaded; what happened, per build.
    pub(crate) fn refresh(&mut self) -> Vec<Reload> {
        let Some(engine) = &self.engine else {
            return Vec::new();
        };
        let mut done = Vec::new();
        for build in &mut self.builds {
            let now = stamp(&build.entry.path);
            if now.is_some() && now == build.stamp {
                continue;
            }
            // A file that cannot be read now (a build in progress) is looked at next turn.
            let Ok(bytes) = std::fs::read(&build.entry.path) else {
                continue;
            };
            let sha256 = crate::plugin::sha256_hex(&bytes);
            // The overlay says which build the person accepted now; the load is pinned to it,
            // so a file that is not that build is refused with the dev build's message.
            let accepted = self
                .overlay
                .as_deref()
                .and_then(|overlay| crate::config::accepted_digest(overlay, &build.entry.name));
            let tried = (sha256.clone(), accepted.clone());
            if sha256 == build.sha256 || build.refused.as_ref() == Some(&tried) {
                build.stamp = now;
                continue;
            }
            let name = build.entry.name.clone();
            let mut pinned = build.entry.clone();
            pinned.sha256.clone_from(&accepted);
            let loaded = match accepted {
                Some(_) => load_into(engine, &self.config, &self.workspace, &pinned, &build.slot),
                None => {
                    let overlay = self.overlay.as_deref();
                    Err(crate::config::dev_build_not_accepted(
                        &name,
                        &build.entry.path,
                        overlay
                            .and_then(|o| crate::config::recorded_digest(o, &name))
                            .as_deref(),
                        &sha256,
                        overlay.is_some_and(|o| crate::config::written_in_session(o, &name)),
                    ))
                }
            };
            match loaded {
                Ok(()) => {
                    build.sha256.clone_from(&sha256);
                    build.entry = pinned;
                    build.refused = None;
                    build.stamp = now;
                    done.push(Reload::Loaded { name, sha256 });
                }
                Err(why) => {
                    build.refused = Some(tried);
                    done.push(Reload::Refused { name, sha256, why });
                }
            }
        }
        done
    }
}

/// What identifies a version of the file without reading it: its modification time and length.
fn stamp(path: &Path) -> Option<(SystemTime, u64)> {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// Load `entry`'s file again, as it says, and put it in `slot`.
fn load_into(
    engine: &PluginEngine,
    config: &Config,
    workspace: &Path,
    entry: &PluginEntry,
    slot: &Slot,
) -> Result<(), String> {
    let mut one = config.clone();
    one.plugins = vec![entry.clone()];
    match (slot, entry.kind) {
        (Slot::Interceptor(slot), PluginKind::Interceptor) => {
            let (chain, _) = setup::plugins(engine, &one, workspace).map_err(|e| e.to_string())?;
            let plugin = chain
                .into_iter()
                .next()
                .ok_or("no interceptor was loaded")?;
            *slot.borrow_mut() = plugin.plugin;
        }
        (Slot::Hook(slot), PluginKind::Hook) => {
            let (_, hooks) = setup::plugins(engine, &one, workspace).map_err(|e| e.to_string())?;
            let hook = hooks.into_iter().next().ok_or("no hook was loaded")?;
            *slot.borrow_mut() = hook;
        }
        (Slot::Tools(slots), PluginKind::Tool) => {
            let loaded =
                setup::tool_plugins(engine, &one, workspace, &env).map_err(|e| e.to_string())?;
            let (plugin, _) = loaded.into_iter().next().ok_or("no tool was loaded")?;
            let mut fresh = plugin.tools();
            let mut was: Vec<&str> = slots.iter().map(|(name, _)| name.as_str()).collect();
            let mut now: Vec<String> = fresh.iter().map(|t| t.spec().name).collect();
            was.sort_unstable();
            now.sort_unstable();
            if was != now {
                return Err(format!(
                    "its tools changed ({} before, {} now): restart the chat to offer them",
                    was.join(", "),
                    now.join(", ")
                ));
            }
            for (name, slot) in slots {
                if let Some(at) = fresh.iter().position(|t| &t.spec().name == name) {
                    *slot.lock().unwrap_or_else(PoisonError::into_inner) = fresh.swap_remove(at);
                }
            }
        }
        _ => return Err("its kind changed: restart the chat".into()),
    }
    Ok(())
}

/// An interceptor whose instance a rebuild replaces.
struct SwapInterceptor {
    name: String,
    slot: InterceptorSlot,
}

impl Interceptor for SwapInterceptor {
    fn name(&self) -> &str {
        &self.name
    }

    fn sha256(&self) -> Option<String> {
        self.slot.borrow().sha256()
    }

    fn on_prompt_submit(
        &mut self,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginFailure> {
        self.slot.borrow_mut().on_prompt_submit(prompt)
    }

    fn pre_llm_request(&mut self, request: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        self.slot.borrow_mut().pre_llm_request(request)
    }

    fn on_turn_end(&mut self, turn: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        self.slot.borrow_mut().on_turn_end(turn)
    }

    fn new_turn(&mut self) {
        self.slot.borrow_mut().new_turn();
    }

    fn on_compaction(&mut self, info: &CompactionInfo) -> Result<Vec<Item>, PluginFailure> {
        self.slot.borrow_mut().on_compaction(info)
    }

    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        self.slot.borrow_mut().pre_tool_call(call)
    }

    fn post_tool_call(
        &mut self,
        call: &ToolCall,
        output: &ToolOutput,
    ) -> Result<Vec<Item>, PluginFailure> {
        self.slot.borrow_mut().post_tool_call(call, output)
    }
}

/// A hook whose instance a rebuild replaces.
struct SwapHook {
    name: String,
    slot: HookSlot,
}

impl Hook for SwapHook {
    fn name(&self) -> &str {
        &self.name
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure> {
        self.slot.borrow_mut().on_event(event)
    }

    fn new_turn(&mut self) {
        self.slot.borrow_mut().new_turn();
    }
}

/// A plugin tool whose instance a rebuild replaces.
struct SwapTool {
    spec: ToolSpec,
    slot: ToolSlot,
}

impl Tool for SwapTool {
    fn spec(&self) -> ToolSpec {
        self.slot
            .lock()
            .map_or_else(|_| self.spec.clone(), |tool| tool.spec())
    }

    fn run(&mut self, arguments: &serde_json::Value, context: &mut ToolContext<'_>) -> ToolOutput {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .run(arguments, context)
    }

    fn new_turn(&mut self) {
        self.slot
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .new_turn();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Continues everywhere; named by `sha256`.
    struct Build(&'static str);

    impl Interceptor for Build {
        fn name(&self) -> &str {
            "dev"
        }

        fn sha256(&self) -> Option<String> {
            Some(self.0.into())
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
    }

    #[test]
    fn a_swapped_interceptor_is_named_by_the_build_in_its_slot() {
        let slot: InterceptorSlot = Rc::new(RefCell::new(Box::new(Build("aaaa"))));
        let swap = SwapInterceptor {
            name: "dev".into(),
            slot: Rc::clone(&slot),
        };
        assert_eq!(swap.sha256().as_deref(), Some("aaaa"));
        *slot.borrow_mut() = Box::new(Build("bbbb"));
        assert_eq!(swap.sha256().as_deref(), Some("bbbb"));
    }
}
