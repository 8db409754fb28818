//! `warden plugin call FILE POINT JSON [--config k=v]...`: one call of one point of a
//! component, its answer printed as one JSON object (as `extism call` does). An interceptor
//! takes its call points (`on-prompt-submit {"text"}`, `pre-llm-request {"prompt", "step"}`,
//! `on-turn-end {"prompt", "answer"}`, `pre-tool-call {"tool", "arguments"}`,
//! `post-tool-call {"tool", "arguments", "output", "is_error"}`, `on-compaction {"summary"}`);
//! a tool plugin takes the name of one of its tools and that tool's arguments. The plugin sees
//! the workspace as its root; a tool plugin is granted nothing.

use std::path::Path;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli::exit::{CliError, EXIT_OK};
use crate::cli::out::outln;
use crate::config::ToolGrants;
use crate::domain::{
    CallPoint, CompactionInfo, CompactionMarker, Item, PromptDecision, RequestInfo,
    SubmittedPrompt, ToolCall, ToolContext, ToolDecision, ToolOutput, TurnEndDecision, TurnInfo,
};
use crate::plugin::{
    InterceptorPlugin, Limits, MAX_COMPONENT_BYTES, PluginError, ToolLoad, ToolPlugin, World,
    inspect, with_roots,
};

/// The session id the calls carry.
const SESSION: &str = "plugin-call";

/// The interceptor points `plugin call` takes.
const POINTS: [CallPoint; 6] = [
    CallPoint::OnPromptSubmit,
    CallPoint::PreLlmRequest,
    CallPoint::OnTurnEnd,
    CallPoint::PreToolCall,
    CallPoint::PostToolCall,
    CallPoint::Compaction,
];

/// Call `point` of the component `file` with `input` (JSON); print its answer.
pub(crate) fn call(
    file: &Path,
    point: &str,
    input: &str,
    config: &[String],
    dir: Option<&Path>,
) -> Result<u8, CliError> {
    let input: Value = serde_json::from_str(input)
        .map_err(|err| CliError::usage(format!("the input of {point} is not JSON: {err}")))?;
    let workspace = crate::front::workspace::Workspace::find(dir)?.root;
    let init = super::replay::parse_config(config)?;
    let bytes = crate::plugin::builtin::read(file, MAX_COMPONENT_BYTES)
        .map_err(|err| CliError::usage(err.to_string()))?;
    let what = file.display().to_string();
    let engine = super::oci_common::engine(MAX_COMPONENT_BYTES)?;
    let (info, _) =
        inspect(&engine, &what, &bytes).map_err(|err| CliError::usage(err.to_string()))?;
    let roots = [workspace];
    let failed = |err: PluginError| CliError::failure(err.to_string());
    let answer = match info.world {
        World::Interceptor => {
            let point = POINTS
                .into_iter()
                .find(|p| p.name() == point)
                .ok_or_else(|| {
                    let names: Vec<&str> = POINTS.iter().map(|p| p.name()).collect();
                    CliError::usage(format!(
                        "{what} is an interceptor: POINT is one of {}, not {point:?}",
                        names.join(", ")
                    ))
                })?;
            let mut plugin = InterceptorPlugin::load(
                &engine,
                "call",
                file,
                None,
                Limits::default(),
                with_roots(init, &roots),
            )
            .map_err(|err| CliError::usage(err.to_string()))?;
            intercept(&mut plugin, point, &input).map_err(|err| match err {
                Failure::Input(message) => CliError::usage(message),
                Failure::Plugin(err) => failed(err),
            })?
        }
        World::Tool => {
            let plugin = ToolPlugin::load(
                &engine,
                "call",
                ToolLoad {
                    path: file,
                    pin: None,
                    limits: Limits {
                        timeout: Duration::from_millis(
                            crate::config::plugin_defaults::TOOL_TIMEOUT_MS,
                        ),
                        ..Limits::default()
                    },
                    grants: &ToolGrants::default(),
                    roots: &roots,
                    deny: &[],
                },
                init,
                &crate::cli::common::env,
            )
            .map_err(|err| CliError::usage(err.to_string()))?;
            let names: Vec<String> = plugin.specs().iter().map(|s| s.name.clone()).collect();
            let Some(index) = names.iter().position(|n| n == point) else {
                return Err(CliError::usage(format!(
                    "{what} is a tool plugin: POINT is one of its tools ({}), not {point:?}",
                    names.join(", ")
                )));
            };
            let mut tools = plugin.tools();
            let mut tool = tools.swap_remove(index);
            let mut resolver = super::bench_tool::NoResolver;
            let cancelled = || false;
            let mut context = ToolContext {
                resolver: &mut resolver,
                cancelled: &cancelled,
            };
            let output = tool.run(&input, &mut context);
            if let Some(failure) = output.figures.as_ref().and_then(|f| f.failure.clone()) {
                return Err(CliError::failure(format!("{what}: {point}: {failure}")));
            }
            json!({"output": output.content, "is_error": output.is_error})
        }
        World::Hook | World::Resolver => {
            return Err(CliError::usage(format!(
                "{what} is a {}: `plugin call` takes an interceptor's call points or a tool plugin's tools; try a {} with `warden plugin bench` or `warden plugin replay`",
                info.world, info.world
            )));
        }
    };
    outln!("{answer}");
    Ok(EXIT_OK)
}

/// Why a call gave no answer: the input does not fit the point, or the plugin failed.
enum Failure {
    Input(String),
    Plugin(PluginError),
}

impl From<PluginError> for Failure {
    fn from(err: PluginError) -> Self {
        Self::Plugin(err)
    }
}

/// The string `key` of `input`, or `default`.
fn text(input: &Value, key: &str, default: &str) -> String {
    input[key].as_str().unwrap_or(default).to_owned()
}

/// The unsigned number `key` of `input`, or 0.
fn number(input: &Value, key: &str) -> u32 {
    input[key]
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0)
}

/// The tool call in `input` (`tool`, `arguments`, optional `id`).
fn tool_call(input: &Value) -> Result<ToolCall, Failure> {
    let Some(tool) = input["tool"].as_str() else {
        return Err(Failure::Input(
            "the input needs `tool` (the tool's name) and `arguments` (a JSON object)".into(),
        ));
    };
    Ok(ToolCall {
        id: text(input, "id", "call-1"),
        name: tool.to_owned(),
        arguments: input.get("arguments").cloned().unwrap_or(json!({})),
    })
}

/// Call `point` of `plugin` with `input`; its answer as JSON.
fn intercept(
    plugin: &mut InterceptorPlugin,
    point: CallPoint,
    input: &Value,
) -> Result<Value, Failure> {
    let items = |items: &[Item]| serde_json::to_value(items).unwrap_or(Value::Null);
    Ok(match point {
        CallPoint::OnPromptSubmit => {
            let prompt = text(input, "text", "");
            let submitted = SubmittedPrompt {
                session: SESSION.into(),
                items: vec![Item::user(prompt.clone())],
                text: prompt,
            };
            match plugin.on_prompt_submit(&submitted)? {
                PromptDecision::Continue => json!({"decision": "continue"}),
                PromptDecision::Cancel(reason) => json!({"decision": "cancel", "reason": reason}),
                PromptDecision::ContinueWith(added) => {
                    json!({"decision": "continue-with", "items": items(&added)})
                }
            }
        }
        CallPoint::PreLlmRequest => {
            let request = RequestInfo {
                session: SESSION.into(),
                prompt: text(input, "prompt", ""),
                step: number(input, "step"),
                history_items: number(input, "history_items"),
            };
            json!({"items": items(&plugin.pre_llm_request(&request)?)})
        }
        CallPoint::OnTurnEnd => {
            let turn = TurnInfo {
                session: SESSION.into(),
                prompt: text(input, "prompt", ""),
                answer: text(input, "answer", ""),
                continuations: number(input, "continuations"),
            };
            match plugin.on_turn_end(&turn)? {
                TurnEndDecision::Finish => json!({"decision": "finish"}),
                TurnEndDecision::ContinueWith(added) => {
                    json!({"decision": "continue-with", "items": items(&added)})
                }
            }
        }
        CallPoint::PreToolCall => match plugin.pre_tool_call(&tool_call(input)?)? {
            ToolDecision::Allow => json!({"decision": "allow"}),
            ToolDecision::Deny(reason) => json!({"decision": "deny", "reason": reason}),
            ToolDecision::Ask(reason) => json!({"decision": "ask", "reason": reason}),
            ToolDecision::Rewrite(arguments) => {
                json!({"decision": "rewrite", "arguments": arguments})
            }
        },
        CallPoint::PostToolCall => {
            let call = tool_call(input)?;
            let content = text(input, "output", "");
            let output = if input["is_error"].as_bool() == Some(true) {
                ToolOutput::error(content)
            } else {
                ToolOutput::ok(content)
            };
            json!({"items": items(&plugin.post_tool_call(&call, &output)?)})
        }
        CallPoint::Compaction => {
            let info = CompactionInfo {
                session: SESSION.into(),
                replaces: CompactionMarker {
                    from: u64::from(number(input, "from")),
                    to: u64::from(number(input, "to")),
                },
                summary: text(input, "summary", ""),
                files: input["files"]
                    .as_array()
                    .map(|a| {
                        a.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default(),
            };
            json!({"items": items(&plugin.on_compaction(&info)?)})
        }
        // A hook's point: never among [`POINTS`].
        CallPoint::OnEvent => {
            return Err(Failure::Input(format!(
                "{} is a hook's point, not an interceptor's",
                point.name()
            )));
        }
    })
}
