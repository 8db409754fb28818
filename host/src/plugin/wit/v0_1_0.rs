//! `warden:plugin@0.1.0`: its bindings, generated from the frozen `wit/released/0.1.0` (the
//! hook and resolver worlds reuse the `types` and `host` interfaces generated for the
//! interceptor world, so one set of conversions serves all three), the host side of its `host`
//! import, and its conversions. 0.1.0 has no tool world, no `pre-tool-call`/`post-tool-call`
//! and no tool-decision event: the adapters give those points their defaults (allow, nothing,
//! not delivered).

use super::shared::{record_prompt_and_text_answers, wit_conversions};
use crate::plugin::instance::world_bindings;
use crate::plugin::state::PluginState;
use crate::plugin::version::WitVersion;
use crate::plugin::world::World;

#[allow(missing_docs, clippy::all)]
mod generated {
    pub(crate) mod interceptor {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.1.0",
            world: "warden:plugin/interceptor",
            imports: { default: tracing },
        });
    }

    pub(crate) mod hook {
        wasmtime::component::bindgen!({
            path: "../wit/released/0.1.0",
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
            path: "../wit/released/0.1.0",
            world: "warden:plugin/resolver",
            imports: { default: tracing },
            with: {
                "warden:plugin/types": super::interceptor::warden::plugin::types,
                "warden:plugin/host": super::interceptor::warden::plugin::host,
            },
        });
    }

    pub(crate) use interceptor::warden::plugin::{host, types};
}

use generated::hook::{Hook as HookBindings, HookPre};
use generated::interceptor::{Interceptor as InterceptorBindings, InterceptorPre};
use generated::resolver::{Resolver as ResolverBindings, ResolverPre};
pub(crate) use generated::types;

/// The 0.1.0 interceptor world.
pub(crate) type Interceptor = InterceptorBindings;
/// The 0.1.0 hook world.
pub(crate) type Hook = HookBindings;
/// The 0.1.0 resolver world.
pub(crate) type Resolver = ResolverBindings;

world_bindings!(
    InterceptorBindings,
    InterceptorPre,
    World::Interceptor,
    WitVersion::V0_1,
    warden_plugin_intercept
);
world_bindings!(
    HookBindings,
    HookPre,
    World::Hook,
    WitVersion::V0_1,
    warden_plugin_observe
);
world_bindings!(
    ResolverBindings,
    ResolverPre,
    World::Resolver,
    WitVersion::V0_1,
    warden_plugin_resolve
);

impl generated::types::Host for PluginState {}

impl generated::host::Host for PluginState {
    fn log(&mut self, level: types::LogLevel, message: String) {
        let level = match level {
            types::LogLevel::Trace => tracing::Level::TRACE,
            types::LogLevel::Debug => tracing::Level::DEBUG,
            types::LogLevel::Info => tracing::Level::INFO,
            types::LogLevel::Warn => tracing::Level::WARN,
            types::LogLevel::Error => tracing::Level::ERROR,
        };
        self.guest_log(level, message);
    }
}

/// The conversions of 0.1.0: the shared ones, expanded against the 0.1.0 types.
pub(crate) mod convert {
    use super::types as wit;

    super::wit_conversions!();
    super::record_prompt_and_text_answers!();

    /// The 0.1.0 form of `e`; `None` for events 0.1.0 has no case for (compaction, tool
    /// decisions).
    pub(crate) fn event_to_wit(e: &Event) -> Option<wit::Event> {
        event_to_wit_common(e)
    }

    /// 0.1.0 has no `pre-tool-call`: every call is allowed.
    pub(crate) fn pre_tool_call(
        _: &mut crate::plugin::instance::Managed<super::Interceptor>,
        _: &ToolCall,
        _: usize,
    ) -> Result<Result<crate::domain::ToolDecision, String>, crate::plugin::error::PluginError>
    {
        Ok(Ok(crate::domain::ToolDecision::Allow))
    }

    /// 0.1.0 has no `post-tool-call`: nothing is added.
    pub(crate) fn post_tool_call(
        _: &mut crate::plugin::instance::Managed<super::Interceptor>,
        _: &ToolCall,
        _: &crate::domain::ToolOutput,
    ) -> Result<Vec<Item>, crate::plugin::error::PluginError> {
        Ok(Vec::new())
    }
}

#[cfg(test)]
mod tests {
    use super::types as wit;
    use crate::plugin::limits::MAX_PLUGIN_STRING;
    use crate::plugin::resolver_caps::{check_error, check_listing, check_resolved};

    fn listing(n: usize) -> wit::Listing {
        wit::Listing {
            path: "d".into(),
            entries: (0..n).map(|i| format!("f{i}")).collect(),
            truncated: false,
        }
    }

    #[test]
    fn answers_over_a_cap_are_refused() {
        assert!(check_listing(&listing(200), 200, 1 << 20).is_ok());
        let msg = check_listing(&listing(60_000), 200, 1 << 20)
            .err()
            .unwrap_or_default();
        assert!(
            msg.contains("60000 entries, over the requested 200"),
            "{msg}"
        );
        let big = wit::Resolved {
            path: "a".into(),
            kind: wit::EntryKind::File,
            content: "x".repeat(2 << 20),
            total_bytes: 2 << 20,
            truncated: false,
        };
        assert!(check_resolved(&big, 16384, 1 << 20).is_err());
        let fits = wit::Resolved {
            content: "x".repeat(16384 + 100),
            ..big
        };
        assert!(check_resolved(&fits, 16384, 1 << 20).is_ok());
        let long = wit::ResolveError::Io("e".repeat(MAX_PLUGIN_STRING + 1));
        assert!(check_error(&long).is_err());
        assert!(check_error(&wit::ResolveError::NotFound("short".into())).is_ok());
    }
}
