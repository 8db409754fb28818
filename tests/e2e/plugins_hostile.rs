//! Hostile plugins through the public plugin API: each fails cleanly, under its limits, and the
//! host goes on. The table of these cases is in docs/security.md.

use std::path::Path;
use std::time::{Duration, Instant};

use warden::domain::{Event, Item, PromptDecision, SubmittedPrompt};
use warden::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, PluginError,
};
use warden_tests::fixtures;

fn engine() -> PluginEngine {
    PluginEngine::new(EngineOptions::default()).unwrap()
}

fn limits(timeout_ms: u64, memory_mb: usize) -> Limits {
    Limits {
        timeout: Duration::from_millis(timeout_ms),
        memory_bytes: memory_mb << 20,
        ..Limits::default()
    }
}

fn hostile(
    engine: &PluginEngine,
    mode: &str,
    limits: Limits,
) -> Result<InterceptorPlugin, PluginError> {
    load(engine, &fixtures::hostile(), mode, limits, &[])
}

fn load(
    engine: &PluginEngine,
    path: &Path,
    mode: &str,
    limits: Limits,
    extra: &[(&str, &str)],
) -> Result<InterceptorPlugin, PluginError> {
    let mut config = vec![("mode".to_owned(), mode.to_owned())];
    config.extend(
        extra
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
    );
    InterceptorPlugin::load(engine, mode, path, None, limits, config)
}

/// An interceptor with default limits, failing closed, configured with `config`.
fn sample(
    engine: &PluginEngine,
    name: &str,
    path: &Path,
    config: &[(&str, &str)],
) -> Result<InterceptorPlugin, PluginError> {
    let config = config
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    InterceptorPlugin::load(engine, name, path, None, Limits::default(), config)
}

fn prompt(text: &str) -> SubmittedPrompt {
    SubmittedPrompt {
        session: "s".into(),
        text: text.into(),
        items: vec![Item::user(text)],
    }
}

fn reported(decision: PromptDecision) -> String {
    match decision {
        PromptDecision::ContinueWith(items) => items.iter().map(|i| i.text().to_owned()).collect(),
        other => panic!("expected a report, got {other:?}"),
    }
}

#[test]
fn infinite_loop_is_stopped_at_its_deadline_every_time() {
    let engine = engine();
    let mut plugin = hostile(&engine, "loop", limits(100, 64)).unwrap();
    for _ in 0..2 {
        let start = Instant::now();
        let err = plugin.on_prompt_submit(&prompt("hi")).unwrap_err();
        assert!(
            matches!(
                err,
                PluginError::Deadline {
                    timeout_ms: 100,
                    ..
                }
            ),
            "{err}"
        );
        assert!(err.to_string().contains("deadline"), "{err}");
        // The author is told which key to raise.
        assert!(err.to_string().contains("raise `timeout_ms`"), "{err}");
        // Generous sanity bound: the call came back instead of hanging.
        assert!(start.elapsed() < Duration::from_secs(10));
    }
}

#[test]
fn a_call_past_its_deadline_fails_and_one_within_it_succeeds() {
    let engine = engine();
    let mut slow = load(
        &engine,
        &fixtures::hostile(),
        "slow",
        limits(50, 64),
        &[("ms", "2000")],
    )
    .unwrap();
    let err = slow.on_prompt_submit(&prompt("x")).unwrap_err();
    assert!(matches!(err, PluginError::Deadline { .. }), "{err}");

    let mut quick = load(
        &engine,
        &fixtures::hostile(),
        "slow",
        limits(5000, 64),
        &[("ms", "1")],
    )
    .unwrap();
    assert_eq!(
        reported(quick.on_prompt_submit(&prompt("x")).unwrap()),
        "slept 1 ms"
    );
}

#[test]
fn memory_bomb_hits_the_memory_cap() {
    let engine = engine();
    let mut plugin = hostile(&engine, "oom", limits(5000, 32)).unwrap();
    let err = plugin.on_prompt_submit(&prompt("hi")).unwrap_err();
    let PluginError::Trap { message, .. } = &err else {
        panic!("expected a trap, got {err}");
    };
    assert!(
        message.contains("memory") || message.contains("alloc"),
        "{message}"
    );
    // The author is told which key to raise.
    assert!(
        message.contains("memory cap 32 MiB") && message.contains("`memory_mb`"),
        "{message}"
    );
}

#[test]
fn deep_recursion_exhausts_the_stack_and_traps() {
    let engine = engine();
    let mut plugin = hostile(&engine, "recurse", limits(5000, 64)).unwrap();
    let err = plugin.on_prompt_submit(&prompt("hi")).unwrap_err();
    // Rust keeps its data stack in linear memory: overflowing it is an out-of-bounds access;
    // overflowing the wasm call stack is "call stack exhausted". Either way a clean trap.
    assert!(
        matches!(&err, PluginError::Trap { message, .. } if message.contains("stack") || message.contains("out of bounds")),
        "{err}"
    );
}

#[test]
fn panic_is_a_trap_that_carries_the_panic_message() {
    let engine = engine();
    let mut plugin = hostile(&engine, "panic", limits(1000, 64)).unwrap();
    let err = plugin
        .on_prompt_submit(&prompt("hi"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("hostile plugin panics on purpose"), "{err}");
    assert!(err.contains("plugin panic"), "names the plugin: {err}");
}

#[test]
fn a_trapped_instance_is_replaced_by_a_fresh_one() {
    let engine = engine();
    let mut plugin = hostile(&engine, "count", limits(1000, 64)).unwrap();
    assert_eq!(
        reported(plugin.on_prompt_submit(&prompt("a")).unwrap()),
        "calls=1"
    );
    assert_eq!(
        reported(plugin.on_prompt_submit(&prompt("b")).unwrap()),
        "calls=2"
    );
    let err = plugin
        .on_prompt_submit(&prompt("boom"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("boom on call 3"), "{err}");
    // Fresh instance: state starts over, init ran again.
    assert_eq!(
        reported(plugin.on_prompt_submit(&prompt("c")).unwrap()),
        "calls=1"
    );
}

#[test]
fn flooding_items_or_bytes_breaks_the_output_caps() {
    let engine = engine();
    let mut items = hostile(&engine, "items", limits(5000, 64)).unwrap();
    let err = items.on_prompt_submit(&prompt("hi")).unwrap_err();
    assert!(
        matches!(&err, PluginError::BadOutput { message, .. } if message.contains("100000 items")),
        "{err}"
    );

    // With room in memory, 50 MB reaches the host and is refused by the byte cap.
    let mut bytes = hostile(&engine, "bytes", limits(5000, 256)).unwrap();
    let err = bytes.on_prompt_submit(&prompt("hi")).unwrap_err();
    assert!(
        matches!(&err, PluginError::BadOutput { message, .. } if message.contains("52428800 bytes")),
        "{err}"
    );
    // Under a 40 MiB cap the same plugin cannot even build it.
    let mut capped = hostile(&engine, "bytes", limits(5000, 40)).unwrap();
    let err = capped.on_prompt_submit(&prompt("hi")).unwrap_err();
    assert!(matches!(err, PluginError::Trap { .. }), "{err}");
}

#[test]
fn no_filesystem_for_interceptors() {
    let engine = engine();
    let mut plugin = hostile(&engine, "fs", limits(2000, 64)).unwrap();
    let report = reported(plugin.on_prompt_submit(&prompt("hi")).unwrap());
    assert!(report.starts_with("fs: "), "{report}");
    assert!(
        !report.contains("Ok("),
        "no file operation may succeed: {report}"
    );
    assert!(!Path::new("/tmp/warden-hostile").exists());
}

#[test]
fn no_network_for_interceptors() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let engine = engine();
    let mut plugin = hostile(&engine, "net", limits(2000, 64)).unwrap();
    let report = reported(plugin.on_prompt_submit(&prompt(&addr)).unwrap());
    assert!(report.starts_with("net: "), "{report}");
    assert!(
        !report.contains("Ok("),
        "no socket operation may succeed: {report}"
    );
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock,
        "the plugin must not have connected"
    );
}

#[test]
fn no_environment_arguments_or_stdin_for_interceptors() {
    let engine = engine();
    let mut plugin = hostile(&engine, "env", limits(2000, 64)).unwrap();
    let report = reported(plugin.on_prompt_submit(&prompt("hi")).unwrap());
    // The one variable is the host's own, naming the log level it records (no subscriber
    // here: `off`); nothing of the host's environment.
    assert!(
        report.starts_with("env: vars=[\"WARDEN_LOG_LEVEL\"] args=[]"),
        "{report}"
    );
    assert!(
        !report.contains("PATH") && !report.contains("HOME"),
        "{report}"
    );
    assert!(report.contains("stdin=Ok(0)"), "stdin is empty: {report}");
}

#[test]
fn init_refusal_and_wrong_pins_and_kinds_are_refused_at_load() {
    let engine = engine();
    let err = hostile(&engine, "refuse", Limits::default()).err().unwrap();
    assert!(
        matches!(&err, PluginError::InitRefused { message, .. } if message.contains("refuses")),
        "{err}"
    );

    let path = fixtures::keyword_context();
    let wrong = "0".repeat(64);
    let err = InterceptorPlugin::load(
        &engine,
        "kw",
        &path,
        Some(&wrong),
        Limits::default(),
        vec![],
    )
    .err()
    .unwrap();
    assert!(matches!(err, PluginError::DigestMismatch { .. }), "{err}");
    let right = warden::plugin::sha256_hex(&std::fs::read(&path).unwrap());
    let ok = InterceptorPlugin::load(
        &engine,
        "kw",
        &path,
        Some(&right),
        Limits::default(),
        vec![("word".into(), "rust".into())],
    );
    assert!(ok.is_ok(), "{:?}", ok.err());

    let err = HookPlugin::load(&engine, "kw", &path, None, Limits::default(), vec![])
        .err()
        .unwrap();
    assert!(
        err.to_string()
            .contains("implements the `interceptor` world but is configured as kind `hook`"),
        "{err}"
    );
}

#[test]
fn hostile_hooks_fail_within_their_deadline_and_recover() {
    let engine = engine();
    for mode in ["loop", "panic", "oom"] {
        let mut hook = HookPlugin::load(
            &engine,
            mode,
            &fixtures::hostile_hook(),
            None,
            limits(50, 32),
            vec![("mode".into(), mode.into())],
        )
        .unwrap();
        for _ in 0..2 {
            let err = hook
                .on_event(&Event::PromptSubmitted("hi".into()))
                .unwrap_err();
            assert!(err.poisons_instance(), "{mode}: {err}");
        }
    }
    let mut quiet = HookPlugin::load(
        &engine,
        "fs",
        &fixtures::hostile_hook(),
        None,
        limits(500, 32),
        vec![("mode".into(), "fs".into())],
    )
    .unwrap();
    quiet.on_event(&Event::TurnEnded("done".into())).unwrap();
    assert!(!Path::new("/tmp/warden-hostile-hook").exists());
}

#[test]
fn samples_behave_as_documented() {
    let engine = engine();
    let mut kw = sample(
        &engine,
        "kw",
        &fixtures::keyword_context(),
        &[("word", "deploy"), ("context", "Deploys go through CI.")],
    )
    .unwrap();
    assert_eq!(
        kw.on_prompt_submit(&prompt("hello")).unwrap(),
        PromptDecision::Continue
    );
    assert_eq!(
        kw.on_prompt_submit(&prompt("how do I deploy?")).unwrap(),
        PromptDecision::ContinueWith(vec![Item::system("Deploys go through CI.")])
    );

    let mut guard = sample(
        &engine,
        "guard",
        &fixtures::pattern_guard(),
        &[("pattern", "DROP TABLE"), ("reason", "no SQL drops")],
    )
    .unwrap();
    assert_eq!(
        guard.on_prompt_submit(&prompt("select 1")).unwrap(),
        PromptDecision::Continue
    );
    assert_eq!(
        guard
            .on_prompt_submit(&prompt("please drop table users"))
            .unwrap(),
        PromptDecision::Cancel("no SQL drops".into())
    );
    let err = sample(&engine, "guard", &fixtures::pattern_guard(), &[])
        .err()
        .unwrap();
    assert!(
        err.to_string().contains("missing config key `pattern`"),
        "{err}"
    );
}
