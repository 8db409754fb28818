//! `warden:plugin@0.3.0`, the latest version: bindings generated from `wit/released/0.3.0`
//! (every world shares the `types` and `host` interfaces generated for the interceptor world),
//! the host side of its imports (`host`, `prompts` for interceptors, `outgoing` for tool
//! plugins), and its conversions: the shared ones, the tool ones it shares with 0.2.0, and
//! what 0.3.0 changes: the prompt lent to `on-prompt-submit` (a borrowed `prompt` resource the
//! guest reads on demand), the `on-compaction` point and `compacted` event, and resolver
//! answers whose content is bytes the host checks once.

use wasmtime::component::Resource;

use super::shared::wit_conversions;
use super::shared_tool::tool_conversions;
use crate::plugin::instance::world_bindings;
use crate::plugin::lent::LentPrompt;
use crate::plugin::state::PluginState;
use crate::plugin::version::WitVersion;
use crate::plugin::world::World;

#[allow(missing_docs, clippy::all)]
mod generated {
    pub(crate) mod interceptor {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.3.0",
            world: "warden:plugin/interceptor",
            // No span per import call: the lent prompt's methods are the hot path of
            // `on-prompt-submit`, and `host.log` records its own line.
            with: {
                "warden:plugin/prompts.prompt": crate::plugin::lent::LentPrompt,
            },
        });
    }

    pub(crate) mod hook {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.3.0",
            world: "warden:plugin/hook",
            imports: { default: tracing },
            with: {
                "warden:plugin/types": super::interceptor::warden::plugin::types,
                "warden:plugin/host": super::interceptor::warden::plugin::host,
            },
        });
    }

    pub(crate) mod resolver {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.3.0",
            world: "warden:plugin/resolver",
            imports: { default: tracing },
            with: {
                "warden:plugin/types": super::interceptor::warden::plugin::types,
                "warden:plugin/host": super::interceptor::warden::plugin::host,
            },
        });
    }

    pub(crate) mod tool {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.3.0",
            world: "warden:plugin/tool",
            imports: { default: tracing },
            with: {
                "warden:plugin/types": super::interceptor::warden::plugin::types,
                "warden:plugin/host": super::interceptor::warden::plugin::host,
            },
        });
    }

    pub(crate) use interceptor::warden::plugin::{host, prompts, types};
    pub(crate) use tool::warden::plugin::outgoing;
}

use generated::hook::{Hook as HookBindings, HookPre};
use generated::interceptor::{Interceptor as InterceptorBindings, InterceptorPre};
use generated::resolver::{Resolver as ResolverBindings, ResolverPre};
use generated::tool::{Tool as ToolBindings, ToolPre};
pub(crate) use generated::{outgoing, types};

/// The 0.3.0 interceptor world.
pub(crate) type Interceptor = InterceptorBindings;
/// The 0.3.0 hook world.
pub(crate) type Hook = HookBindings;
/// The 0.3.0 resolver world.
pub(crate) type Resolver = ResolverBindings;
/// The 0.3.0 tool world.
pub(crate) type ToolWorld = ToolBindings;

world_bindings!(
    InterceptorBindings,
    InterceptorPre,
    World::Interceptor,
    WitVersion::V0_3,
    warden_plugin_intercept
);
world_bindings!(
    HookBindings,
    HookPre,
    World::Hook,
    WitVersion::V0_3,
    warden_plugin_observe
);
world_bindings!(
    ResolverBindings,
    ResolverPre,
    World::Resolver,
    WitVersion::V0_3,
    warden_plugin_resolve
);
world_bindings!(
    ToolBindings,
    ToolPre,
    World::Tool,
    WitVersion::V0_3,
    warden_plugin_act
);

impl generated::types::Host for PluginState {}

impl generated::host::Host for PluginState {
    fn log(&mut self, level: generated::types::LogLevel, message: String) {
        use generated::types::LogLevel;
        let level = match level {
            LogLevel::Trace => tracing::Level::TRACE,
            LogLevel::Debug => tracing::Level::DEBUG,
            LogLevel::Info => tracing::Level::INFO,
            LogLevel::Warn => tracing::Level::WARN,
            LogLevel::Error => tracing::Level::ERROR,
        };
        self.guest_log(level, message);
    }
}

impl generated::outgoing::Host for PluginState {
    fn fetch(&mut self, request: outgoing::HttpRequest) -> Result<outgoing::HttpResponse, String> {
        let answer = self.outgoing.fetch(crate::plugin::outgoing::Request {
            method: request.method,
            url: request.url,
            headers: request.headers,
            body: request.body,
        });
        answer.map(|r| outgoing::HttpResponse {
            status: r.status,
            headers: r.headers,
            body: r.body,
        })
    }
}

impl generated::prompts::Host for PluginState {}

/// The lent prompt's methods. The handle is a borrow the host made for one call; the guest
/// cannot keep it (the component model ends the borrow with the call), so every method reads
/// the prompt of the call in progress.
impl generated::prompts::HostPrompt for PluginState {
    fn session(&mut self, _: Resource<LentPrompt>) -> String {
        self.lent.session().to_owned()
    }

    fn text(&mut self, _: Resource<LentPrompt>) -> String {
        self.lent.text().to_owned()
    }

    fn len(&mut self, _: Resource<LentPrompt>) -> u32 {
        self.lent.len()
    }

    fn find(&mut self, _: Resource<LentPrompt>, needle: String) -> Option<u32> {
        self.lent.find(&needle)
    }

    fn items(&mut self, _: Resource<LentPrompt>) -> Vec<types::Item> {
        self.lent.items().iter().map(convert::item_to_wit).collect()
    }

    fn drop(&mut self, _: Resource<LentPrompt>) -> wasmtime::Result<()> {
        // Only borrows are ever handed out; there is nothing to free.
        Ok(())
    }
}

/// The conversions of 0.3.0.
pub(crate) mod convert {
    use super::types as wit;
    use crate::domain::{CompactionInfo, SubmittedPrompt};

    super::wit_conversions!();
    super::tool_conversions!();

    /// The 0.3.0 form of `e`: every event has a case.
    pub(crate) fn event_to_wit(e: &Event) -> Option<wit::Event> {
        if let Event::Compacted { from, to, items } = e {
            return Some(wit::Event::Compacted(wit::CompactionStats {
                replaces: wit::HistoryRange {
                    first: *from,
                    last: *to,
                },
                items: *items,
            }));
        }
        tool_decided_to_wit(e).or_else(|| event_to_wit_common(e))
    }

    /// `on-prompt-submit`: the prompt is copied into the store and lent to the guest as a
    /// borrowed `prompt`, which it reads on demand.
    pub(crate) fn on_prompt_submit(
        m: &mut Managed<super::Interceptor>,
        prompt: &SubmittedPrompt,
    ) -> Result<PromptDecision, PluginError> {
        let action = m.call(
            crate::domain::CallPoint::OnPromptSubmit.name(),
            |b, store| {
                store.data_mut().lent.lend(prompt);
                let lent = wasmtime::component::Resource::new_borrow(0);
                let action = b
                    .warden_plugin_intercept()
                    .call_on_prompt_submit(&mut *store, lent);
                store.data_mut().lent.end();
                action
            },
        )?;
        Ok(prompt_action_from_wit(action))
    }

    /// `on-compaction`: the items the plugin commits with the compaction group.
    pub(crate) fn on_compaction(
        m: &mut Managed<super::Interceptor>,
        info: &CompactionInfo,
    ) -> Result<Vec<Item>, PluginError> {
        let arg = wit::CompactionInfo {
            session: info.session.clone(),
            replaces: wit::HistoryRange {
                first: info.replaces.from,
                last: info.replaces.to,
            },
            summary: info.summary.clone(),
            files: info.files.clone(),
        };
        let items = m.call(crate::domain::CallPoint::Compaction.name(), |b, store| {
            b.warden_plugin_intercept().call_on_compaction(store, &arg)
        })?;
        Ok(items.into_iter().map(item_from_wit).collect())
    }

    /// The content of a resolver's answer as text: valid UTF-8, or the answer is refused.
    fn text_of(content: Vec<u8>) -> Result<String, String> {
        String::from_utf8(content).map_err(|err| {
            format!(
                "content is not valid UTF-8 (at byte {})",
                err.utf8_error().valid_up_to()
            )
        })
    }

    /// A resolved reference as the host's, its content checked as UTF-8 once.
    pub(crate) fn resolved_from_wit(r: wit::Resolved) -> Result<Resolved, String> {
        Ok(Resolved {
            path: r.path,
            kind: match r.kind {
                wit::EntryKind::File => EntryKind::File,
                wit::EntryKind::Directory => EntryKind::Directory,
            },
            content: text_of(r.content)?,
            total_bytes: r.total_bytes,
            truncated: r.truncated,
        })
    }

    /// A file chunk as the host's, its content checked as UTF-8 once.
    pub(crate) fn chunk_from_wit(c: wit::FileChunk) -> Result<FileChunk, String> {
        Ok(FileChunk {
            path: c.path,
            content: text_of(c.content)?,
            first_line: c.first_line,
            lines: c.lines,
            total_lines: c.total_lines,
            more: c.more,
        })
    }

    impl crate::plugin::resolver_caps::ContentAnswer for wit::Resolved {
        fn path(&self) -> &str {
            &self.path
        }
        fn content_len(&self) -> usize {
            self.content.len()
        }
    }

    impl crate::plugin::resolver_caps::ContentAnswer for wit::FileChunk {
        fn path(&self) -> &str {
            &self.path
        }
        fn content_len(&self) -> usize {
            self.content.len()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::convert;
    use super::types as wit;
    use crate::domain::Event;

    #[test]
    fn compaction_events_reach_0_3_hooks_only() {
        let event = Event::Compacted {
            from: 1,
            to: 9,
            items: 4,
        };
        match convert::event_to_wit(&event) {
            Some(wit::Event::Compacted(stats)) => {
                assert_eq!((stats.replaces.first, stats.replaces.last), (1, 9));
                assert_eq!(stats.items, 4);
            }
            other => panic!("{other:?}"),
        }
        assert!(crate::plugin::wit::v0_2_0::convert::event_to_wit(&event).is_none());
    }

    #[test]
    fn resolver_content_must_be_utf8() {
        let answer = |content: Vec<u8>| wit::Resolved {
            path: "a.txt".into(),
            kind: wit::EntryKind::File,
            content,
            total_bytes: 3,
            truncated: false,
        };
        let ok = convert::resolved_from_wit(answer("héllo".as_bytes().to_vec()));
        assert_eq!(ok.map(|r| r.content), Ok("héllo".to_owned()));
        let bad = convert::resolved_from_wit(answer(vec![b'a', b'b', 0xff, b'c']));
        assert_eq!(
            bad.map(|r| r.content),
            Err("content is not valid UTF-8 (at byte 2)".to_owned())
        );
        let chunk = convert::chunk_from_wit(wit::FileChunk {
            path: "a".into(),
            content: vec![0xc3],
            first_line: 1,
            lines: 1,
            total_lines: 1,
            more: false,
        });
        assert!(chunk.is_err_and(|e| e.contains("not valid UTF-8")));
    }
}
