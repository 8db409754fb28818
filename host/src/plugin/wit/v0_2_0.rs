//! `warden:plugin@0.2.0`: bindings generated from `wit/released/0.2.0`
//! (every world shares the `types` and `host` interfaces generated for the interceptor world),
//! the host side of its imports (`host`, and `outgoing` for tool plugins), and its conversions:
//! the shared ones and those of what 0.2.0 adds (tool calls, tool decisions, tool specs).

use super::shared::{record_prompt_and_text_answers, wit_conversions};
use super::shared_tool::tool_conversions;
use crate::plugin::instance::world_bindings;
use crate::plugin::state::PluginState;
use crate::plugin::version::WitVersion;
use crate::plugin::world::World;

#[allow(missing_docs, clippy::all)]
mod generated {
    pub(crate) mod interceptor {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.2.0",
            world: "warden:plugin/interceptor",
            imports: { default: tracing },
        });
    }

    pub(crate) mod hook {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.2.0",
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
            path: "../wit/released/0.2.0",
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
            path: "../wit/released/0.2.0",
            world: "warden:plugin/tool",
            imports: { default: tracing },
            with: {
                "warden:plugin/types": super::interceptor::warden::plugin::types,
                "warden:plugin/host": super::interceptor::warden::plugin::host,
            },
        });
    }

    pub(crate) use interceptor::warden::plugin::{host, types};
    pub(crate) use tool::warden::plugin::outgoing;
}

use generated::hook::{Hook as HookBindings, HookPre};
use generated::interceptor::{Interceptor as InterceptorBindings, InterceptorPre};
use generated::resolver::{Resolver as ResolverBindings, ResolverPre};
use generated::tool::{Tool as ToolBindings, ToolPre};
pub(crate) use generated::{outgoing, types};

/// The 0.2.0 interceptor world.
pub(crate) type Interceptor = InterceptorBindings;
/// The 0.2.0 hook world.
pub(crate) type Hook = HookBindings;
/// The 0.2.0 resolver world.
pub(crate) type Resolver = ResolverBindings;
/// The 0.2.0 tool world.
pub(crate) type ToolWorld = ToolBindings;

world_bindings!(
    InterceptorBindings,
    InterceptorPre,
    World::Interceptor,
    WitVersion::V0_2,
    warden_plugin_intercept
);
world_bindings!(
    HookBindings,
    HookPre,
    World::Hook,
    WitVersion::V0_2,
    warden_plugin_observe
);
world_bindings!(
    ResolverBindings,
    ResolverPre,
    World::Resolver,
    WitVersion::V0_2,
    warden_plugin_resolve
);
world_bindings!(
    ToolBindings,
    ToolPre,
    World::Tool,
    WitVersion::V0_2,
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

/// The conversions of 0.2.0: the shared ones, expanded against the 0.2.0 types, and those
/// of what 0.2.0 adds (shared with 0.3.0).
pub(crate) mod convert {
    use super::types as wit;

    super::wit_conversions!();
    super::record_prompt_and_text_answers!();
    super::tool_conversions!();

    /// The 0.2.0 form of `e`; `None` only for compaction events.
    pub(crate) fn event_to_wit(e: &Event) -> Option<wit::Event> {
        tool_decided_to_wit(e).or_else(|| event_to_wit_common(e))
    }
}

#[cfg(test)]
mod tests {
    use super::convert;
    use super::types as wit;
    use crate::domain::{Event, ToolCall, ToolDecision};

    #[test]
    fn tool_decisions_reach_0_2_hooks_only() {
        let event = Event::ToolDecided {
            call: ToolCall {
                id: "c".into(),
                name: "grep".into(),
                arguments: serde_json::json!({"pattern": "x"}),
            },
            by: "plugin:guard".into(),
            decision: ToolDecision::Deny("no".into()),
        };
        match convert::event_to_wit(&event) {
            Some(wit::Event::ToolDecided(d)) => {
                assert_eq!(d.by, "plugin:guard");
                assert_eq!(d.call.arguments, r#"{"pattern":"x"}"#);
                assert!(matches!(d.action, wit::ToolAction::Deny(r) if r == "no"));
            }
            other => panic!("{other:?}"),
        }
        assert!(crate::plugin::wit::v0_1_0::convert::event_to_wit(&event).is_none());
    }

    /// The reused WIT prompt is, after every call, exactly the fresh conversion: more items,
    /// fewer items, another kind of item at the same place, an empty prompt, and a prompt over
    /// the size the thread keeps.
    #[test]
    fn a_reused_prompt_is_the_fresh_conversion_each_time() {
        use crate::domain::{Item, SubmittedPrompt};
        let prompt = |text: &str, items: Vec<Item>| SubmittedPrompt {
            session: format!("s-{}", text.len()),
            text: text.to_owned(),
            items,
        };
        let sequence = [
            prompt("first", vec![Item::user("first"), Item::system("file a")]),
            prompt(
                "longer second prompt",
                vec![Item::user("longer second prompt")],
            ),
            prompt(
                "third",
                vec![
                    Item::assistant("not a user item"),
                    Item::system("b"),
                    Item::user("c"),
                ],
            ),
            prompt("", Vec::new()),
            prompt(
                &"x".repeat(100 << 10),
                vec![Item::user("x".repeat(100 << 10))],
            ),
            prompt("after", vec![Item::system("s"), Item::user("after")]),
        ];
        for p in &sequence {
            let fresh = format!("{:?}", convert::prompt_to_wit(p));
            let reused = convert::with_prompt(p, |w| format!("{w:?}"));
            assert_eq!(reused, fresh);
        }
        // A nested call (the thread's value is in use) converts afresh.
        let outer = &sequence[0];
        let inner = &sequence[2];
        let (a, b) = convert::with_prompt(outer, |o| {
            let b = convert::with_prompt(inner, |i| format!("{i:?}"));
            (format!("{o:?}"), b)
        });
        assert_eq!(a, format!("{:?}", convert::prompt_to_wit(outer)));
        assert_eq!(b, format!("{:?}", convert::prompt_to_wit(inner)));
    }

    #[test]
    fn rewritten_arguments_must_be_a_json_object_within_the_cap() {
        let rewrite =
            |s: &str| convert::tool_action_from_wit(wit::ToolAction::Rewrite(s.into()), 64);
        assert_eq!(
            rewrite(r#"{"path":"b"}"#),
            Ok(ToolDecision::Rewrite(serde_json::json!({"path": "b"})))
        );
        assert!(rewrite("[1]").is_err_and(|e| e.contains("not a JSON object")));
        assert!(rewrite("{").is_err_and(|e| e.contains("not JSON")));
        assert!(
            rewrite(&format!(r#"{{"p":"{}"}}"#, "x".repeat(100)))
                .is_err_and(|e| e.contains("over the cap"))
        );
        let deny = convert::tool_action_from_wit(wit::ToolAction::Deny("a\u{1b}[31mb".into()), 64);
        assert!(matches!(deny, Ok(ToolDecision::Deny(r)) if !r.contains('\u{1b}')));
        assert!(convert::tool_action_from_wit(wit::ToolAction::Deny("x".repeat(65)), 64).is_err());
    }
}
