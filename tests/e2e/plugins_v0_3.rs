//! `warden:plugin@0.3.0` through the real binary and the plugin host: an interceptor's
//! `on-compaction` item is committed with the compaction group and a hook is told of the
//! compaction; the lent prompt, read on demand, decides exactly as the copied prompt of 0.1.0
//! did; a resolver answering bytes that are not UTF-8 fails with a clear error.

use std::path::Path;

use pretty_assertions::assert_eq;
use serde_json::Value;
use warden::domain::{
    CompactionInfo, CompactionMarker, Interceptor, Item, PromptDecision, ResolveRequest,
    SubmittedPrompt,
};
use warden::plugin::{
    EngineOptions, InterceptorPlugin, Limits, PluginEngine, PluginError, RESOLVER_LIMITS,
    ResolverPlugin, ResolverSource, WitVersion,
};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry as entry, stderr, stdout};

const SESSION: &str = "s-v03";
const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";
const SUMMARY: &str = "SUMMARY: the person asked how to deploy a.txt.";

fn warden(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_BASE_URL", server.openai_url())
        .env("OPENAI_API_KEY", "sk-test")
        .env("WARDEN_LOG", "warden::plugin::guest=info")
        .args(args);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "stderr: {}", stderr(&out));
    out
}

/// `(source, role, text)` of every item `session export ARGS` shows.
fn transcript(env: &TestEnv, extra: &[&str]) -> Vec<(String, String, String)> {
    let mut args = vec!["session", "export"];
    args.extend_from_slice(extra);
    args.push(SESSION);
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let items: Vec<Value> = serde_json::from_str(&stdout(&out)).expect("export is JSON");
    items
        .iter()
        .map(|i| {
            let s = |k: &str| i[k].as_str().unwrap_or_default().to_owned();
            (s("source"), s("role"), s("text"))
        })
        .collect()
}

fn row(source: &str, role: &str, text: &str) -> (String, String, String) {
    (source.to_owned(), role.to_owned(), text.to_owned())
}

#[test]
fn an_interceptor_adds_an_item_to_the_compaction_and_a_hook_is_told() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}{}",
        entry(
            "interceptor",
            "kw",
            &fixtures::keyword_context(),
            "",
            &[("word", "deploy"), ("context", "Deploys go through CI.")]
        ),
        entry("hook", "counter", &fixtures::event_counter(), "", &[]),
    ));
    env.write("a.txt", "alpha\n");
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("Read a."));
    warden(
        &env,
        &server,
        &["run", env.session_flag(SESSION), SESSION, "Read @a.txt"],
    );
    server.push(Reply::text(SUMMARY));
    let out = warden(&env, &server, &["compact", SESSION]);
    let err = stderr(&out);
    assert!(
        err.contains("compacted: history 1-3 replaced by 4 items"),
        "the hook is told of the compaction: {err}"
    );

    let all = transcript(&env, &[]);
    assert_eq!(
        all,
        [
            row("user", "user", "Read @a.txt"),
            row("fileref", "system", "[File: a.txt]\nalpha\n"),
            row("provider", "assistant", "Read a."),
            row(
                "compaction",
                "system",
                "[compaction: items 1–3 are replaced by the summary below]"
            ),
            row(
                "compaction",
                "system",
                &format!("[Summary of the conversation before compaction]\n{SUMMARY}")
            ),
            row("fileref", "system", "[File: a.txt]\nalpha\n"),
            row("plugin:kw", "system", "Deploys go through CI."),
        ]
    );
}

fn prompt(text: &str, items: Vec<Item>) -> SubmittedPrompt {
    SubmittedPrompt {
        session: "s".into(),
        text: text.into(),
        items,
    }
}

fn interceptor(engine: &PluginEngine, path: &Path, pairs: &[(&str, &str)]) -> InterceptorPlugin {
    let config = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    InterceptorPlugin::load(engine, "p", path, None, Limits::default(), config).unwrap()
}

/// The 0.3.0 samples read the lent prompt on demand (keyword-context asks the host to search,
/// pattern-guard reads the text and the items) and decide exactly as their 0.1.0 builds, which
/// were sent the whole prompt.
#[test]
fn the_lent_prompt_decides_as_the_copied_one() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let frozen = |file: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/v0.1.0")
            .join(file)
    };
    let kw_config = [("word", "déploy"), ("context", "Deploys go through CI.")];
    let guard_config = [("pattern", "DROP TABLE"), ("reason", "no SQL drops")];
    let mut pairs = [
        (
            interceptor(&engine, &fixtures::keyword_context(), &kw_config),
            interceptor(&engine, &frozen("keyword_context.wasm"), &kw_config),
        ),
        (
            interceptor(&engine, &fixtures::pattern_guard(), &guard_config),
            interceptor(&engine, &frozen("pattern_guard.wasm"), &guard_config),
        ),
    ];
    for (new, old) in &pairs {
        assert_eq!(new.version(), WitVersion::V0_3);
        assert_eq!(old.version(), WitVersion::V0_1);
    }
    let big = format!("{} déploy", "x".repeat(200 << 10));
    let prompts = [
        prompt("", Vec::new()),
        prompt("hello", vec![Item::user("hello")]),
        prompt("how do I déploy?", vec![Item::user("how do I déploy?")]),
        prompt("how do I deploy?", vec![Item::user("how do I deploy?")]),
        prompt(
            "see @a.sql",
            vec![
                Item::user("see @a.sql"),
                Item::system("[File: a.sql]\nplease drop table users\n"),
            ],
        ),
        prompt(&big, vec![Item::user(big.clone())]),
        prompt("après", vec![Item::user("après")]),
    ];
    let mut decided = 0;
    for p in &prompts {
        for (new, old) in &mut pairs {
            let a = new.on_prompt_submit(p).unwrap();
            let b = old.on_prompt_submit(p).unwrap();
            assert_eq!(a, b, "{:.40}", p.text);
            decided += usize::from(a != PromptDecision::Continue);
        }
    }
    assert_eq!(decided, 3, "the word twice, the guard once");

    // At compaction the 0.3.0 sample adds its context when the summary names the word; the
    // 0.1.0 build has no such point and adds nothing.
    let info = |summary: &str| CompactionInfo {
        session: "s".into(),
        replaces: CompactionMarker { from: 1, to: 4 },
        summary: summary.into(),
        files: vec!["a.txt".into()],
    };
    let (new, old) = &mut pairs[0];
    assert_eq!(
        Interceptor::on_compaction(new, &info("we déploy on friday")).unwrap(),
        vec![Item::system("Deploys go through CI.")]
    );
    assert!(
        Interceptor::on_compaction(new, &info("nothing"))
            .unwrap()
            .is_empty()
    );
    assert!(
        Interceptor::on_compaction(old, &info("we déploy"))
            .unwrap()
            .is_empty()
    );
}

/// `on-compaction` answers are held to the caps and the deadline of the other points.
#[test]
fn compaction_items_are_held_to_the_caps_and_the_deadline() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let info = CompactionInfo {
        session: "s".into(),
        replaces: CompactionMarker { from: 1, to: 4 },
        summary: "summary".into(),
        files: Vec::new(),
    };
    // The caps are checked with a deadline far away, so that a loaded machine cannot turn an
    // answer over the cap into a missed deadline; the loop meets a short one.
    for (mode, expected, timeout_ms) in [
        ("items", "100000 items, over the cap", 10_000),
        ("bytes", "bytes of items, over the cap", 10_000),
        ("loop", "deadline", 200),
    ] {
        let limits = Limits {
            timeout: std::time::Duration::from_millis(timeout_ms),
            ..Limits::default()
        };
        let config = vec![("mode".to_owned(), mode.to_owned())];
        let mut plugin =
            InterceptorPlugin::load(&engine, "h", &fixtures::hostile(), None, limits, config)
                .unwrap();
        let err = plugin
            .on_compaction(&info)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains(expected), "{mode}: {err}");
    }
}

#[test]
fn a_resolver_answering_bytes_that_are_not_utf8_fails_clearly() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    let root = env.workspace().canonicalize().unwrap();
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let load = |mode: &str| {
        ResolverPlugin::load(
            &engine,
            ResolverSource::File {
                path: &fixtures::bytes_resolver(),
                pin: None,
            },
            std::slice::from_ref(&root),
            RESOLVER_LIMITS,
            vec![("mode".to_owned(), mode.to_owned())],
        )
        .unwrap()
    };
    let request = ResolveRequest {
        path: "a.txt".into(),
        range: None,
        max_bytes: 1024,
    };
    let mut valid = load("valid");
    assert_eq!(valid.info().version, WitVersion::V0_3);
    let served = valid.resolve(&request).unwrap().unwrap();
    assert_eq!(served.content, "plain text");

    let mut invalid = load("invalid");
    match invalid.resolve(&request) {
        Err(PluginError::BadOutput { call, message, .. }) => {
            assert_eq!(call, "resolve");
            assert_eq!(message, "content is not valid UTF-8 (at byte 3)");
        }
        other => panic!("expected a bad-output failure, got {other:?}"),
    }
    match invalid.read_file("a.txt", 0, 10, 1024) {
        Err(PluginError::BadOutput { call, message, .. }) => {
            assert_eq!(call, "read-file");
            assert!(message.contains("not valid UTF-8"), "{message}");
        }
        other => panic!("expected a bad-output failure, got {other:?}"),
    }
    let error = invalid
        .resolve(&request)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(error.contains("not valid UTF-8"), "{error}");

    // Through the binary: the reference fails with the reason, the turn goes on.
    env.project_config(&format!(
        "{MODEL}[fileref]\nresolver = {:?}\n[fileref.resolver_config]\nmode = \"invalid\"\n",
        fixtures::bytes_resolver()
    ));
    let server = MockServer::start().expect("mock server");
    server.push(Reply::text("ok"));
    let out = warden(&env, &server, &["run", "look at @a.txt"]);
    let sent = server.requests()[0].body["messages"].to_string();
    let shown = format!("{sent}\n{}", stderr(&out));
    assert!(
        shown.contains("content is not valid UTF-8 (at byte 3)"),
        "{shown}"
    );
}
