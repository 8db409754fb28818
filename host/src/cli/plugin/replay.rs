//! `warden plugin replay SESSION [FILE.wasm | builtin:NAME] [--name NAME] [--config k=v]...
//! [--json] [--diff]`: feed a plugin the inputs a recorded session saw and print, per call
//! point, what it would decide beside what the chain decided then. Its config is that of its
//! `[[plugins]]` entry in the session's workspace (named with `--name`, or pointing at FILE), as
//! `warden run` reads it, with `--config` over it. The plugin runs in the usual sandbox;
//! nothing is written (no history, no audit, no compiled-code cache).
//!
//! `--hook NAME` replays a `[[hooks]]` entry of the workspace instead: its command runs in its
//! sandbox at each recorded point of its event, and its answers are compared with those the
//! chain recorded under `hook:NAME`.

use std::path::Path;

use serde_json::json;

use crate::cli::common::home;
use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::plugin::{
    EngineOptions, HookPlugin, InterceptorPlugin, Limits, PluginEngine, World, inspect, with_roots,
};
use crate::store::{load, read_audit};
use crate::worker::replay::{
    Decision, PointInput, PointsFrom, ReplayRow, recorded_events, replay_hook, replay_interceptor,
    session_points,
};

/// What `plugin replay` was asked.
pub(crate) struct ReplayArgs<'a> {
    /// Session id (or a unique prefix).
    pub session: &'a str,
    /// The component: a file or `builtin:NAME` (else the configured entry's).
    pub file: Option<&'a Path>,
    /// The name the plugin goes by, and its `[[plugins]]` entry.
    pub name: Option<&'a str>,
    /// A `[[hooks]]` entry to replay instead of a component.
    pub hook: Option<&'a str>,
    /// `--config KEY=VALUE` over the entry's config.
    pub config: &'a [String],
    /// Print one JSON object.
    pub json: bool,
    /// Print only the differing points.
    pub diff: bool,
}

/// Replay the session into the plugin.
pub(crate) fn replay(args: &ReplayArgs<'_>) -> Result<u8, CliError> {
    let (json, diff) = (args.json, args.diff);
    let home = home()?;
    let session = &crate::cli::session::resolve(&home, args.session)?;
    let loaded = load(&home, session).map_err(|err| CliError::usage(err.to_string()))?;
    if let Some(hook) = args.hook {
        let (audit, _) =
            read_audit(&home, session).map_err(|err| CliError::usage(err.to_string()))?;
        let (points, from) = session_points(session, &loaded.records, &audit);
        let mut hook = command_hook(&loaded.header.workspace, session, hook)?;
        let rows = replay_interceptor(&points, &mut hook);
        print_rows(session, &rows, from, json, diff);
        return Ok(EXIT_OK);
    }
    let target =
        super::configured::target(&loaded.header.workspace, args.file, args.name, args.config)?;
    let file = target.path.as_path();
    // The plugin sees the roots the session had, as it would have in the session.
    let init = with_roots(
        target.init.clone(),
        std::slice::from_ref(&loaded.header.workspace),
    );
    let (audit, _) = read_audit(&home, session).map_err(|err| CliError::usage(err.to_string()))?;
    let bytes = crate::plugin::builtin::read(file, crate::plugin::MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let engine = PluginEngine::new(EngineOptions::default())
        .map_err(|err| CliError::failure(err.to_string()))?;
    let (info, _) = inspect(&engine, &file.display().to_string(), &bytes)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let (points, from) = session_points(session, &loaded.records, &audit);
    let recorded: Vec<&str> = points
        .iter()
        .flat_map(|p| p.chain.iter())
        .filter_map(|entry| entry.split_once(": ").map(|(name, _)| name))
        .collect();
    let name = match (args.name, &target.entry) {
        (Some(name), _) => name.to_owned(),
        (None, Some(entry)) => entry.name.clone(),
        (None, None) => plugin_name(file, &recorded),
    };
    match info.world {
        World::Interceptor => {
            let mut plugin =
                InterceptorPlugin::load(&engine, &name, file, None, Limits::default(), init)
                    .map_err(|err| CliError::usage(err.to_string()))?;
            let rows = replay_interceptor(&points, &mut plugin);
            print_rows(session, &rows, from, json, diff);
        }
        World::Hook => {
            let mut plugin = HookPlugin::load(&engine, &name, file, None, Limits::default(), init)
                .map_err(|err| CliError::usage(err.to_string()))?;
            let events = recorded_events(&loaded.records);
            let results = replay_hook(&events, &mut plugin);
            print_events(session, &events, &results, json, diff);
        }
        World::Resolver => {
            return Err(CliError::usage(format!(
                "{}: a resolver has no decisions to replay; try it with `warden preview`",
                file.display()
            )));
        }
        World::Tool => {
            return Err(CliError::usage(format!(
                "{}: a tool plugin has no decisions to replay",
                file.display()
            )));
        }
    }
    Ok(EXIT_OK)
}

/// The `[[hooks]]` entry `name` of `workspace`'s configuration, ready to run at the recorded
/// points of `session`.
fn command_hook(
    workspace: &Path,
    session: &str,
    name: &str,
) -> Result<crate::command_hook::CommandHook, CliError> {
    let loaded = crate::config::load(&crate::cli::common::sources(workspace))
        .map_err(|err| CliError::usage(err.to_string()))?;
    let config = loaded.config;
    let Some(entry) = config.hooks.iter().find(|h| h.name == name).cloned() else {
        let known: Vec<&str> = config.hooks.iter().map(|h| h.name.as_str()).collect();
        return Err(CliError::usage(format!(
            "no [[hooks]] entry `{name}` in {}'s configuration{}",
            workspace.display(),
            if known.is_empty() {
                String::new()
            } else {
                format!(" (hooks: {})", known.join(", "))
            }
        )));
    };
    let launch = crate::setup::mcp_options(&config, workspace);
    let mut hook = crate::command_hook::CommandHook::new(entry, launch).map_err(CliError::usage)?;
    crate::domain::Interceptor::set_context(
        &mut hook,
        &crate::domain::TurnContext {
            session: session.to_owned(),
            transcript_path: None,
            cwd: workspace.display().to_string(),
            mode: config.tools.mode,
            model: config.model.name.clone().unwrap_or_default(),
            turn_id: "replay".to_owned(),
            session_start: None,
            parent: None,
        },
    );
    Ok(hook)
}

/// The name the plugin at `file` goes by when no `[[plugins]]` entry of the session's workspace
/// points at it: a name the session's audit log records that differs from the file's stem (or
/// a builtin's name) only in `-` and `_` (cargo writes `card_guard.wasm` for the crate
/// `card-guard`), else the stem.
fn plugin_name(file: &Path, recorded: &[&str]) -> String {
    let stem = crate::plugin::builtin::builtin_name(file)
        .map(str::to_owned)
        .or_else(|| file.file_stem().map(|s| s.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "replay".into());
    let plain = |s: &str| s.replace('_', "-");
    recorded
        .iter()
        .map(|name| name.strip_prefix("plugin:").unwrap_or(name))
        .find(|name| plain(name) == plain(&stem))
        .map_or(stem, str::to_owned)
}

/// `--config KEY=VALUE` arguments as a plugin's `init` config.
pub(super) fn parse_config(config: &[String]) -> Result<Vec<(String, String)>, CliError> {
    config
        .iter()
        .map(|pair| match pair.split_once('=') {
            Some((k, v)) if !k.is_empty() => Ok((k.to_owned(), v.to_owned())),
            _ => Err(CliError::usage(format!(
                "--config {pair:?}: expected KEY=VALUE"
            ))),
        })
        .collect()
}

fn input_json(input: &PointInput) -> serde_json::Value {
    match input {
        PointInput::Prompt(p) => json!({"prompt": p.text, "items": p.items.len()}),
        PointInput::CancelledPrompt => {
            json!({"prompt": null, "note": "cancelled then; its text was never committed"})
        }
        PointInput::Request(r) => json!({"step": r.step, "history_items": r.history_items}),
        PointInput::TurnEnd(t) => json!({"answer": t.answer, "continuations": t.continuations}),
        PointInput::ToolCall(call) => {
            json!({"tool": call.name, "call_id": call.id, "arguments": call.arguments})
        }
        PointInput::ToolResult(call, output) => json!({
            "tool": call.name,
            "call_id": call.id,
            "arguments": call.arguments,
            "is_error": output.is_error,
            "bytes": output.content.len(),
        }),
    }
}

/// What a session without recorded call points can and cannot replay.
const FROM_HISTORY: &str = "this session has no recorded call points (it was written by an older warden): prompts, model requests and turn ends are rebuilt from its history; tool calls are not replayed";

/// The points a row's decision would have prevented, for people.
fn prevented(rows: &[ReplayRow], row: &ReplayRow) -> Vec<String> {
    row.prevents
        .iter()
        .filter_map(|&i| rows.get(i))
        .map(|r| format!("{} {}", r.point.input.point(), r.point.input.describe()))
        .collect()
}

fn print_rows(session: &str, rows: &[ReplayRow], from: PointsFrom, json: bool, diff: bool) {
    let shown: Vec<&ReplayRow> = rows.iter().filter(|r| !diff || r.differs()).collect();
    if json {
        let points: Vec<_> = shown
            .iter()
            .map(|r| {
                json!({
                    "turn": r.point.turn,
                    "point": r.point.input.point(),
                    "input": input_json(&r.point.input),
                    "then": r.point.then,
                    "chain": r.point.chain,
                    "now": r.now,
                    "differs": r.differs(),
                    "unreached": r.unreached,
                    "would_not_happen": prevented(rows, r),
                })
            })
            .collect();
        let differ = rows.iter().filter(|r| r.differs()).count();
        let mut out = json!({"session": session, "from": from, "points": points, "differ": differ});
        if from == PointsFrom::History {
            out["note"] = json!(FROM_HISTORY);
        }
        outln!("{out}");
        return;
    }
    if from == PointsFrom::History {
        outln!("note: {FROM_HISTORY}");
    }
    for row in &shown {
        let mark = if row.differs() { "  ← differs" } else { "" };
        outln!(
            "turn {} {} {}{mark}",
            row.point.turn,
            row.point.input.point(),
            row.point.input.describe()
        );
        outln!("  then: {}", describe(&row.point.then));
        match &row.now {
            Some(now) => outln!("  now:  {}", describe(now)),
            None if row.unreached => outln!("  now:  (would not have happened)"),
            None => outln!("  now:  (not replayed)"),
        }
        // `--diff` keeps to the differing points themselves; the JSON always lists these.
        let prevented = if diff {
            Vec::new()
        } else {
            prevented(rows, row)
        };
        if !prevented.is_empty() {
            outln!("  would not have happened after it:");
            for what in prevented {
                outln!("    {what}");
            }
        }
    }
    outln!("{}", summary(rows));
}

/// The last line of the text output: how many points were replayed and how many differ.
fn summary(rows: &[ReplayRow]) -> String {
    let replayed = rows.iter().filter(|r| r.now.is_some()).count();
    let differ = rows.iter().filter(|r| r.differs()).count();
    let unreached = rows.iter().filter(|r| r.unreached).count();
    let mut out = format!(
        "replayed {replayed} of {} call points: {differ} differs",
        rows.len()
    );
    if unreached > 0 {
        out.push_str(&format!(", {unreached} would not have happened"));
    }
    out
}

fn describe(decision: &Decision) -> String {
    match decision {
        Decision::Continue => "continue".into(),
        Decision::Finish => "finish".into(),
        Decision::Cancel { reason, by } => match by {
            Some(by) => format!("cancel({reason}) by {by}"),
            None => format!("cancel({reason})"),
        },
        Decision::ContinueWith { items } => {
            let list: Vec<String> = items
                .iter()
                .map(|i| format!("[{} {}] {:?}", i.role, i.source, i.text))
                .collect();
            format!("continue-with {} item(s): {}", items.len(), list.join(", "))
        }
        Decision::Failed { message } => format!("failed: {message}"),
        Decision::Allow { by: None } => "allow".into(),
        Decision::Allow { by: Some(by) } => format!("allow by {by}"),
        Decision::Deny { reason, by } => match by {
            Some(by) => format!("deny({reason}) by {by}"),
            None => format!("deny({reason})"),
        },
        Decision::Rewrite { arguments } => format!("rewrite {arguments}"),
        Decision::Ask { reason } => format!("ask({reason})"),
    }
}

fn print_events(
    session: &str,
    events: &[(usize, crate::domain::Event)],
    results: &[Option<String>],
    json: bool,
    diff: bool,
) {
    let rows: Vec<_> = events
        .iter()
        .zip(results)
        .filter(|(_, r)| !diff || r.is_some())
        .collect();
    if json {
        let list: Vec<_> = rows
            .iter()
            .map(|((turn, event), result)| {
                json!({"turn": turn, "event": format!("{event:?}").split(['(', ' ', '{']).next().unwrap_or(""), "then": "delivered", "now": match result { None => "delivered".to_owned(), Some(e) => format!("failed: {e}") }})
            })
            .collect();
        outln!("{}", json!({"session": session, "events": list}));
        return;
    }
    for ((turn, event), result) in rows {
        let kind = format!("{event:?}");
        let kind = kind.split(['(', ' ', '{']).next().unwrap_or("");
        match result {
            None => outln!("turn {turn} {kind}: delivered"),
            Some(err) => outln!("turn {turn} {kind}: failed: {err}  ← differs"),
        }
    }
    let failed = results.iter().filter(|r| r.is_some()).count();
    outln!(
        "replayed {} events: {failed} failed",
        events.len().min(results.len())
    );
}
