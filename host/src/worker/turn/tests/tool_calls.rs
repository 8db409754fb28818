//! Tool calls through the chain: `pre-tool-call` denies and rewrites, approval, the run, and
//! `post-tool-call` items, with the whole committed transcript, the hooks' events and the
//! audit records compared.

use serde_json::Value;

use super::*;
use crate::config::{Approve, FsGrant, ToolGrants};
use crate::domain::{Approval, Tool, ToolContext, ToolDecision, ToolOutput, ToolSpec, TurnSink};
use crate::store::{AuditEvent, read_audit};
use crate::worker::ToolOwner;
use pretty_assertions::assert_eq;

/// Records every event it sees.
struct Recorder(Arc<Mutex<Vec<Event>>>);

impl Hook for Recorder {
    fn name(&self) -> &str {
        "recorder"
    }

    fn on_event(&mut self, event: &Event) -> Result<(), PluginFailure> {
        self.0.lock().unwrap().push(event.clone());
        Ok(())
    }
}

/// A native tool that answers with the arguments it received.
struct EchoTool;

impl Tool for EchoTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "echo".into(),
            description: "Echoes its arguments.".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    fn run(&mut self, arguments: &Value, _context: &mut ToolContext<'_>) -> ToolOutput {
        ToolOutput::ok(format!("echo {arguments}"))
    }
}

/// A sink that answers approvals from a script and counts the questions (tool, and the
/// plugin or `mode <mode>` that asked).
#[derive(Default)]
pub(super) struct Approver {
    pub(super) inner: CollectingSink,
    pub(super) answers: Vec<Approval>,
    pub(super) asked: Vec<(String, String)>,
    /// Each settled call's outcome line (`ran <tool>`, `denied <tool> by <who>`).
    pub(super) settled: Vec<String>,
}

impl TurnSink for Approver {
    fn event(&mut self, event: &crate::domain::TurnEvent) {
        match event {
            crate::domain::TurnEvent::ToolCallRan { call, .. } => {
                self.settled.push(format!("ran {}", call.name));
            }
            crate::domain::TurnEvent::ToolCallDecided {
                call,
                allowed: false,
                by,
                ..
            } => self.settled.push(format!("denied {} by {by}", call.name)),
            _ => {}
        }
        self.inner.event(event);
    }

    fn approve_tool(&mut self, call: &ToolCall, why: &crate::domain::AskWhy) -> Approval {
        let why = match why {
            crate::domain::AskWhy::Plugin(plugin) => plugin.clone(),
            crate::domain::AskWhy::Mode { mode, .. } => format!("mode {mode}"),
            crate::domain::AskWhy::Rule { id, .. } => format!("rule {id}"),
            crate::domain::AskWhy::Interceptor { plugin, .. } => format!("asked by {plugin}"),
            crate::domain::AskWhy::Escalation(e) => format!("escalation {}", e.kind),
            crate::domain::AskWhy::Host { host, .. } => format!("host {host}"),
        };
        self.asked.push((call.name.clone(), why));
        if self.answers.is_empty() {
            Approval::No("script ran out".into())
        } else {
            self.answers.remove(0)
        }
    }
}

pub(super) fn calls(list: &[(&str, &str, Value)]) -> Response {
    Response {
        text: String::new(),
        tool_calls: list
            .iter()
            .map(|(id, name, arguments)| ToolCall {
                id: (*id).into(),
                name: (*name).into(),
                arguments: arguments.clone(),
            })
            .collect(),
        stop_reason: StopReason::ToolUse,
        usage: None,
    }
}

pub(super) fn tool_audit(h: &Harness) -> Vec<AuditEvent> {
    read_audit(&h.home, "s1")
        .unwrap()
        .0
        .into_iter()
        .map(|r| r.event)
        .filter(|e| matches!(e, AuditEvent::ToolCall { .. }))
        .collect()
}

fn decided(events: &[Event]) -> Vec<(String, String, ToolDecision)> {
    events
        .iter()
        .filter_map(|e| match e {
            Event::ToolDecided { call, by, decision } => {
                Some((call.id.clone(), by.clone(), decision.clone()))
            }
            _ => None,
        })
        .collect()
}

/// The guard: denies `b.txt`, rewrites `secret.txt` to `a.txt`.
fn guard() -> Box<dyn Interceptor> {
    Box::new(Native {
        name: "guard".into(),
        pre_tool: Some(Box::new(|call: &ToolCall| {
            Ok(match call.arguments["path"].as_str() {
                Some("b.txt") => ToolDecision::Deny("b.txt is off limits".into()),
                Some("secret.txt") => ToolDecision::Rewrite(json!({"path": "a.txt"})),
                _ => ToolDecision::Allow,
            })
        })),
        ..Native::default()
    })
}

#[test]
fn a_deny_is_an_error_result_a_rewrite_reaches_the_tool_and_post_items_follow() {
    let seen_by_noter = Arc::new(Mutex::new(Vec::new()));
    let seen = seen_by_noter.clone();
    let noter = Box::new(Native {
        name: "noter".into(),
        pre_tool: Some(Box::new(move |call: &ToolCall| {
            seen.lock().unwrap().push(call.arguments.clone());
            Ok(ToolDecision::Allow)
        })),
        post_tool: Some(Box::new(|call: &ToolCall, output: &ToolOutput| {
            Ok(vec![Item::system(format!(
                "noted {} ({} bytes)",
                call.arguments["path"].as_str().unwrap_or("?"),
                output.content.len()
            ))])
        })),
        ..Native::default()
    });
    let events = Arc::new(Mutex::new(Vec::new()));
    let ask = calls(&[
        ("c1", "read_file", json!({"path": "b.txt"})),
        ("c2", "read_file", json!({"path": "secret.txt"})),
    ]);
    let mut h = harness(
        vec![ask.clone()],
        vec![guard(), noter],
        vec![Box::new(Recorder(events.clone()))],
        Config::default(),
    );
    let outcome = h
        .worker
        .submit("look around", &mut CollectingSink::default())
        .unwrap();
    assert_eq!(
        outcome,
        TurnOutcome::Answered {
            text: "done".into()
        }
    );

    let denial = "tool call denied by plugin:guard: b.txt is off limits";
    assert_eq!(
        committed(&h),
        vec![
            (1, Source::User, Item::user("look around")),
            (
                2,
                Source::Provider,
                Item::Assistant {
                    text: String::new(),
                    tool_calls: ask.tool_calls.clone()
                }
            ),
            (
                3,
                Source::Tool,
                Item::ToolResult {
                    call_id: "c1".into(),
                    content: denial.into(),
                    is_error: true
                }
            ),
            (
                3,
                Source::Tool,
                Item::ToolResult {
                    call_id: "c2".into(),
                    content: "alpha\n".into(),
                    is_error: false
                }
            ),
            // `post-tool-call` sees the denied call too, with its denial, in call order.
            (
                3,
                Source::Plugin("noter".into()),
                Item::system(format!("noted b.txt ({} bytes)", denial.len()))
            ),
            (
                3,
                Source::Plugin("noter".into()),
                Item::system("noted a.txt (6 bytes)")
            ),
            (4, Source::Provider, Item::assistant("done")),
        ]
    );
    // The first deny stops the chain; later interceptors see the rewritten arguments.
    assert_eq!(
        *seen_by_noter.lock().unwrap(),
        vec![json!({"path": "a.txt"})]
    );
    // The model is told why in its next request.
    let requests = h.seen.lock().unwrap().clone();
    assert!(requests[1].items.iter().any(|i| matches!(
        i,
        Item::ToolResult { content, is_error: true, .. } if content == denial
    )));

    let events = events.lock().unwrap().clone();
    assert_eq!(
        decided(&events),
        vec![
            (
                "c1".into(),
                "plugin:guard".into(),
                ToolDecision::Deny("b.txt is off limits".into())
            ),
            (
                "c2".into(),
                "plugin:guard".into(),
                ToolDecision::Rewrite(json!({"path": "a.txt"}))
            ),
            ("c2".into(), "default".into(), ToolDecision::Allow),
        ]
    );
    let ran: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::ToolRan { call_id, .. } => Some(call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ran, ["c2"]);

    assert_eq!(
        tool_audit(&h),
        vec![
            AuditEvent::ToolCall {
                tool: "read_file".into(),
                call_id: "c1".into(),
                plugin: None,
                grants: Box::default(),
                decision: "denied".into(),
                by: "plugin:guard".into(),
                reason: Some("b.txt is off limits".into()),
                rewritten_by: Vec::new(),
                approval: None,
                mode: None,
                rule: None,
                bytes_in: json!({"path": "b.txt"}).to_string().len() as u64,
                bytes_out: denial.len() as u64,
                is_error: true,
                http: None,
                plugin_failure: None,
                mcp: None,
                escalation: None,
                // `noter` saw it at `post-tool-call`, after the guard's deny.
                seen_by: ["guard", "noter"]
                    .map(|plugin| crate::store::PluginSeen {
                        plugin: plugin.into(),
                        sha256: None,
                        shadow: false,
                    })
                    .to_vec(),
            },
            AuditEvent::ToolCall {
                tool: "read_file".into(),
                call_id: "c2".into(),
                plugin: None,
                grants: Box::default(),
                decision: "rewritten".into(),
                by: "plugin:guard".into(),
                reason: None,
                rewritten_by: vec!["plugin:guard".into()],
                approval: None,
                mode: None,
                rule: None,
                bytes_in: json!({"path": "a.txt"}).to_string().len() as u64,
                bytes_out: 6,
                is_error: false,
                http: None,
                plugin_failure: None,
                mcp: None,
                escalation: None,
                // `noter` saw it at `post-tool-call`, after the guard's deny.
                seen_by: ["guard", "noter"]
                    .map(|plugin| crate::store::PluginSeen {
                        plugin: plugin.into(),
                        sha256: None,
                        shadow: false,
                    })
                    .to_vec(),
            },
        ]
    );
}

fn echo_registry() -> ToolRegistry {
    let mut tools = ToolRegistry::with(file_tools(&Config::default().fileref)).unwrap();
    tools
        .register_plugin_tool(
            Box::new(EchoTool),
            ToolOwner {
                plugin: "echoer".into(),
                approve: Approve::Ask,
                grants: ToolGrants {
                    fs: FsGrant::Read,
                    allowed_hosts: vec!["api.example.com".into()],
                    env: Vec::new(),
                },
                failure: FailurePolicy::Open,
                mcp: None,
            },
        )
        .unwrap();
    tools
}

#[test]
fn approval_no_denies_and_always_holds_for_later_calls_of_the_tool() {
    let events = Arc::new(Mutex::new(Vec::new()));
    let mut h = harness_with(
        vec![
            calls(&[("e1", "echo", json!({"n": 1}))]),
            calls(&[("e2", "echo", json!({"n": 2}))]),
            calls(&[("e3", "echo", json!({"n": 3}))]),
        ],
        Vec::new(),
        vec![Box::new(Recorder(events.clone()))],
        Config::default(),
        echo_registry(),
    );
    let mut sink = Approver {
        answers: vec![Approval::No("not now".into()), Approval::Always],
        ..Approver::default()
    };
    h.worker.submit("echo thrice", &mut sink).unwrap();
    // Asked twice: `always` covers the third call.
    assert_eq!(
        sink.asked,
        vec![
            ("echo".to_owned(), "echoer".to_owned()),
            ("echo".to_owned(), "echoer".to_owned())
        ]
    );
    let results: Vec<(String, bool)> = committed(&h)
        .into_iter()
        .filter_map(|(_, _, item)| match item {
            Item::ToolResult {
                content, is_error, ..
            } => Some((content, is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("tool call denied by approval: not now".to_owned(), true),
            ("echo {\"n\":2}".to_owned(), false),
            ("echo {\"n\":3}".to_owned(), false),
        ]
    );
    let by: Vec<(String, String)> = decided(&events.lock().unwrap())
        .into_iter()
        .map(|(id, by, _)| (id, by))
        .collect();
    assert_eq!(
        by,
        vec![
            ("e1".to_owned(), "approval".to_owned()),
            ("e2".to_owned(), "approval".to_owned()),
            ("e3".to_owned(), "approval".to_owned()),
        ]
    );
    let approvals: Vec<(Option<String>, String)> = tool_audit(&h)
        .into_iter()
        .map(|e| match e {
            AuditEvent::ToolCall {
                approval,
                decision,
                plugin,
                grants,
                ..
            } => {
                assert_eq!(plugin.as_deref(), Some("echoer"));
                assert_eq!(grants.fs, "read");
                assert_eq!(grants.allowed_hosts, ["api.example.com"]);
                (approval, decision)
            }
            _ => unreachable!(),
        })
        .collect();
    assert_eq!(
        approvals,
        vec![
            (Some("no".into()), "denied".into()),
            (Some("always".into()), "allowed".into()),
            (Some("remembered".into()), "allowed".into()),
        ]
    );
}

#[test]
fn a_front_end_that_cannot_ask_denies_and_interceptors_judge_before_approval() {
    // No approver: the default answer is no, and the model is told why.
    let mut h = harness_with(
        vec![calls(&[("e1", "echo", json!({}))])],
        Vec::new(),
        Vec::new(),
        Config::default(),
        echo_registry(),
    );
    h.worker
        .submit("echo", &mut CollectingSink::default())
        .unwrap();
    let records = committed(&h);
    assert!(
        matches!(&records[2].2, Item::ToolResult { content, is_error: true, .. }
            if content.contains("requires approval") && content.contains("`echoer`")),
        "{records:?}"
    );

    // A guard's deny comes first: the person is never asked about a denied call.
    let deny_all = Box::new(Native {
        name: "deny-all".into(),
        pre_tool: Some(Box::new(|_: &ToolCall| {
            Ok(ToolDecision::Deny("no tools today".into()))
        })),
        ..Native::default()
    });
    let mut h = harness_with(
        vec![calls(&[("e1", "echo", json!({}))])],
        vec![ChainEntry {
            plugin: deny_all,
            failure: FailurePolicy::Closed,
            shadow: None,
            matcher: None,
        }],
        Vec::new(),
        Config::default(),
        echo_registry(),
    );
    let mut sink = Approver::default();
    h.worker.submit("echo", &mut sink).unwrap();
    assert!(sink.asked.is_empty());
}

#[test]
fn a_failing_guard_denies_under_closed_and_is_skipped_under_open() {
    let failing = || {
        Box::new(Native {
            name: "flaky".into(),
            pre_tool: Some(Box::new(|_: &ToolCall| {
                Err(PluginFailure::new("flaky", "pre-tool-call", "trapped"))
            })),
            ..Native::default()
        })
    };
    for (failure, denied) in [(FailurePolicy::Closed, true), (FailurePolicy::Open, false)] {
        let mut h = harness_with(
            vec![calls(&[("c1", "read_file", json!({"path": "a.txt"}))])],
            vec![ChainEntry {
                plugin: failing(),
                failure,
                shadow: None,
                matcher: None,
            }],
            Vec::new(),
            Config::default(),
            ToolRegistry::with(file_tools(&Config::default().fileref)).unwrap(),
        );
        let mut sink = CollectingSink::default();
        h.worker.submit("read", &mut sink).unwrap();
        let records = committed(&h);
        let Item::ToolResult {
            content, is_error, ..
        } = &records[2].2
        else {
            panic!("{records:?}");
        };
        assert_eq!(*is_error, denied, "{failure:?}: {content}");
        if denied {
            assert!(
                content.starts_with("tool call denied by policy: plugin flaky failed"),
                "{content}"
            );
            assert!(
                sink.alerts
                    .iter()
                    .any(|a| a.level == crate::domain::AlertLevel::Error
                        && a.message.contains("trapped"))
            );
        } else {
            assert_eq!(content, "alpha\n");
            assert!(
                sink.alerts
                    .iter()
                    .any(|a| a.message.contains("failure policy: open"))
            );
        }
        let by: Vec<String> = tool_audit(&h)
            .into_iter()
            .map(|e| match e {
                AuditEvent::ToolCall { by, .. } => by,
                _ => unreachable!(),
            })
            .collect();
        assert_eq!(by, [if denied { "policy" } else { "default" }]);
    }
}

#[test]
fn a_closed_post_tool_call_failure_commits_the_results_then_stops_the_turn() {
    for (items, why) in [
        (Err("trapped"), "trapped"),
        (
            Ok(vec![Item::user("speaking as the person")]),
            "may not add a `user` item",
        ),
    ] {
        let items = Mutex::new(Some(items));
        let failing = Box::new(Native {
            name: "after".into(),
            post_tool: Some(Box::new(move |_: &ToolCall, _: &ToolOutput| {
                match items.lock().unwrap().take().unwrap() {
                    Ok(items) => Ok(items),
                    Err(message) => Err(PluginFailure::new("after", "post-tool-call", message)),
                }
            })),
            ..Native::default()
        });
        let mut h = harness(
            vec![calls(&[
                ("c1", "read_file", json!({"path": "a.txt"})),
                ("c2", "read_file", json!({"path": "b.txt"})),
            ])],
            vec![failing],
            Vec::new(),
            Config::default(),
        );
        let outcome = h
            .worker
            .submit("read", &mut CollectingSink::default())
            .unwrap();
        let TurnOutcome::Stopped { reason } = outcome else {
            panic!("{outcome:?}");
        };
        assert!(reason.contains("after a tool call"), "{reason}");
        assert!(reason.contains(why), "{reason}");
        // The result is committed (the call was answered); the later call is answered without
        // running; nothing of the plugin is committed, and no further request is made.
        let records = committed(&h);
        assert_eq!(
            records[2..],
            [
                (
                    3,
                    Source::Tool,
                    Item::ToolResult {
                        call_id: "c1".into(),
                        content: "alpha\n".into(),
                        is_error: false
                    }
                ),
                (
                    3,
                    Source::Tool,
                    Item::ToolResult {
                        call_id: "c2".into(),
                        content: "tool call not run: the turn stopped when plugin after failed after an earlier call".into(),
                        is_error: true
                    }
                )
            ]
        );
        assert_eq!(h.seen.lock().unwrap().len(), 1);
    }
}

/// A plugin tool that fails as a tool plugin does (a trap, a deadline): an error output whose
/// figures name the failure with the plugin's outgoing HTTP. Counts the turns it is told about.
struct FailingPluginTool {
    turns: Arc<Mutex<u32>>,
}

impl Tool for FailingPluginTool {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "flaky".into(),
            description: "Fails.".into(),
            input_schema: json!({"type": "object"}),
        }
    }

    fn run(&mut self, _arguments: &Value, _context: &mut ToolContext<'_>) -> ToolOutput {
        let message = "plugin flaky: call ran past its 200 ms deadline".to_owned();
        ToolOutput::error(message.clone()).with_figures(crate::domain::ToolCallAudit {
            http_requests: 2,
            http_refused: 1,
            http_bytes_out: 30,
            http_bytes_in: 400,
            failure: Some(message),
            mcp: None,
        })
    }

    fn new_turn(&mut self) {
        *self.turns.lock().unwrap() += 1;
    }
}

fn flaky_registry(failure: FailurePolicy, turns: Arc<Mutex<u32>>) -> ToolRegistry {
    let mut tools = ToolRegistry::with(file_tools(&Config::default().fileref)).unwrap();
    tools
        .register_plugin_tool(
            Box::new(FailingPluginTool { turns }),
            ToolOwner {
                plugin: "flaky".into(),
                approve: Approve::Never,
                grants: ToolGrants {
                    fs: FsGrant::None,
                    allowed_hosts: vec!["api.example.com".into()],
                    env: Vec::new(),
                },
                failure,
                mcp: None,
            },
        )
        .unwrap();
    tools
}

#[test]
fn every_turn_tells_the_tools_it_started() {
    let turns = Arc::new(Mutex::new(0));
    let mut h = harness_with(
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Config::default(),
        flaky_registry(FailurePolicy::Open, turns.clone()),
    );
    for prompt in ["one", "two"] {
        h.worker
            .submit(prompt, &mut CollectingSink::default())
            .unwrap();
    }
    assert_eq!(*turns.lock().unwrap(), 2);
}

#[test]
fn a_tool_plugins_own_failure_ends_the_turn_under_closed_and_is_an_error_result_under_open() {
    for failure in [FailurePolicy::Closed, FailurePolicy::Open] {
        let closed = failure == FailurePolicy::Closed;
        let events = Arc::new(Mutex::new(Vec::new()));
        let mut h = harness_with(
            vec![calls(&[
                ("f1", "flaky", json!({})),
                ("c2", "read_file", json!({"path": "a.txt"})),
            ])],
            Vec::new(),
            vec![Box::new(Recorder(events.clone()))],
            Config::default(),
            flaky_registry(failure, Arc::new(Mutex::new(0))),
        );
        let mut sink = CollectingSink::default();
        let outcome = h.worker.submit("go", &mut sink).unwrap();
        let records = committed(&h);
        let results: Vec<(String, bool)> = records
            .iter()
            .filter_map(|(_, _, item)| match item {
                Item::ToolResult {
                    content, is_error, ..
                } => Some((content.clone(), *is_error)),
                _ => None,
            })
            .collect();
        let deadline = "plugin flaky: call ran past its 200 ms deadline";
        let alerts: Vec<(crate::domain::AlertLevel, String)> = sink
            .alerts
            .iter()
            .filter(|a| a.source == "plugin:flaky")
            .map(|a| (a.level, a.message.clone()))
            .collect();
        let failed_events = events
            .lock()
            .unwrap()
            .iter()
            .filter(|e| matches!(e, Event::PluginFailed { plugin, .. } if plugin == "flaky"))
            .count();
        assert_eq!(failed_events, 1, "{failure:?}");
        if closed {
            let TurnOutcome::Stopped { reason } = outcome else {
                panic!("{outcome:?}");
            };
            assert!(reason.contains("plugin flaky failed"), "{reason}");
            assert!(reason.contains(deadline), "{reason}");
            assert_eq!(
                results,
                vec![
                    (deadline.to_owned(), true),
                    (
                        "tool call not run: the turn stopped when plugin flaky failed on an earlier call"
                            .to_owned(),
                        true
                    ),
                ]
            );
            // No further model request; one alert.
            assert_eq!(h.seen.lock().unwrap().len(), 1);
            assert_eq!(alerts.len(), 1, "{alerts:?}");
            assert_eq!(alerts[0].0, crate::domain::AlertLevel::Error);
        } else {
            assert!(
                matches!(outcome, TurnOutcome::Answered { .. }),
                "{outcome:?}"
            );
            assert_eq!(
                results,
                vec![(deadline.to_owned(), true), ("alpha\n".to_owned(), false)]
            );
            assert_eq!(h.seen.lock().unwrap().len(), 2);
            assert_eq!(alerts.len(), 1, "{alerts:?}");
            assert_eq!(alerts[0].0, crate::domain::AlertLevel::Warn);
            assert!(alerts[0].1.contains(deadline), "{alerts:?}");
        }
        // The audit record carries the plugin's own figures.
        let first = tool_audit(&h).into_iter().next().unwrap();
        let AuditEvent::ToolCall {
            plugin_failure,
            http,
            ..
        } = first
        else {
            unreachable!()
        };
        assert_eq!(
            plugin_failure.as_deref().map(String::as_str),
            Some(deadline)
        );
        assert_eq!(
            http,
            Some(crate::store::ToolHttpRecord {
                requests: 2,
                refused: 1,
                bytes_out: 30,
                bytes_in: 400,
            })
        );
    }
}

/// Asks about every `read_file` call and replaces what the model sees of each result.
struct AskAndReplace;

impl Interceptor for AskAndReplace {
    fn name(&self) -> &str {
        "hook:guard"
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
    fn pre_tool_call(&mut self, _: &ToolCall) -> Result<ToolDecision, PluginFailure> {
        Ok(ToolDecision::Ask("reads are watched".into()))
    }
    fn replaced_output(&mut self) -> Option<String> {
        Some("[redacted]".into())
    }
}

#[test]
fn an_interceptors_ask_asks_even_for_a_read_and_its_replacement_is_what_the_model_sees() {
    let mut h = harness(
        vec![tool_answer("c1"), tool_answer("c2")],
        vec![Box::new(AskAndReplace)],
        Vec::new(),
        Config::default(),
    );
    let mut sink = Approver {
        answers: vec![Approval::No("not that".into()), Approval::Always],
        ..Approver::default()
    };
    h.worker.submit("read twice", &mut sink).unwrap();
    // A read runs unasked in every mode, but the interceptor asked; `always` the first time
    // would not stand for the next ask either.
    assert_eq!(
        sink.asked,
        vec![
            ("read_file".to_owned(), "asked by hook:guard".to_owned()),
            ("read_file".to_owned(), "asked by hook:guard".to_owned()),
        ]
    );
    let results: Vec<(String, bool)> = committed(&h)
        .into_iter()
        .filter_map(|(_, _, item)| match item {
            Item::ToolResult {
                content, is_error, ..
            } => Some((content, is_error)),
            _ => None,
        })
        .collect();
    assert_eq!(
        results,
        vec![
            ("[redacted]".to_owned(), true),
            ("[redacted]".to_owned(), false),
        ]
    );
    let replaced: Vec<(String, String)> = read_audit(&h.home, "s1")
        .unwrap()
        .0
        .into_iter()
        .filter_map(|r| match r.event {
            AuditEvent::PluginDecision {
                plugin, decision, ..
            } => Some((plugin, decision)),
            _ => None,
        })
        .collect();
    assert_eq!(
        replaced,
        vec![
            ("hook:guard".to_owned(), "continue".to_owned()),
            ("hook:guard".to_owned(), "ask".to_owned()),
            ("hook:guard".to_owned(), "replace-output".to_owned()),
            ("hook:guard".to_owned(), "ask".to_owned()),
            ("hook:guard".to_owned(), "replace-output".to_owned()),
            ("hook:guard".to_owned(), "finish".to_owned()),
        ]
    );
}
