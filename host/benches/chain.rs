//! One tool call through a chain of ten interceptors — `pre-tool-call`, then `post-tool-call`
//! with the call's output — three ways, side by side:
//!
//! - **wasm**: ten warm instances of the `tool-guard` sample (0.3.0 interceptors): four guards
//!   whose deny rules match nothing, three that rewrite the call's `path` (`old/` → `a/` →
//!   `b/` → `c/`, each seeing the previous rewrite) and three with no rules (allow), through
//!   [`run_pre_tool`] (the turn's runner), then `post-tool-call` on each (it adds nothing);
//! - **native**: the same ten decisions from ten Rust trait objects (same globs, same prefixes):
//!   the floor;
//! - **process hook**: one process spawned per call, as other agents run hooks: `python3`
//!   reading the call as JSON on stdin and answering with the same decision as JSON.
//!
//! - **wasm with matchers**: the same ten guards, each with the `matcher` a realistic
//!   configuration gives it ([`MATCHERS`]: the guards that watch commands or writes match
//!   `Bash` or `Write|Bash`, the one for `.pem` files `Grep`, the empty ones `Bash`): on this
//!   `read_file` call five of them are not asked at all.
//!
//! Besides criterion's estimates, prints the median and 99th percentile of the wasm and native
//! chains over 20 000 calls each (`chain percentiles`), the figures the goals are stated in.
//!
//! `cargo bench -p warden --bench chain`

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::print_stdout,
    missing_docs
)]

use std::hint::black_box;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use globset::{GlobBuilder, GlobMatcher};
use serde_json::{Value, json};
use warden::config::FailurePolicy;
use warden::domain::tool_matcher::ToolMatcher;
use warden::domain::{
    Interceptor, Item, PluginFailure, PromptDecision, RequestInfo, SubmittedPrompt, ToolCall,
    ToolDecision, ToolOutput, TurnEndDecision, TurnInfo,
};
use warden::plugin::{EngineOptions, InterceptorPlugin, Limits, PluginEngine};
use warden::worker::{ChainEntry, run_pre_tool};

const TOOL_GUARD: &str = env!("WARDEN_TOOL_GUARD_WASM");

/// The ten guards' configs (`deny`, `rewrite`), in chain order.
const GUARDS: [(&str, &str); 10] = [
    ("write_file:*.lock,shell:*rm -rf*", ""),
    ("", "old/=>a/"),
    ("", ""),
    ("read_file:secrets/**,edit_file:**/.env", ""),
    ("", "a/=>b/"),
    ("", ""),
    ("*:**/id_rsa*", ""),
    ("", "b/=>c/"),
    ("", ""),
    ("grep:*.pem", ""),
];

/// The ten guards' matchers in a realistic configuration (`None`: every tool), in chain order.
const MATCHERS: [Option<&str>; 10] = [
    Some("Write|Bash"),
    None,
    Some("Bash"),
    Some("Read|Edit"),
    None,
    Some("Bash"),
    None,
    None,
    Some("Bash"),
    Some("Grep"),
];

/// A 0.3.0 `tool-guard` instance, warm.
fn wasm_guard(engine: &PluginEngine, i: usize, deny: &str, rewrite: &str) -> Box<dyn Interceptor> {
    Box::new(
        InterceptorPlugin::load(
            engine,
            &format!("guard{i}"),
            Path::new(TOOL_GUARD),
            None,
            Limits::default(),
            vec![
                ("deny".into(), deny.into()),
                ("rewrite".into(), rewrite.into()),
            ],
        )
        .unwrap(),
    )
}

/// The sample's decision natively: the same globs (case-insensitive, `*` not crossing `/`) and
/// prefixes on the `path` argument.
struct NativeGuard {
    name: String,
    deny: Vec<(String, GlobMatcher)>,
    rewrite: Vec<(String, String)>,
}

fn rules(text: &str) -> impl Iterator<Item = &str> {
    text.split(',').map(str::trim).filter(|s| !s.is_empty())
}

impl NativeGuard {
    fn new(i: usize, deny: &str, rewrite: &str) -> Self {
        Self {
            name: format!("native{i}"),
            deny: rules(deny)
                .map(|rule| {
                    let (tool, glob) = rule.split_once(':').unwrap();
                    let glob = GlobBuilder::new(glob)
                        .literal_separator(true)
                        .case_insensitive(true)
                        .build()
                        .unwrap()
                        .compile_matcher();
                    (tool.to_owned(), glob)
                })
                .collect(),
            rewrite: rules(rewrite)
                .map(|rule| {
                    let (from, to) = rule.split_once("=>").unwrap();
                    (from.to_owned(), to.to_owned())
                })
                .collect(),
        }
    }
}

impl Interceptor for NativeGuard {
    fn name(&self) -> &str {
        &self.name
    }
    fn on_prompt_submit(&mut self, _: &SubmittedPrompt) -> Result<PromptDecision, PluginFailure> {
        Ok(PromptDecision::Continue)
    }
    fn pre_llm_request(&mut self, _: &RequestInfo) -> Result<Vec<Item>, PluginFailure> {
        Ok(Vec::new())
    }
    fn on_turn_end(&mut self, _: &TurnInfo) -> Result<TurnEndDecision, PluginFailure> {
        Ok(TurnEndDecision::Finish)
    }
    fn pre_tool_call(&mut self, call: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        let path = call.arguments.get("path").and_then(Value::as_str);
        for (tool, glob) in &self.deny {
            if (tool == "*" || *tool == call.name) && path.is_some_and(|p| glob.is_match(p)) {
                return Ok(ToolDecision::Deny(format!("denied by `{tool}`")));
            }
        }
        if let Some(path) = path {
            for (from, to) in &self.rewrite {
                if let Some(rest) = path.strip_prefix(from.as_str()) {
                    let mut arguments = call.arguments.clone();
                    arguments["path"] = Value::String(format!("{to}{rest}"));
                    return Ok(ToolDecision::Rewrite(arguments));
                }
            }
        }
        Ok(ToolDecision::Allow)
    }
}

fn chain(plugins: Vec<Box<dyn Interceptor>>) -> Vec<ChainEntry> {
    plugins
        .into_iter()
        .map(|plugin| ChainEntry {
            plugin,
            failure: FailurePolicy::Closed,
            shadow: None,
            matcher: None,
        })
        .collect()
}

fn the_call() -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: "read_file".into(),
        arguments: json!({ "path": "old/src/main.rs" }),
    }
}

fn the_output() -> ToolOutput {
    ToolOutput {
        content: "fn main() {}\n".repeat(20),
        is_error: false,
        figures: None,
        exit_code: None,
    }
}

/// `pre-tool-call` through the chain (the turn's runner), then `post-tool-call` on every
/// interceptor whose matcher matches, with the call as it ran; the path the tool was given.
fn pre_and_post(chain: &mut [ChainEntry], call: &ToolCall, output: &ToolOutput) -> usize {
    let outcome = run_pre_tool(chain, call).into_outcome();
    assert!(outcome.denied().is_none());
    let ran = outcome.into_call_to_run();
    let mut items = 0;
    for entry in chain.iter_mut() {
        if entry.matcher.as_ref().is_none_or(|m| m.matches(&ran.name)) {
            items += entry.plugin.post_tool_call(&ran, output).unwrap().len();
        }
    }
    assert_eq!(ran.arguments["path"], "c/src/main.rs");
    items
}

/// The ten guards as one spawned process: the call as JSON on stdin, the decision on stdout.
const PROCESS_HOOK: &str = r#"
import fnmatch, json, sys
call = json.load(sys.stdin)
path = call["arguments"].get("path", "")
deny = ["write_file:*.lock", "read_file:secrets/**", "edit_file:**/.env", "*:**/id_rsa*", "grep:*.pem"]
for rule in deny:
    tool, glob = rule.split(":", 1)
    if tool in ("*", call["tool"]) and fnmatch.fnmatch(path.lower(), glob):
        json.dump({"decision": "deny", "reason": rule}, sys.stdout)
        sys.exit(0)
for old, new in [("old/", "a/"), ("a/", "b/"), ("b/", "c/")]:
    if path.startswith(old):
        path = new + path[len(old):]
json.dump({"decision": "rewrite", "arguments": {"path": path}}, sys.stdout)
"#;

fn python() -> Option<String> {
    let found = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .ok()?;
    let path = String::from_utf8_lossy(&found.stdout).trim().to_owned();
    (!path.is_empty()).then_some(path)
}

fn process_hook(python: &str, call: &ToolCall) -> Value {
    let input = json!({"tool": call.name, "arguments": call.arguments}).to_string();
    let mut child = Command::new(python)
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
    let value: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(value["arguments"]["path"], "c/src/main.rs");
    value
}

fn percentiles(label: &str, mut f: impl FnMut()) {
    const CALLS: usize = 20_000;
    for _ in 0..2_000 {
        f();
    }
    let mut times: Vec<Duration> = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let start = Instant::now();
        f();
        times.push(start.elapsed());
    }
    times.sort_unstable();
    let at = |q: f64| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let i = ((CALLS as f64) * q) as usize;
        times[i.min(CALLS - 1)].as_secs_f64() * 1e6
    };
    println!(
        "chain percentiles: {label}: median {:.2} µs, p99 {:.2} µs, max {:.1} µs over {CALLS} calls",
        at(0.5),
        at(0.99),
        at(1.0)
    );
}

fn ten_plugin_chain(c: &mut Criterion) {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let call = the_call();
    let output = the_output();
    let mut wasm = chain(
        GUARDS
            .iter()
            .enumerate()
            .map(|(i, (deny, rewrite))| wasm_guard(&engine, i, deny, rewrite))
            .collect(),
    );
    let mut native = chain(
        GUARDS
            .iter()
            .enumerate()
            .map(|(i, (deny, rewrite))| {
                Box::new(NativeGuard::new(i, deny, rewrite)) as Box<dyn Interceptor>
            })
            .collect(),
    );
    let mut matched = chain(
        GUARDS
            .iter()
            .enumerate()
            .map(|(i, (deny, rewrite))| wasm_guard(&engine, i, deny, rewrite))
            .collect(),
    );
    for (entry, matcher) in matched.iter_mut().zip(MATCHERS) {
        entry.matcher = matcher.map(|m| ToolMatcher::parse(m).unwrap());
    }
    let mut group = c.benchmark_group("ten interceptors, pre-tool-call + post-tool-call");
    group.bench_function("native trait objects", |b| {
        b.iter(|| black_box(pre_and_post(&mut native, black_box(&call), &output)))
    });
    group.bench_function("wasm warm instances", |b| {
        b.iter(|| black_box(pre_and_post(&mut wasm, black_box(&call), &output)))
    });
    group.bench_function("wasm warm instances, realistic matchers", |b| {
        b.iter(|| black_box(pre_and_post(&mut matched, black_box(&call), &output)))
    });
    group.finish();
    if let Some(python) = python() {
        let mut group = c.benchmark_group("ten interceptors as one process hook");
        group.sample_size(10);
        group.bench_function("python3 spawned per call, JSON stdin/stdout", |b| {
            b.iter(|| black_box(process_hook(&python, black_box(&call))))
        });
        group.finish();
    }
    percentiles("native trait objects", || {
        black_box(pre_and_post(&mut native, black_box(&call), &output));
    });
    percentiles("wasm warm instances", || {
        black_box(pre_and_post(&mut wasm, black_box(&call), &output));
    });
    percentiles("wasm warm instances, realistic matchers", || {
        black_box(pre_and_post(&mut matched, black_box(&call), &output));
    });
}

criterion_group!(benches, ten_plugin_chain);
criterion_main!(benches);
