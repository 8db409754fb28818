//! Paths of the components built by `build.rs`.

use std::path::PathBuf;

macro_rules! fixture {
    ($fn:ident, $var:literal) => {
        #[doc = concat!("Component built from the guest behind `", $var, "`.")]
        pub fn $fn() -> PathBuf {
            PathBuf::from(env!($var))
        }
    };
}

fixture!(hostile, "WARDEN_FIXTURE_HOSTILE_WASM");
fixture!(hostile_hook, "WARDEN_FIXTURE_HOSTILE_HOOK_WASM");
fixture!(hostile_resolver, "WARDEN_FIXTURE_HOSTILE_RESOLVER_WASM");
fixture!(future_version, "WARDEN_FIXTURE_FUTURE_VERSION_WASM");
fixture!(other_world, "WARDEN_FIXTURE_OTHER_WORLD_WASM");
fixture!(keyword_context, "WARDEN_FIXTURE_KEYWORD_CONTEXT_WASM");
fixture!(pattern_guard, "WARDEN_FIXTURE_PATTERN_GUARD_WASM");
fixture!(event_counter, "WARDEN_FIXTURE_EVENT_COUNTER_WASM");
fixture!(file_ref, "WARDEN_FIXTURE_FILE_REF_WASM");
fixture!(leaky_resolver, "WARDEN_FIXTURE_LEAKY_RESOLVER_WASM");
fixture!(todo_reminder, "WARDEN_FIXTURE_TODO_REMINDER_WASM");
fixture!(grep_tool, "WARDEN_FIXTURE_GREP_TOOL_WASM");
fixture!(edit_tool, "WARDEN_FIXTURE_EDIT_TOOL_WASM");
fixture!(tool_guard, "WARDEN_FIXTURE_TOOL_GUARD_WASM");
fixture!(hostile_tool, "WARDEN_FIXTURE_HOSTILE_TOOL_WASM");
fixture!(bytes_resolver, "WARDEN_FIXTURE_BYTES_RESOLVER_WASM");
