//! `warden:plugin@0.2.0` components, built before 0.3.0 existed (`tests/fixtures/v0.2.0`),
//! load under this host and behave exactly as before: the resolver serves `@` refs and the
//! file tools (its content a `string`), the interceptors continue, cancel and add context (the
//! prompt sent as a record), the hook counts events; the compaction point 0.2.0 lacks adds
//! nothing and 0.2.0 hooks are not sent compaction events.

use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use warden::domain::{
    CompactionInfo, CompactionMarker, Event, Hook, Interceptor, Item, PromptDecision,
    SubmittedPrompt, ToolCall, ToolDecision, ToolOutput,
};
use warden::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, WitVersion,
};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

fn frozen(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join("v0.2.0")
        .join(file)
}

fn config(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

fn prompt(text: &str) -> SubmittedPrompt {
    SubmittedPrompt {
        session: "s".into(),
        text: text.into(),
        items: vec![Item::user(text)],
    }
}

fn interceptor(engine: &PluginEngine, file: &str, pairs: &[(&str, &str)]) -> InterceptorPlugin {
    InterceptorPlugin::load(
        engine,
        file,
        &frozen(file),
        None,
        Limits::default(),
        config(pairs),
    )
    .unwrap()
}

#[test]
fn plugin_check_names_version_0_2_0_for_every_frozen_component() {
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
        assert!(text.contains("api:      warden:plugin@0.2.0"), "{text}");
        assert!(text.contains(&format!("world:    {world}")), "{text}");
    }
}

#[test]
fn frozen_interceptors_decide_as_before_and_add_nothing_to_a_compaction() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let mut kw = interceptor(
        &engine,
        "keyword_context.wasm",
        &[("word", "deploy"), ("context", "Deploys go through CI.")],
    );
    assert_eq!(kw.version(), WitVersion::V0_2);
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
    // 0.2.0 has tool-call points (the sample allows and adds nothing) and no compaction point.
    let call = ToolCall {
        id: "c1".into(),
        name: "write_file".into(),
        arguments: json!({"path": "a.txt"}),
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
    let info = CompactionInfo {
        session: "s".into(),
        replaces: CompactionMarker { from: 1, to: 4 },
        summary: "we deploy on friday".into(),
        files: Vec::new(),
    };
    assert!(
        Interceptor::on_compaction(&mut kw, &info)
            .unwrap()
            .is_empty()
    );
}

#[test]
fn a_frozen_hook_takes_tool_decisions_and_is_not_sent_compactions() {
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
    assert_eq!(hook.info().version, "0.2.0");
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
    let compacted = Event::Compacted {
        from: 1,
        to: 4,
        items: 3,
    };
    Hook::on_event(&mut hook, &compacted).unwrap();
    Hook::on_event(&mut hook, &Event::TurnEnded("done".into())).unwrap();
}

/// The frozen resolver, hook and todo-reminder in one run through the binary: an `@` ref, the
/// model's `read_file` and `list_files`, a reminder item, and the hook's count at turn end.
#[test]
fn frozen_resolver_hook_and_reminder_serve_a_whole_turn() {
    let env = TestEnv::new();
    env.write("notes/todo.md", "1. write tests\n2. ship\n");
    env.write("a.txt", "alpha\n");
    env.project_config(&format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n\
         [fileref]\nresolver = {:?}\n\n\
         [[plugins]]\nname = \"counter\"\nkind = \"hook\"\npath = {:?}\n\n\
         [[plugins]]\nname = \"todo\"\nkind = \"interceptor\"\npath = {:?}\n[plugins.config]\ntasks = \"ship it\"\n",
        frozen("file_ref.wasm"),
        frozen("event_counter.wasm"),
        frozen("todo_reminder.wasm"),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Let me look.",
        &[
            ("call_1", "read_file", json!({"path": "notes/todo.md"})),
            ("call_2", "list_files", json!({"path": "notes"})),
        ],
    ));
    server.push(Reply::text("Done."));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("WARDEN_LOG", "info")
        .args(["run", "--json", "look at @a.txt"]);
    let out = output_within(cmd, HANG_LIMIT);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(0), "{err}");
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["answer"], "Done.");

    let first = &server.requests()[0].body["messages"];
    assert!(
        first.to_string().contains("[File: a.txt]\\nalpha\\n"),
        "{first}"
    );
    assert!(first.to_string().contains("ship it"), "{first}");
    let second = server.requests()[1].body["messages"].clone();
    let tools: Vec<&Value> = second
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .collect();
    assert_eq!(tools.len(), 2, "{second}");
    assert!(
        tools[0]["content"]
            .as_str()
            .unwrap()
            .contains("1. write tests")
    );
    assert!(tools[1]["content"].as_str().unwrap().contains("todo.md"));
    assert!(err.contains("event counts:"), "{err}");
    assert!(err.contains("turn-ended=1"), "{err}");
}
