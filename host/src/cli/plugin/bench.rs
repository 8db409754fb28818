//! `warden plugin bench [FILE.wasm | builtin:NAME] [--name NAME] [--config k=v]... [--args
//! TOOL=JSON]... [--json]`: what a plugin costs. Runs every call point of the plugin's world on
//! a synthetic turn (a 1 KB prompt, a tool call and its 1 KB result, a compaction; for a
//! resolver, a 16 KB file; for a tool plugin, one call of each tool it describes) under its
//! usual sandbox and limits, and prints per call point the time of a call on a warm instance
//! and of a fresh instance + `init` + call, then the start-up time with a warm compiled-code
//! cache and cold (compiling). The plugin's `[plugins.config]` (and its limits and grants) come
//! from the workspace's configuration as `warden run` reads it, when an entry is named with
//! `--name` or points at FILE; `--config` overrides single keys. Nothing is written outside a
//! temporary directory that is removed at the end.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::{FsGrant, PluginEntry, ToolGrants};
use crate::domain::{
    CallPoint, CompactionInfo, CompactionMarker, Event, Hook, Interceptor, Item, RequestInfo,
    ResolveRequest, SubmittedPrompt, Tool, ToolCall, ToolContext, ToolDecision, ToolOutput,
    TurnInfo,
};
use crate::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, PluginError,
    ResolverPlugin, ResolverSource, ToolLoad, ToolPlugin, World, inspect, with_roots,
};

/// Timed rounds per figure; the median round is reported.
const ROUNDS: usize = 11;
/// Aimed-at length of one round of warm calls.
const ROUND: Duration = Duration::from_millis(20);
/// Start-ups timed with a warm cache.
const STARTS: usize = 7;
/// Most characters of a tool's error answer shown in the table (`--json` has it whole).
const ERROR_SHOWN: usize = 200;

/// One call point's figures, in nanoseconds per call.
struct Row {
    point: String,
    warm_ns: f64,
    fresh_ns: f64,
    /// A tool call's arguments.
    arguments: Option<serde_json::Value>,
    /// The text of the tool's error answer; `None` for a result.
    error: Option<String>,
    /// An interceptor's tool call (`{"tool", "arguments"}`) and what it decided on it.
    call: Option<(serde_json::Value, String)>,
}

/// What a plugin is loaded with.
struct Setup<'a> {
    world: World,
    name: &'a str,
    file: &'a Path,
    workspace: &'a Path,
    entry: Option<&'a PluginEntry>,
    /// A tool plugin's file-system grant (`--fs`, else its entry's, else none).
    fs: FsGrant,
}

/// What `plugin bench` was asked.
pub(crate) struct BenchArgs<'a> {
    /// The component: a file or `builtin:NAME` (else the configured entry's).
    pub file: Option<&'a Path>,
    /// The `[[plugins]]` entry whose config, limits and grants apply.
    pub name: Option<&'a str>,
    /// `--config KEY=VALUE` over the entry's config.
    pub config: &'a [String],
    /// `--args TOOL=JSON`: a tool's arguments.
    pub args: &'a [String],
    /// `--fs`: a tool plugin's grant over the synthetic workspace.
    pub fs: Option<FsGrant>,
    /// Workspace directory whose configuration is read.
    pub dir: Option<&'a Path>,
    /// Print one JSON object.
    pub json: bool,
}

/// Benchmark the plugin.
pub(crate) fn bench(args: &BenchArgs<'_>) -> Result<u8, CliError> {
    let json = args.json;
    let workspace = crate::front::workspace::Workspace::find(args.dir)?.root;
    let target = super::configured::target(&workspace, args.file, args.name, args.config)?;
    let tool_args = super::bench_tool::parse_args(args.args)?;
    let file = target.path.as_path();
    let init = target.init.clone();
    let bytes = crate::plugin::builtin::read(file, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let what = file.display().to_string();
    let name = target.name(args.name, "bench");
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
    let fs = match (args.fs, info.world) {
        (None, _) => target.entry.as_ref().map_or(FsGrant::None, |e| e.grants.fs),
        (Some(fs), World::Tool) => fs,
        (Some(_), world) => {
            return Err(CliError::usage(format!(
                "--fs is a tool plugin's grant; this component is {}",
                super::args::with_article(world.as_str())
            )));
        }
    };
    let load = |engine: &PluginEngine| -> Result<Loaded, PluginError> {
        Loaded::load(
            engine,
            &Setup {
                world: info.world,
                name: &name,
                file,
                workspace: &workspace,
                entry: target.entry.as_ref(),
                fs,
            },
            init.clone(),
        )
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
        .rows(&tool_args)
        .map_err(|err| CliError::failure(err.to_string()))?;

    if json {
        let calls: Vec<_> = rows
            .iter()
            .map(|r| {
                let mut row = json!({"point": r.point, "warm_ns": r.warm_ns.round(), "fresh_ns": r.fresh_ns.round()});
                if let Some((call, decision)) = &r.call {
                    row["call"] = call.clone();
                    if r.point == CallPoint::PreToolCall.name() {
                        // `deny`, `allow` or `rewrite`; the reason beside it.
                        let (verdict, why) = decision.split_once(": ").unwrap_or((decision, ""));
                        let verdict = verdict.split(' ').next().unwrap_or(verdict);
                        row["decision"] = json!(verdict);
                        if !why.is_empty() {
                            row["reason"] = json!(why);
                        }
                    }
                }
                if let Some(arguments) = &r.arguments {
                    row["arguments"] = arguments.clone();
                    row["is_error"] = json!(r.error.is_some());
                    if let Some(error) = &r.error {
                        row["error"] = json!(error);
                    }
                }
                row
            })
            .collect();
        let mut value = json!({
            "file": what,
            "name": name,
            "config": init.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
            "world": info.world.as_str(),
            "sha256": info.sha256,
            "size": info.size,
            "calls": calls,
            "startup": {
                "warm_cache_ns": warm_start.round(),
                "cold_ns": (cold.as_secs_f64() * 1e9).round(),
            },
        });
        if info.world == World::Tool {
            value["fs"] = json!(fs.as_str());
        }
        outln!("{value}");
    } else {
        outln!("plugin:   {what}");
        outln!("name:     {name}");
        outln!("world:    {} ({} bytes)", info.world, info.size);
        outln!("input:    {}", plugin.input());
        if !init.is_empty() {
            let mut from: Vec<String> = target
                .entry
                .iter()
                .map(PluginEntry::declared_where)
                .collect();
            if !args.config.is_empty() {
                from.push("--config".to_owned());
            }
            let from = from.join(" and ");
            let keys: Vec<&str> = init.iter().map(|(k, _)| k.as_str()).collect();
            outln!("config:   {} (from {from})", keys.join(", "));
        }
        if info.world == World::Tool {
            let from = match (args.fs, &target.entry) {
                (Some(_), _) => "--fs".to_owned(),
                (None, Some(entry)) => entry.declared_where(),
                (None, None) => "no [[plugins]] entry".to_owned(),
            };
            outln!("fs:       {} (from {from})", fs.as_str());
        }
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
            if let Some((call, decision)) = &row.call {
                outln!(
                    "  call {} {}: {}",
                    call["tool"].as_str().unwrap_or(""),
                    call["arguments"],
                    first_line(decision, ERROR_SHOWN)
                );
            }
            if let Some(arguments) = &row.arguments {
                match &row.error {
                    None => outln!("  arguments {arguments} (answered with a result)"),
                    Some(error) => outln!(
                        "  arguments {arguments} (answered with an error: {})",
                        first_line(error, ERROR_SHOWN)
                    ),
                }
            }
        }
        let unconfigured = args.fs.is_none() && target.entry.is_none();
        if unconfigured && rows.iter().any(|row| row.error.is_some()) {
            outln!(
                "note:     no [[plugins]] entry, so no grants: `--fs read` grants the bench's \
                 synthetic workspace"
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
    Tool(Box<ToolPlugin>),
}

impl Loaded {
    fn load(
        engine: &PluginEngine,
        setup: &Setup<'_>,
        init: Vec<(String, String)>,
    ) -> Result<Self, PluginError> {
        let Setup {
            world,
            name,
            file,
            workspace,
            entry,
            fs,
        } = *setup;
        let limits = entry.map_or_else(Limits::default, Limits::from_entry);
        Ok(match world {
            World::Interceptor => Self::Interceptor(Box::new(InterceptorPlugin::load(
                engine,
                name,
                file,
                None,
                limits,
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
                // The entry's grants and limits, over the synthetic workspace; none without one.
                // `--fs` replaces the file-system grant.
                let mut grants = entry.map_or_else(ToolGrants::default, |e| e.grants.clone());
                grants.fs = fs;
                let limits = entry.map_or_else(
                    || Limits {
                        timeout: Duration::from_millis(
                            crate::config::plugin_defaults::TOOL_TIMEOUT_MS,
                        ),
                        ..Limits::default()
                    },
                    Limits::from_entry,
                );
                let roots = [workspace.to_owned()];
                Self::Tool(Box::new(ToolPlugin::load(
                    engine,
                    name,
                    ToolLoad {
                        path: file,
                        pin: None,
                        limits,
                        grants: &grants,
                        roots: &roots,
                        deny: &[],
                    },
                    init,
                    &crate::cli::common::env,
                )?))
            }
        })
    }

    fn input(&self) -> &'static str {
        match self {
            Self::Interceptor(_) => {
                "a 1 KB prompt, a request, a turn end, a tool call and its 1 KB result, a compaction"
            }
            Self::Hook(_) => "a 1 KB prompt event, a request, a 1 KB answer, a turn end",
            Self::Resolver(_) => "a 16 KB text file",
            Self::Tool(_) => "one call of each tool, in a workspace holding a 16 KB text file",
        }
    }

    /// The figures of every call point.
    fn rows(&mut self, tool_args: &[(String, serde_json::Value)]) -> Result<Vec<Row>, PluginError> {
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
                // The calls `--args` gives (a guard's deny branch as well as its allow), else
                // a read of the synthetic file.
                let calls: Vec<ToolCall> = if tool_args.is_empty() {
                    vec![ToolCall {
                        id: "call-bench".into(),
                        name: "read_file".into(),
                        arguments: serde_json::json!({"path": "16k.txt"}),
                    }]
                } else {
                    tool_args
                        .iter()
                        .map(|(tool, arguments)| ToolCall {
                            id: "call-bench".into(),
                            name: tool.clone(),
                            arguments: arguments.clone(),
                        })
                        .collect()
                };
                let output = ToolOutput::ok(prompt.clone());
                let compaction = CompactionInfo {
                    session: "bench".into(),
                    replaces: CompactionMarker { from: 1, to: 12 },
                    summary: prompt.clone(),
                    files: vec!["16k.txt".into()],
                };
                let mut rows = vec![
                    figures(p, CallPoint::OnPromptSubmit.name(), |p| {
                        p.on_prompt_submit(&submitted).map(drop)
                    })?,
                    figures(p, CallPoint::PreLlmRequest.name(), |p| {
                        p.pre_llm_request(&request).map(drop)
                    })?,
                    figures(p, CallPoint::OnTurnEnd.name(), |p| {
                        p.on_turn_end(&turn).map(drop)
                    })?,
                ];
                for call in &calls {
                    let shown = serde_json::json!({"tool": call.name, "arguments": call.arguments});
                    Interceptor::new_turn(p.as_mut());
                    let decision = match p.pre_tool_call(call)? {
                        ToolDecision::Allow => "allow".to_owned(),
                        ToolDecision::Deny(reason) => format!("deny: {reason}"),
                        ToolDecision::Ask(reason) => format!("ask: {reason}"),
                        ToolDecision::Rewrite(arguments) => format!("rewrite to {arguments}"),
                    };
                    let mut row = figures(p, CallPoint::PreToolCall.name(), |p| {
                        p.pre_tool_call(call).map(drop)
                    })?;
                    row.call = Some((shown.clone(), decision));
                    rows.push(row);
                    let mut row = figures(p, CallPoint::PostToolCall.name(), |p| {
                        p.post_tool_call(call, &output).map(drop)
                    })?;
                    row.call = Some((shown, "after a 1 KB result".to_owned()));
                    rows.push(row);
                }
                rows.push(figures(p, CallPoint::Compaction.name(), |p| {
                    p.on_compaction(&compaction).map(drop)
                })?);
                Ok(rows)
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
            Self::Tool(p) => {
                let mut rows = Vec::new();
                let tools = p.tools();
                for (spec, tool) in p.specs().to_vec().into_iter().zip(tools) {
                    let arguments = super::bench_tool::arguments(&spec, tool_args);
                    let mut benched = BenchedTool {
                        plugin: p,
                        tool,
                        error: None,
                    };
                    let mut row = figures(&mut benched, &format!("call {}", spec.name), |t| {
                        t.call(&arguments)
                    })?;
                    row.arguments = Some(arguments);
                    row.error = benched.error;
                    rows.push(row);
                }
                Ok(rows)
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

/// One tool of a tool plugin, as the bench drives it.
struct BenchedTool<'a> {
    plugin: &'a ToolPlugin,
    tool: Box<dyn Tool + Send>,
    /// The text of the last call's error answer.
    error: Option<String>,
}

impl BenchedTool<'_> {
    /// One call; a failure of the plugin itself (trap, deadline, memory) ends the bench, an
    /// error answer (bad arguments, a missing file) is a figure like any other.
    fn call(&mut self, arguments: &serde_json::Value) -> Result<(), PluginError> {
        let mut resolver = super::bench_tool::NoResolver;
        let cancelled = || false;
        let mut context = ToolContext {
            resolver: &mut resolver,
            cancelled: &cancelled,
        };
        let output = self.tool.run(arguments, &mut context);
        self.error = output.is_error.then_some(output.content);
        match output.figures.and_then(|f| f.failure) {
            Some(message) => Err(PluginError::Load {
                plugin: self.plugin.name().to_owned(),
                stage: "bench",
                message,
            }),
            None => Ok(()),
        }
    }
}

impl Benched for BenchedTool<'_> {
    fn new_turn(&mut self) {
        self.tool.new_turn();
    }
    fn reset_instance(&mut self) {
        self.plugin.reset();
    }
}

/// Warm and fresh figures of one call point: the median of [`ROUNDS`] rounds, each round as
/// many calls as fit in about [`ROUND`] (measured first). Each call starts a turn.
fn figures<P: Benched>(
    plugin: &mut P,
    point: &str,
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
        point: point.to_owned(),
        warm_ns: median(&mut warm),
        fresh_ns: median(&mut fresh),
        arguments: None,
        error: None,
        call: None,
    })
}

/// The first line of `text`, cut to `max` characters with `…` when longer, or when more
/// lines follow.
fn first_line(text: &str, max: usize) -> String {
    let mut lines = text.lines();
    let line = lines.next().unwrap_or("");
    let mut shown: String = line.chars().take(max).collect();
    if shown.len() < line.len() || lines.next().is_some() {
        shown.push('…');
    }
    shown
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
    fn first_line_cuts_long_and_multi_line_errors() {
        assert_eq!(
            first_line("no such file: a.txt", 200),
            "no such file: a.txt"
        );
        assert_eq!(first_line("one\ntwo", 200), "one…");
        assert_eq!(first_line("ééééé", 3), "ééé…");
        assert_eq!(first_line("", 3), "");
    }

    #[test]
    fn median_of_odd_and_empty() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&mut []), 0.0);
    }
}
