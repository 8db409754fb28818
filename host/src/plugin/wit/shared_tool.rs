//! What 0.2.0 and 0.3.0 share about tools: the conversions of tool calls, decisions, results
//! and specs, and the interceptor's tool-call points. Expanded in each of those versions'
//! `convert` module (where `wit` names its types and `super::Interceptor` its interceptor
//! world); 0.1.0 has none of it and gives the points their defaults.

/// A tool as `describe` returned it, before the host checks it (the same in every version).
pub(crate) struct DescribedTool {
    /// Tool name.
    pub(crate) name: String,
    /// What it does.
    pub(crate) description: String,
    /// JSON schema of its arguments, as text.
    pub(crate) parameters: String,
}

/// Expands the tool conversions and the `pre-tool-call`/`post-tool-call` calls.
macro_rules! tool_conversions {
    () => {
        use $crate::domain::{ToolDecision, ToolOutput};
        use $crate::plugin::error::PluginError;
        use $crate::plugin::instance::Managed;
        use $crate::plugin::limits::MAX_PLUGIN_STRING;

        /// The tool-decision event in this version's form; `None` for every other event.
        fn tool_decided_to_wit(e: &Event) -> Option<wit::Event> {
            let Event::ToolDecided { call, by, decision } = e else {
                return None;
            };
            Some(wit::Event::ToolDecided(wit::ToolDecision {
                call: tool_call_to_wit(call),
                by: by.clone(),
                action: tool_action_to_wit(decision),
            }))
        }

        /// `pre-tool-call`: the plugin's decision, or why its answer is invalid.
        pub(crate) fn pre_tool_call(
            m: &mut Managed<super::Interceptor>,
            call: &ToolCall,
            max_bytes: usize,
        ) -> Result<Result<ToolDecision, String>, PluginError> {
            let arg = tool_call_to_wit(call);
            let action = m.call($crate::domain::CallPoint::PreToolCall.name(), |b, store| {
                b.warden_plugin_intercept().call_pre_tool_call(store, &arg)
            })?;
            Ok(tool_action_from_wit(action, max_bytes))
        }

        /// `post-tool-call`: the items the plugin adds after the call's result.
        pub(crate) fn post_tool_call(
            m: &mut Managed<super::Interceptor>,
            call: &ToolCall,
            output: &ToolOutput,
        ) -> Result<Vec<Item>, PluginError> {
            let arg = tool_call_to_wit(call);
            let result = tool_result_to_wit(&call.id, output);
            let items = m.call(
                $crate::domain::CallPoint::PostToolCall.name(),
                |b, store| {
                    b.warden_plugin_intercept()
                        .call_post_tool_call(store, &arg, &result)
                },
            )?;
            Ok(items.into_iter().map(item_from_wit).collect())
        }

        /// A domain tool decision as a WIT tool action.
        pub(crate) fn tool_action_to_wit(d: &ToolDecision) -> wit::ToolAction {
            match d {
                // An ask is no decision yet: hooks hear of the person's answer.
                ToolDecision::Allow | ToolDecision::Ask(_) => wit::ToolAction::Allow,
                ToolDecision::Deny(reason) => wit::ToolAction::Deny(reason.clone()),
                ToolDecision::Rewrite(arguments) => wit::ToolAction::Rewrite(arguments.to_string()),
            }
        }

        /// An interceptor's tool action as a domain decision. A deny reason is escaped and capped;
        /// rewritten arguments must be a JSON object of at most `max_bytes` (else the answer is
        /// invalid, and the message says why).
        pub(crate) fn tool_action_from_wit(
            a: wit::ToolAction,
            max_bytes: usize,
        ) -> Result<ToolDecision, String> {
            match a {
                wit::ToolAction::Allow => Ok(ToolDecision::Allow),
                wit::ToolAction::Deny(reason) if reason.len() > max_bytes => {
                    Err(format!("deny reason of {} bytes", reason.len()))
                }
                wit::ToolAction::Deny(reason) => Ok(ToolDecision::Deny(escape_capped(
                    &reason,
                    MAX_PLUGIN_STRING,
                ))),
                wit::ToolAction::Rewrite(arguments) => {
                    if arguments.len() > max_bytes {
                        return Err(format!(
                            "rewritten arguments of {} bytes, over the cap of {max_bytes}",
                            arguments.len()
                        ));
                    }
                    match serde_json::from_str::<serde_json::Value>(&arguments) {
                        Ok(value @ serde_json::Value::Object(_)) => {
                            Ok(ToolDecision::Rewrite(value))
                        }
                        Ok(_) => Err("rewritten arguments are not a JSON object".to_owned()),
                        Err(err) => Err(format!("rewritten arguments are not JSON: {err}")),
                    }
                }
            }
        }

        /// A tool's output as the result item `post-tool-call` is shown.
        pub(crate) fn tool_result_to_wit(
            call_id: &str,
            output: &ToolOutput,
        ) -> wit::ToolResultItem {
            wit::ToolResultItem {
                call_id: call_id.to_owned(),
                content: output.content.clone(),
                is_error: output.is_error,
            }
        }

        /// `describe`: the tools the plugin offers, as it described them.
        pub(crate) fn describe(
            m: &mut Managed<super::ToolWorld>,
        ) -> Result<Vec<$crate::plugin::wit::shared_tool::DescribedTool>, PluginError> {
            let described = m.call("describe", |b, store| {
                b.warden_plugin_act().call_describe(store)
            })?;
            Ok(described
                .into_iter()
                .map(|s| $crate::plugin::wit::shared_tool::DescribedTool {
                    name: s.name,
                    description: s.description,
                    parameters: s.parameters,
                })
                .collect())
        }

        /// `call` of tool `name`: its output or its error text, with the call's HTTP figures
        /// written to `figures`.
        pub(crate) fn call_tool(
            m: &mut Managed<super::ToolWorld>,
            hosts: &[String],
            deadline: std::time::Instant,
            name: &str,
            arguments: &str,
            figures: &mut $crate::plugin::outgoing::HttpFigures,
        ) -> Result<Result<String, String>, PluginError> {
            m.call("call", |b, store| {
                store.data_mut().outgoing.begin_call(hosts, deadline);
                let answer = b
                    .warden_plugin_act()
                    .call_call(&mut *store, name, arguments);
                *figures = store.data().outgoing.figures;
                answer.map(|r| r.map(|out| out.content))
            })
        }
    };
}

pub(crate) use tool_conversions;
