//! `warden plugin bench FILE.wasm [--config k=v]... [--json]`: what a plugin costs. Runs the
//! plugin's call points on a synthetic turn (a 1 KB prompt; for a resolver, a 16 KB file) under
//! its usual sandbox and limits, and prints per call point the time of a call on a warm
//! instance and of a fresh instance + `init` + call, then the start-up time with a warm
//! compiled-code cache and cold (compiling). Nothing is written outside a temporary directory
//! that is removed at the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::domain::{
    CallPoint, Event, Hook, Interceptor, Item, RequestInfo, ResolveRequest, SubmittedPrompt,
    TurnInfo,
};
use crate::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, PluginError,
    ResolverPlugin, ResolverSource, World, inspect, read_component, with_roots,
};

/// Timed rounds per figure; the median round is reported.
const ROUNDS: usize = 11;
/// Aimed-at length of one round of warm calls.
const ROUND: Duration = Duration::from_millis(20);
/// Start-ups timed with a warm cache.
const STARTS: usize = 7;

/// One call point's figures, in nanoseconds per call.
struct Row {
    point: &'static str,
    warm_ns: f64,
    fresh_ns: f64,
}

/// Benchmark the plugin at `file`.
pub(crate) fn bench(file: &Path, config: &[String], json: bool) -> Result<u8, CliError> {
    let init = super::replay::parse_config(config)?;
    let bytes = read_component(file, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let what = file.display().to_string();
    let scratch = Scratch::new()?;
    let workspace = scratch.0.join("workspace");
    let cache = scratch.0.join("cache");
    std::fs::create_dir_all(&workspace)
        .and_then(|()| std::fs::write(workspace.join("16k.txt"), text_16k()))
        .map_err(|err| CliError::failure(format!("cannot write the synthetic workspace: {err}")))?;
    let workspace = workspace
        .canonicalize()
        .map_err(|err| CliError::failure(err.to_string()))?;

    let engine = |cache_dir: Option<PathBuf>| {
        PluginEngine::new(EngineOptions {
            cache_dir,
            ..EngineOptions::default()
        })
        .map_err(|err| CliError::failure(err.to_string()))
    };
    let checker = engine(None)?;
    let (info, _) =
        inspect(&checker, &what, &bytes).map_err(|err| CliError::usage(err.to_string()))?;
    drop(checker);
    let load = |engine: &PluginEngine| -> Result<Loaded, PluginError> {
        Loaded::load(engine, info.world, file, &workspace, init.clone())
    };
    let usage = |err: PluginError| CliError::usage(err.to_string());

    // Cold: a new engine, no cache (compiles), writing the cache the warm start-ups read.
    let started = Instant::now();
    let mut plugin = load(&engine(Some(cache.clone()))?).map_err(usage)?;
    let cold = started.elapsed();
    let mut starts = Vec::with_capacity(STARTS);
    for _ in 0..STARTS {
        let started = Instant::now();
        let engine = engine(Some(cache.clone()))?;
        load(&engine).map_err(usage)?;
        starts.push(started.elapsed().as_secs_f64() * 1e9);
    }
    let warm_start = median(&mut starts);

    let rows = plugin
        .rows()
        .map_err(|err| CliError::failure(err.to_string()))?;

    if json {
        let calls: Vec<_> = rows
            .iter()
            .map(|r| json!({"point": r.point, "warm_ns": r.warm_ns.round(), "fresh_ns": r.fresh_ns.round()}))
            .collect();
        let value = json!({
            "file": what,
            "world": info.world.as_str(),
            "sha256": info.sha256,
            "size": info.size,
            "calls": calls,
            "startup": {
                "warm_cache_ns": warm_start.round(),
                "cold_ns": (cold.as_secs_f64() * 1e9).round(),
            },
        });
        outln!("{value}");
    } else {
        outln!("plugin:   {what}");
        outln!("world:    {} ({} bytes)", info.world, info.size);
        outln!("input:    {}", plugin.input());
        outln!(
            "{:<20} {:>14} {:>28}",
            "call",
            "warm",
            "fresh instance + init + call"
        );
        for row in &rows {
            outln!(
                "{:<20} {:>14} {:>28}",
                row.point,
                human(row.warm_ns),
                human(row.fresh_ns)
            );
        }
        outln!(
            "start-up: {} with a warm compiled-code cache, {} cold (compiling)",
            human(warm_start),
            human(cold.as_secs_f64() * 1e9)
        );
    }
    Ok(EXIT_OK)
}

/// A private temporary directory, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Result<Self, CliError> {
        let dir = std::env::temp_dir().join(format!(
            "warden-plugin-bench-{}-{}",
            std::process::id(),
            uuid::Uuid::now_v7().simple()
        ));
        std::fs::create_dir(&dir).map_err(|err| {
            CliError::failure(format!(
                "cannot create a temporary directory {}: {err}",
                dir.display()
            ))
        })?;
        Ok(Self(dir))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loaded plugin of any world.
enum Loaded {
    Interceptor(Box<InterceptorPlugin>),
    Hook(Box<HookPlugin>),
    Resolver(Box<ResolverPlugin>),
}

impl Loaded {
    fn load(
        engine: &PluginEngine,
        world: World,
        file: &Path,
        workspace: &Path,
        init: Vec<(String, String)>,
    ) -> Result<Self, PluginError> {
        let name = "bench";
        Ok(match world {
            World::Interceptor => Self::Interceptor(Box::new(InterceptorPlugin::load(
                engine,
                name,
                file,
                None,
                Limits::default(),
                with_roots(init, &[workspace.to_owned()]),
            )?)),
            World::Hook => Self::Hook(Box::new(HookPlugin::load(
                engine,
                name,
                file,
                None,
                Limits::default(),
                with_roots(init, &[workspace.to_owned()]),
            )?)),
            World::Resolver => Self::Resolver(Box::new(ResolverPlugin::load(
                engine,
                ResolverSource::File {
                    path: file,
                    pin: None,
                },
                &[workspace.to_owned()],
                crate::plugin::RESOLVER_LIMITS,
                init,
            )?)),
            World::Tool => {
                return Err(PluginError::Load {
                    plugin: name.to_owned(),
                    stage: "bench",
                    message: "a tool plugin's cost depends on the arguments it is called with; \
                              `warden plugin bench` measures interceptors, hooks and resolvers \
                              (cargo bench -p warden --bench tools measures tool calls)"
                        .to_owned(),
                });
            }
        })
    }

    fn input(&self) -> &'static str {
        match self {
            Self::Interceptor(_) => "a 1 KB prompt, a request and a turn end of a synthetic turn",
            Self::Hook(_) => "a 1 KB prompt event, a request, a 1 KB answer, a turn end",
            Self::Resolver(_) => "a 16 KB text file",
        }
    }

    /// The figures of every call point.
    fn rows(&mut self) -> Result<Vec<Row>, PluginError> {
        let prompt = prompt_1k();
        match self {
            Self::Interceptor(p) => {
                let submitted = SubmittedPrompt {
                    session: "bench".into(),
                    items: vec![Item::user(prompt.clone())],
                    text: prompt.clone(),
                };
                let request = RequestInfo {
                    session: "bench".into(),
                    prompt: prompt.clone(),
                    step: 0,
                    history_items: 12,
                };
                let turn = TurnInfo {
                    session: "bench".into(),
                    prompt: prompt.clone(),
                    answer: prompt.clone(),
                    continuations: 0,
                };
                Ok(vec![
                    figures(p, CallPoint::OnPromptSubmit.name(), |p| {
                        p.on_prompt_submit(&submitted).map(drop)
                    })?,
                    figures(p, CallPoint::PreLlmRequest.name(), |p| {
                        p.pre_llm_request(&request).map(drop)
                    })?,
                    figures(p, CallPoint::OnTurnEnd.name(), |p| {
                        p.on_turn_end(&turn).map(drop)
                    })?,
                ])
            }
            Self::Hook(p) => {
                let events = [
                    ("on-event prompt", Event::PromptSubmitted(prompt.clone())),
                    (
                        "on-event request",
                        Event::RequestSent {
                            items: 12,
                            bytes: 24_000,
                        },
                    ),
                    (
                        "on-event response",
                        Event::ResponseReceived {
                            text: prompt.clone(),
                            tool_calls: 0,
                        },
                    ),
                    ("on-event turn end", Event::TurnEnded("finished".into())),
                ];
                let mut rows = Vec::new();
                for (point, event) in &events {
                    rows.push(figures(p, point, |p| p.on_event(event))?);
                }
                Ok(rows)
            }
            Self::Resolver(p) => {
                let request = ResolveRequest {
                    path: "16k.txt".into(),
                    range: None,
                    max_bytes: 16 << 10,
                };
                Ok(vec![figures(p, "resolve 16 KB", |p| {
                    p.resolve(&request).map(drop)
                })?])
            }
        }
    }
}

/// A plugin as the bench drives it: each call is a turn of its own (so the per-turn log budget
/// and failure count start afresh, as in a real turn), and its instance can be dropped so the
/// next call runs on a fresh one.
trait Benched {
    fn new_turn(&mut self);
    fn reset_instance(&mut self);
}

impl Benched for Box<InterceptorPlugin> {
    fn new_turn(&mut self) {
        Interceptor::new_turn(self.as_mut());
    }
    fn reset_instance(&mut self) {
        self.reset();
    }
}

impl Benched for Box<HookPlugin> {
    fn new_turn(&mut self) {
        Hook::new_turn(self.as_mut());
    }
    fn reset_instance(&mut self) {
        self.reset();
    }
}

impl Benched for Box<ResolverPlugin> {
    fn new_turn(&mut self) {
        ResolverPlugin::new_turn(self);
    }
    fn reset_instance(&mut self) {
        self.reset();
    }
}

/// Warm and fresh figures of one call point: the median of [`ROUNDS`] rounds, each round as
/// many calls as fit in about [`ROUND`] (measured first). Each call starts a turn.
fn figures<P: Benched>(
    plugin: &mut P,
    point: &'static str,
    mut call: impl FnMut(&mut P) -> Result<(), PluginError>,
) -> Result<Row, PluginError> {
    let mut call = |plugin: &mut P| {
        plugin.new_turn();
        call(plugin)
    };
    // Warm-up, and the size of a round.
    let started = Instant::now();
    call(plugin)?;
    let mut calls = 1u32;
    while started.elapsed() < ROUND && calls < 1_000_000 {
        call(plugin)?;
        calls += 1;
    }
    let mut warm = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let started = Instant::now();
        for _ in 0..calls {
            call(plugin)?;
        }
        warm.push(started.elapsed().as_secs_f64() * 1e9 / f64::from(calls));
    }
    let mut fresh = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        plugin.reset_instance();
        let started = Instant::now();
        call(plugin)?;
        fresh.push(started.elapsed().as_secs_f64() * 1e9);
    }
    Ok(Row {
        point,
        warm_ns: median(&mut warm),
        fresh_ns: median(&mut fresh),
    })
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// `ns` with a unit that keeps three or four significant digits.
fn human(ns: f64) -> String {
    if ns < 1e3 {
        format!("{ns:.0} ns")
    } else if ns < 1e6 {
        format!("{:.2} µs", ns / 1e3)
    } else if ns < 1e9 {
        format!("{:.2} ms", ns / 1e6)
    } else {
        format!("{:.2} s", ns / 1e9)
    }
}

fn prompt_1k() -> String {
    let mut text = "lorem ipsum dolor sit amet ".repeat(38);
    text.truncate(1024);
    text
}

fn text_16k() -> String {
    let line = "let value = compute(input, 42); // a line of ordinary source text\n";
    let mut text = line.repeat((16 << 10) / line.len() + 1);
    text.truncate(16 << 10);
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_units() {
        assert_eq!(human(850.0), "850 ns");
        assert_eq!(human(1_640.0), "1.64 µs");
        assert_eq!(human(3_100_000.0), "3.10 ms");
        assert_eq!(human(2_500_000_000.0), "2.50 s");
    }

    #[test]
    fn median_of_odd_and_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut []), 0.0);
    }
}
