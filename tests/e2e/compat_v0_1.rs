//! `warden:plugin@0.1.0` components, built before 0.2.0 existed (`tests/fixtures/v0.1.0`),
//! load under this host and behave exactly as before: the resolver serves `@` refs and the
//! file tools, the interceptors continue, cancel and add context, the hook counts events; the
//! tool-call points 0.1.0 lacks get their defaults (allow, nothing) and 0.1.0 hooks are not
//! sent tool decisions.

use std::path::PathBuf;

use serde_json::json;
use warden::domain::{
    Event, Hook, Interceptor, Item, PromptDecision, ToolCall, ToolDecision, ToolOutput,
};
use warden::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, WitVersion,
};

use crate::compat_common::{self, prompt};
use crate::support::{TestEnv, stderr, stdout};

const VERSION: &str = "v0.1.0";

fn frozen(file: &str) -> PathBuf {
    compat_common::frozen(VERSION, file)
}

fn interceptor(engine: &PluginEngine, file: &str, pairs: &[(&str, &str)]) -> InterceptorPlugin {
    compat_common::interceptor(engine, VERSION, file, pairs)
}

#[test]
fn plugin_check_names_version_0_1_0_for_every_frozen_component() {
    let env = TestEnv::new();
    for (file, world) in [
        ("file_ref.wasm", "resolver"),
        ("keyword_context.wasm", "interceptor"),
        ("pattern_guard.wasm", "interceptor"),
        ("event_counter.wasm", "hook"),
        ("todo_reminder.wasm", "interceptor"),
    ] {
        let out = env.run(&["plugin", "check", frozen(file).to_str().unwrap()]);
        assert_eq!(out.status.code(), Some(0), "{file}: {}", stderr(&out));
        let text = stdout(&out);
        assert!(text.contains("api:         warden:plugin@0.1.0"), "{text}");
        assert!(text.contains(&format!("world:       {world}")), "{text}");
    }
}

#[test]
fn frozen_interceptors_decide_as_before_and_allow_every_tool_call() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let mut kw = interceptor(
        &engine,
        "keyword_context.wasm",
        &[("word", "deploy"), ("context", "Deploys go through CI.")],
    );
    assert_eq!(kw.version(), WitVersion::V0_1);
    assert_eq!(
        kw.on_prompt_submit(&prompt("hello")).unwrap(),
        PromptDecision::Continue
    );
    assert_eq!(
        kw.on_prompt_submit(&prompt("how do I deploy?")).unwrap(),
        PromptDecision::ContinueWith(vec![Item::system("Deploys go through CI.")])
    );

    let mut guard = interceptor(
        &engine,
        "pattern_guard.wasm",
        &[("pattern", "DROP TABLE"), ("reason", "no SQL drops")],
    );
    assert_eq!(
        guard
            .on_prompt_submit(&prompt("please drop table users"))
            .unwrap(),
        PromptDecision::Cancel("no SQL drops".into())
    );
    // 0.1.0 has no tool-call points: every call is allowed and nothing is added after it.
    let call = ToolCall {
        id: "c1".into(),
        name: "write_file".into(),
        arguments: json!({"path": "DROP TABLE"}),
    };
    assert_eq!(
        Interceptor::pre_tool_call(&mut guard, &call).unwrap(),
        ToolDecision::Allow
    );
    assert!(
        Interceptor::post_tool_call(&mut guard, &call, &ToolOutput::ok("done"))
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_frozen_hook_is_not_sent_tool_decisions() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let mut hook = HookPlugin::load(
        &engine,
        "counter",
        &frozen("event_counter.wasm"),
        None,
        Limits::default(),
        Vec::new(),
    )
    .unwrap();
    assert_eq!(hook.info().version, "0.1.0");
    let decided = Event::ToolDecided {
        call: ToolCall {
            id: "c1".into(),
            name: "grep".into(),
            arguments: json!({}),
        },
        by: "default".into(),
        decision: ToolDecision::Allow,
    };
    Hook::on_event(&mut hook, &decided).unwrap();
    Hook::on_event(&mut hook, &Event::TurnEnded("done".into())).unwrap();
}

/// The frozen resolver, hook and todo-reminder in one run through the binary.
#[test]
fn frozen_resolver_hook_and_reminder_serve_a_whole_turn() {
    compat_common::frozen_resolver_hook_and_reminder_serve_a_whole_turn(VERSION);
}
