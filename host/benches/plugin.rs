//! Plugin call costs, side by side with the same logic as a native trait object.
//!
//! `cargo bench -p warden --bench plugin`
//!
//! The same interceptor written other ways (`examples/*/build.sh` writes `plugin.wasm`) is
//! measured beside the SDK sample when its path is set: `WARDEN_BENCH_WIT_BINDGEN_WASM`,
//! `WARDEN_BENCH_PYTHON_WASM`, `WARDEN_BENCH_JS_WASM` (group `languages`).

#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use std::hint::black_box;
use std::path::{Path, PathBuf};

use criterion::{Criterion, criterion_group, criterion_main};
use warden::domain::{
    Event, Interceptor, Item, PluginFailure, PromptDecision, RequestInfo, SubmittedPrompt,
    TurnEndDecision, TurnInfo,
};
use warden::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, LoadJob, PluginEngine, load_parallel,
};

const KEYWORD: &str = env!("WARDEN_KEYWORD_CONTEXT_WASM");
const GUARD: &str = env!("WARDEN_PATTERN_GUARD_WASM");
const COUNTER: &str = env!("WARDEN_EVENT_COUNTER_WASM");

/// The keyword-context sample's logic, natively: the floor.
struct NativeKeyword {
    word: String,
    context: String,
}

impl Interceptor for NativeKeyword {
    fn name(&self) -> &str {
        "native"
    }
    fn on_prompt_submit(&mut self, p: &SubmittedPrompt) -> Result<PromptDecision, PluginFailure> {
        Ok(if p.text.contains(&self.word) {
            PromptDecision::ContinueWith(vec![Item::system(self.context.clone())])
        } else {
            PromptDecision::Continue
        })
    }
    fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(Vec::new())
    }
    fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        Ok(TurnEndDecision::Finish)
    }
}

fn prompt_1k() -> SubmittedPrompt {
    let mut text = "lorem ipsum dolor sit amet ".repeat(37);
    text.truncate(1000);
    text.push_str(" deploy");
    SubmittedPrompt {
        session: "bench".into(),
        items: vec![Item::user(text.clone())],
        text,
    }
}

fn keyword(engine: &PluginEngine, name: &str) -> InterceptorPlugin {
    InterceptorPlugin::load(
        engine,
        name,
        Path::new(KEYWORD),
        None,
        Limits::default(),
        vec![
            ("word".into(), "deploy".into()),
            ("context".into(), "Deploys go through CI.".into()),
        ],
    )
    .unwrap()
}

fn calls(c: &mut Criterion) {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let prompt = prompt_1k();
    let mut group = c.benchmark_group("on-prompt-submit 1KB -> continue-with 1 item");
    let mut native: Box<dyn Interceptor> = Box::new(NativeKeyword {
        word: "deploy".into(),
        context: "Deploys go through CI.".into(),
    });
    group.bench_function("native trait object", |b| {
        b.iter(|| black_box(native.on_prompt_submit(black_box(&prompt)).unwrap()))
    });
    let mut warm = keyword(&engine, "warm");
    group.bench_function("wasm warm instance", |b| {
        b.iter(|| black_box(warm.on_prompt_submit(black_box(&prompt)).unwrap()))
    });
    // Before WIT 0.3.0, in the same run: the sample's frozen 0.2.0 build, sent the whole prompt
    // as a record (a `realloc` into the guest per string and list), searching its copy.
    let frozen =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/v0.2.0/keyword_context.wasm");
    let mut copied = InterceptorPlugin::load(
        &engine,
        "copied",
        &frozen,
        None,
        Limits::default(),
        vec![
            ("word".into(), "deploy".into()),
            ("context".into(), "Deploys go through CI.".into()),
        ],
    )
    .unwrap();
    group.bench_function("wasm warm instance, 0.2.0 build (prompt copied)", |b| {
        b.iter(|| black_box(copied.on_prompt_submit(black_box(&prompt)).unwrap()))
    });
    group.bench_function("wasm fresh instance + init + call, 0.2.0 build", |b| {
        b.iter(|| {
            copied.reset();
            black_box(copied.on_prompt_submit(black_box(&prompt)).unwrap())
        })
    });
    let mut fresh = keyword(&engine, "fresh");
    group.bench_function(
        "wasm fresh instance (pooling + instance-pre) + init + call",
        |b| {
            b.iter(|| {
                fresh.reset();
                black_box(fresh.on_prompt_submit(black_box(&prompt)).unwrap())
            })
        },
    );
    group.finish();

    // A hook observing a 1 KB event (the submitted prompt) on its warm instance.
    let mut group = c.benchmark_group("hook on-event 1KB");
    let mut hook = HookPlugin::load(
        &engine,
        "count",
        Path::new(COUNTER),
        None,
        Limits::default(),
        vec![],
    )
    .unwrap();
    let event = Event::PromptSubmitted(prompt.text.clone());
    group.bench_function("wasm warm instance", |b| {
        b.iter(|| hook.on_event(black_box(&event)).unwrap())
    });
    group.finish();
}

fn entries() -> Vec<(String, PathBuf, bool)> {
    (0..10)
        .map(|i| match i % 3 {
            0 => (format!("kw{i}"), PathBuf::from(KEYWORD), false),
            1 => (format!("guard{i}"), PathBuf::from(GUARD), false),
            _ => (format!("count{i}"), PathBuf::from(COUNTER), true),
        })
        .collect()
}

/// Load the 10 plugins the way `setup::plugins` does: on a few threads, each distinct
/// component compiled once.
fn start_all(engine: &PluginEngine) -> usize {
    let entries = entries();
    let jobs: Vec<LoadJob<'_, bool>> = entries
        .iter()
        .map(|(name, path, is_hook)| -> LoadJob<'_, bool> {
            Box::new(move || {
                if *is_hook {
                    HookPlugin::load(engine, name, path, None, Limits::default(), vec![]).is_ok()
                } else {
                    let config = vec![("word".into(), "x".into()), ("pattern".into(), "x".into())];
                    InterceptorPlugin::load(engine, name, path, None, Limits::default(), config)
                        .is_ok()
                }
            })
        })
        .collect();
    let loaded = load_parallel(jobs).into_iter().filter(|ok| *ok).count();
    assert_eq!(loaded, 10);
    loaded
}

fn startup(c: &mut Criterion) {
    let mut group = c.benchmark_group("start 10 plugins");
    group.sample_size(10);
    let cache = tempfile::tempdir().unwrap();
    let cached_engine = || {
        PluginEngine::new(EngineOptions {
            cache_dir: Some(cache.path().to_owned()),
            ..EngineOptions::default()
        })
        .unwrap()
    };
    start_all(&cached_engine());
    // What every start-up below pays first: the engine (pooling allocator, epoch thread).
    group.bench_function("new engine only", |b| b.iter(|| black_box(cached_engine())));
    // A new engine each time, as at process start: compiled code comes from the on-disk cache.
    group.bench_function("warm compiled cache", |b| {
        b.iter(|| {
            let engine = cached_engine();
            black_box(start_all(&engine))
        })
    });
    group.bench_function("cold (no cache)", |b| {
        b.iter(|| {
            let engine = PluginEngine::new(EngineOptions::default()).unwrap();
            black_box(start_all(&engine))
        })
    });
    group.finish();
}

/// The keyword-context logic as a process hook, the way coding agents run hooks: spawn a
/// Python script, write the prompt as JSON on its stdin, read its decision as JSON from stdout.
const PROCESS_HOOK: &str = r#"
import json, sys
prompt = json.load(sys.stdin)
word, context = "deploy", "Deploys go through CI."
if word in prompt["text"]:
    out = {"decision": "continue-with", "items": [{"system": context}]}
else:
    out = {"decision": "continue"}
json.dump(out, sys.stdout)
"#;

fn process_hook(c: &mut Criterion) {
    use std::io::Write;
    use std::process::{Command, Stdio};
    // The interpreter itself, not a version-manager shim in front of it.
    let Ok(found) = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
    else {
        return;
    };
    let python = String::from_utf8_lossy(&found.stdout).trim().to_owned();
    if python.is_empty() {
        return;
    }
    let prompt = prompt_1k();
    let input = serde_json::json!({"session": prompt.session, "text": prompt.text}).to_string();
    let mut group = c.benchmark_group("process hook");
    group.sample_size(10);
    group.bench_function("python3 spawn + JSON stdin/stdout", |b| {
        b.iter(|| {
            let mut child = Command::new(&python)
                .args(["-c", PROCESS_HOOK])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .spawn()
                .unwrap();
            child
                .stdin
                .take()
                .unwrap()
                .write_all(input.as_bytes())
                .unwrap();
            let out = child.wait_with_output().unwrap();
            let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
            assert_eq!(value["decision"], "continue-with");
            black_box(value)
        })
    });
    group.finish();
}

/// The SDK sample and whichever other builds of the same interceptor the environment names.
fn languages_under_test() -> Vec<(&'static str, PathBuf)> {
    let mut out = vec![("rust-sdk", PathBuf::from(KEYWORD))];
    for (label, var) in [
        ("rust-wit-bindgen", "WARDEN_BENCH_WIT_BINDGEN_WASM"),
        ("python", "WARDEN_BENCH_PYTHON_WASM"),
        ("js", "WARDEN_BENCH_JS_WASM"),
    ] {
        if let Some(path) = std::env::var_os(var) {
            out.push((label, PathBuf::from(path)));
        }
    }
    out
}

fn load_keyword(engine: &PluginEngine, path: &Path) -> InterceptorPlugin {
    InterceptorPlugin::load(
        engine,
        "kw",
        path,
        None,
        Limits::default(),
        vec![
            ("word".into(), "deploy".into()),
            ("context".into(), "Deploys go through CI.".into()),
        ],
    )
    .unwrap()
}

/// Warm call, fresh instance and start-up (warm compiled cache) of each build of the sample.
fn languages(c: &mut Criterion) {
    let prompt = prompt_1k();
    let cache = tempfile::tempdir().unwrap();
    let engine = PluginEngine::new(EngineOptions {
        cache_dir: Some(cache.path().to_owned()),
        ..EngineOptions::default()
    })
    .unwrap();
    let mut group = c.benchmark_group("languages");
    group.sample_size(10);
    for (label, path) in languages_under_test() {
        let mut plugin = load_keyword(&engine, &path);
        group.bench_function(format!("{label}: warm call"), |b| {
            b.iter(|| black_box(plugin.on_prompt_submit(black_box(&prompt)).unwrap()))
        });
        group.bench_function(format!("{label}: fresh instance + init + call"), |b| {
            b.iter(|| {
                plugin.reset();
                black_box(plugin.on_prompt_submit(black_box(&prompt)).unwrap())
            })
        });
        // A new engine each time, as at process start (an engine compiles or loads a component
        // once, then reuses it).
        group.bench_function(format!("{label}: start (warm compiled cache)"), |b| {
            b.iter(|| {
                let engine = PluginEngine::new(EngineOptions {
                    cache_dir: Some(cache.path().to_owned()),
                    ..EngineOptions::default()
                })
                .unwrap();
                black_box(load_keyword(&engine, &path))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, calls, startup, languages, process_hook);
criterion_main!(benches);
