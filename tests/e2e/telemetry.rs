//! OpenTelemetry export through the real binary: a test collector on 127.0.0.1 decodes what
//! warden sends with the official OTLP protobuf definitions (PyPI `opentelemetry-proto`), over
//! real HTTP. One log record per audit event, the turn's spans with their parents, the
//! counters; no prompt or file text unless opted in; a child session's turn linked to the
//! parent's trace; a collector that refuses, hangs or is absent costs a count said once.
//!
//! Without `opentelemetry-proto` each test prints a SKIP line naming it; under `CI=true` it
//! fails instead (`.ci/run` installs it).

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};
use sha2::Digest as _;
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};

pub(crate) const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";
const PROMPT_MARK: &str = "PROMPT-TEXT-7f3a";
const FILE_MARK: &str = "FILE-TEXT-91c2";

/// A missing package: a SKIP line outside CI (`None`), a failure under CI.
fn skip(test: &str, what: &str) {
    let line = format!("SKIP {test}: {what} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
}

/// The test collector, running.
pub(crate) struct Collector {
    child: Child,
    port: u16,
    out: PathBuf,
}

impl Collector {
    /// Starts it in `mode` (`ok`, `refuse`, `hang`), or says SKIP and returns `None`.
    pub(crate) fn start(test: &str, env: &TestEnv, mode: &str) -> Option<Self> {
        let probe = Command::new("python3")
            .args([
                "-c",
                "import opentelemetry.proto.collector.logs.v1.logs_service_pb2",
            ])
            .output();
        if !probe.is_ok_and(|o| o.status.success()) {
            skip(test, "the Python package opentelemetry-proto");
            return None;
        }
        let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("e2e/telemetry/receiver.py");
        // Each collector its own file: a test may run two.
        static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let n = STARTED.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let out = env.root().join(format!("otlp-{mode}-{n}.jsonl"));
        let mut child = Command::new("python3")
            .arg(&script)
            .arg(&out)
            .arg(mode)
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap())
            .read_line(&mut line)
            .unwrap();
        let port = line.trim().parse().unwrap();
        Some(Self { child, port, out })
    }

    pub(crate) fn endpoint(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Every request received, decoded.
    pub(crate) fn requests(&self) -> Vec<Value> {
        std::fs::read_to_string(&self.out)
            .unwrap_or_default()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    /// The raw text of every request, for absence checks.
    pub(crate) fn text(&self) -> String {
        std::fs::read_to_string(&self.out).unwrap_or_default()
    }

    /// What arrived under `path`'s `outer`/`inner`/`leaf` arrays, flattened.
    fn items(&self, path: &str, outer: &str, inner: &str, leaf: &str) -> Vec<Value> {
        let mut out = Vec::new();
        for request in self.requests().iter().filter(|r| r["path"] == path) {
            for resource in request["body"][outer].as_array().into_iter().flatten() {
                for scope in resource[inner].as_array().into_iter().flatten() {
                    out.extend(scope[leaf].as_array().into_iter().flatten().cloned());
                }
            }
        }
        out
    }

    pub(crate) fn logs(&self) -> Vec<Value> {
        self.items("/v1/logs", "resourceLogs", "scopeLogs", "logRecords")
    }

    fn spans(&self) -> Vec<Value> {
        self.items("/v1/traces", "resourceSpans", "scopeSpans", "spans")
    }

    fn metrics(&self) -> Vec<Value> {
        self.items("/v1/metrics", "resourceMetrics", "scopeMetrics", "metrics")
    }
}

impl Drop for Collector {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An OTLP attribute's value as plain JSON (ints arrive as strings in proto JSON).
pub(crate) fn attr(item: &Value, key: &str) -> Value {
    let Some(found) = item["attributes"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|a| a["key"] == key)
    else {
        return Value::Null;
    };
    let value = &found["value"];
    if let Some(s) = value.get("stringValue") {
        return s.clone();
    }
    if let Some(i) = value.get("intValue") {
        return json!(i.as_str().and_then(|s| s.parse::<i64>().ok()));
    }
    if let Some(b) = value.get("boolValue") {
        return b.clone();
    }
    value.clone()
}

pub(crate) fn run(
    env: &TestEnv,
    server: &MockServer,
    args: &[&str],
) -> (Option<i32>, Value, String) {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json"])
        .args(args);
    let out = output_within(cmd, HANG_LIMIT);
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code(), value, stderr(&out))
}

pub(crate) fn audit_lines(env: &TestEnv, session: &str) -> usize {
    let path = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("audit.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .count()
}

#[test]
fn a_turn_exports_every_audit_event_its_spans_and_counters_without_prompt_text() {
    exports_a_turn(
        "a_turn_exports_every_audit_event_its_spans_and_counters_without_prompt_text",
        None,
    );
}

#[test]
fn the_same_turn_over_otlp_json_decodes_into_the_proto_definitions() {
    exports_a_turn(
        "the_same_turn_over_otlp_json_decodes_into_the_proto_definitions",
        Some("http/json"),
    );
}

/// A turn with a write, a denied call, a command and a plugin cancel, exported with
/// `protocol` (the default when `None`): every request decodes into the OTLP proto classes,
/// and carries the documented logs, spans and metrics, and no prompt or file text.
fn exports_a_turn(test: &str, protocol: Option<&str>) {
    if let Some(missing) = crate::shell::sandbox_missing() {
        eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
        return;
    }
    let env = TestEnv::new();
    let Some(collector) = Collector::start(test, &env, "ok") else {
        return;
    };
    let protocol_line = protocol
        .map(|p| format!("protocol = \"{p}\"\n"))
        .unwrap_or_default();
    env.user_config(&format!(
        "[telemetry]\nendpoint = \"{}\"\n{protocol_line}",
        collector.endpoint()
    ));
    env.write("secret.txt", "the secret\n");
    env.project_config(&format!(
        "{MODEL}{}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "read_file:secret*")]
        ),
        plugin_entry(
            "interceptor",
            "topics",
            &fixtures::pattern_guard(),
            "",
            &[
                ("pattern", "forbidden"),
                ("reason", "that topic is blocked")
            ]
        ),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "c1",
                "write_file",
                json!({"path": "out.txt", "content": FILE_MARK}),
            ),
            ("c2", "read_file", json!({"path": "secret.txt"})),
            ("c3", "shell", json!({"command": "echo hi"})),
        ],
    ));
    server.push(Reply::text("done"));
    let (code, value, err) = run(
        &env,
        &server,
        &["--mode", "full-auto", &format!("{PROMPT_MARK} write it")],
    );
    assert_eq!(code, Some(0), "{err}");
    let first = value["session"].as_str().unwrap().to_owned();
    let (code, value, err) = run(&env, &server, &["a forbidden topic"]);
    assert_eq!(code, Some(3), "{err}");
    let second = value["session"].as_str().unwrap().to_owned();
    assert!(!err.contains("telemetry"), "{err}");

    // Every request decoded, in the encoding configured.
    let requests = collector.requests();
    let content_type = match protocol {
        Some("http/json") => "application/json",
        _ => "application/x-protobuf",
    };
    for request in &requests {
        assert!(request.get("error").is_none(), "undecodable: {request}");
        assert_eq!(request["content_type"], content_type, "{request}");
    }
    for path in ["/v1/logs", "/v1/traces", "/v1/metrics"] {
        assert!(
            requests.iter().any(|r| r["path"] == path),
            "nothing sent to {path}"
        );
    }

    // Logs: one record per audit line of each session, named and attributed as documented.
    let logs = collector.logs();
    for session in [&first, &second] {
        let exported = logs
            .iter()
            .filter(|l| attr(l, "gen_ai.conversation.id") == json!(session))
            .count();
        assert_eq!(exported, audit_lines(&env, session), "session {session}");
    }
    assert!(logs.iter().all(|l| l["eventName"] == "warden.audit"));
    // Each record carries the `seq` and `hash` of its line in the session's audit log.
    for session in [&first, &second] {
        let path = env
            .state_home()
            .join("sessions")
            .join(session)
            .join("audit.jsonl");
        let lines: Vec<Value> = std::fs::read_to_string(path)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        for log in logs
            .iter()
            .filter(|l| attr(l, "gen_ai.conversation.id") == json!(session))
        {
            let seq = attr(log, "warden.audit.seq")
                .as_u64()
                .unwrap_or_else(|| panic!("{log}"));
            let line = &lines[seq as usize];
            assert_eq!(attr(log, "warden.audit.hash"), line["hash"], "{log}");
            assert_eq!(attr(log, "warden.event"), line["event"]["type"], "{log}");
        }
    }
    let kinds: BTreeSet<String> = logs
        .iter()
        .map(|l| attr(l, "warden.event").as_str().unwrap().to_owned())
        .collect();
    for kind in [
        "turn_started",
        "model_request",
        "model_outcome",
        "tool_call",
        "turn_cancelled",
        "point",
    ] {
        assert!(kinds.contains(kind), "{kind} missing from {kinds:?}");
    }
    let call = |name: &str| {
        logs.iter()
            .find(|l| attr(l, "gen_ai.tool.name") == name)
            .unwrap_or_else(|| panic!("no tool_call record for {name}"))
            .clone()
    };
    let denied = call("read_file");
    assert_eq!(attr(&denied, "warden.decision"), "denied");
    assert_eq!(attr(&denied, "warden.by"), "plugin:guard");
    assert_eq!(attr(&call("write_file"), "warden.decision"), "allowed");
    assert_eq!(attr(&call("write_file"), "warden.mode"), "full-auto");
    assert_eq!(attr(&call("shell"), "warden.decision"), "allowed");
    assert!(attr(&call("shell"), "warden.bytes_out").as_i64().unwrap() > 0);
    // The plugins that saw each call, by digest: both interceptors, for the read the guard
    // denied (the other saw it at `post-tool-call`) as for the write.
    let digests = |record: &Value| -> Vec<String> {
        let list = &attr(record, "warden.plugin.digests")["arrayValue"]["values"];
        list.as_array()
            .unwrap_or_else(|| panic!("no warden.plugin.digests: {record}"))
            .iter()
            .map(|v| v["stringValue"].as_str().unwrap().to_owned())
            .collect()
    };
    let sha256 =
        |path: &std::path::Path| hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap()));
    let (guard, topics) = (
        sha256(&fixtures::tool_guard()),
        sha256(&fixtures::pattern_guard()),
    );
    assert_eq!(digests(&denied), [guard.clone(), topics.clone()]);
    assert_eq!(digests(&call("write_file")), [guard, topics]);
    let outcome = logs
        .iter()
        .find(|l| attr(l, "warden.event") == "model_outcome")
        .unwrap();
    assert!(attr(outcome, "gen_ai.usage.input_tokens").as_i64().unwrap() > 0);
    let cancelled = logs
        .iter()
        .find(|l| attr(l, "warden.event") == "turn_cancelled")
        .unwrap();
    assert_eq!(attr(cancelled, "warden.plugin"), "topics");

    // Spans: turn → prompt stage → plugin call; turn → model request; turn → tool call →
    // plugin call; every span of a turn in its session's trace.
    let spans = collector.spans();
    let named =
        |name: &str| -> Vec<&Value> { spans.iter().filter(|s| s["name"] == name).collect() };
    let by_id = |id: &Value| spans.iter().find(|s| s["spanId"] == *id);
    let parent_name = |span: &Value| {
        by_id(&span["parentSpanId"])
            .map(|p| p["name"].as_str().unwrap().to_owned())
            .unwrap_or_default()
    };
    let turns = named("turn");
    assert_eq!(turns.len(), 2, "{spans:#?}");
    for turn in &turns {
        let session = attr(turn, "session");
        assert!(
            session == json!(first) || session == json!(second),
            "{turn}"
        );
        // Its parent is the session's root: outside this export, never another turn.
        assert!(by_id(&turn["parentSpanId"]).is_none(), "{turn}");
    }
    assert_ne!(turns[0]["traceId"], turns[1]["traceId"]);
    // Ids of the documented sizes; a turn's trace id and parent are its session's, derived
    // from the session id.
    for span in &spans {
        for (key, len) in [("traceId", 32), ("spanId", 16), ("parentSpanId", 16)] {
            if let Some(id) = span[key].as_str() {
                assert_eq!(id.len(), len, "{key} of {span}");
            }
        }
    }
    for turn in &turns {
        let digest = sha2::Sha256::digest(attr(turn, "session").as_str().unwrap().as_bytes());
        assert_eq!(turn["traceId"], hex::encode(&digest[..16]), "{turn}");
        assert_eq!(turn["parentSpanId"], hex::encode(&digest[16..24]), "{turn}");
    }
    for name in ["prompt stage", "model request", "tool call"] {
        let found = named(name);
        assert!(!found.is_empty(), "no {name} span");
        for span in found {
            assert_eq!(parent_name(span), "turn", "{name}: {span}");
        }
    }
    assert_eq!(named("tool call").len(), 3);
    let plugin_calls = named("plugin call");
    let parents: BTreeSet<String> = plugin_calls.iter().map(|s| parent_name(s)).collect();
    assert!(parents.contains("prompt stage"), "{parents:?}");
    assert!(parents.contains("tool call"), "{parents:?}");
    assert!(
        parents
            .iter()
            .all(|p| p == "prompt stage" || p == "tool call" || p == "turn"),
        "{parents:?}"
    );
    for span in &spans {
        let Some(turn) = turns.iter().find(|t| t["traceId"] == span["traceId"]) else {
            panic!("span outside the turns' traces: {span}");
        };
        assert!(turn["traceId"].is_string());
    }

    // Metrics: decisions by decision and source, plugin latency, tokens by kind.
    let metrics = collector.metrics();
    let metric = |name: &str| {
        metrics
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("no metric {name}"))
            .clone()
    };
    let decisions = metric("warden.tool.decisions");
    let points = decisions["sum"]["dataPoints"].as_array().unwrap();
    assert!(points.iter().any(|p| attr(p, "warden.decision") == "denied"
        && attr(p, "warden.source") == "plugin"));
    assert!(
        points
            .iter()
            .any(|p| attr(p, "warden.decision") == "allowed")
    );
    let latency = metric("warden.plugin.duration");
    let plugins: BTreeSet<String> = latency["histogram"]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| attr(p, "warden.plugin").as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        plugins,
        BTreeSet::from(["guard".to_owned(), "topics".to_owned()])
    );
    let tokens = metric("gen_ai.client.token.usage");
    let kinds: BTreeSet<String> = tokens["histogram"]["dataPoints"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| attr(p, "gen_ai.token.type").as_str().unwrap().to_owned())
        .collect();
    assert!(
        kinds.contains("input") && kinds.contains("output"),
        "{kinds:?}"
    );

    // No prompt or file text left the machine.
    let text = collector.text();
    assert!(!text.contains(PROMPT_MARK));
    assert!(!text.contains(FILE_MARK));
    assert!(!text.contains("forbidden topic"));
}

#[test]
fn prompts_leave_only_when_asked_and_a_child_turn_links_to_its_parent() {
    let test = "prompts_leave_only_when_asked_and_a_child_turn_links_to_its_parent";
    let env = TestEnv::new();
    let Some(collector) = Collector::start(test, &env, "ok") else {
        return;
    };
    env.user_config(&format!(
        "[telemetry]\nendpoint = \"{}\"\ninclude_prompts = true\nheaders_env = {{ authorization = \"OTEL_TEST_TOKEN\" }}\n",
        collector.endpoint()
    ));
    env.project_config(MODEL);
    let server = MockServer::start().unwrap();
    server.push(Reply::text("one"));
    server.push(Reply::text("two"));
    // One `warden run --json` with `args`: the session it ran in.
    let run = |args: &[&str]| -> String {
        let mut cmd = env.command();
        cmd.env("OPENAI_API_KEY", "sk-test")
            .env("OPENAI_BASE_URL", server.openai_url())
            .env("OTEL_TEST_TOKEN", "Bearer t0k3n")
            .args(["run", "--json"])
            .args(args);
        let out = output_within(cmd, HANG_LIMIT);
        assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
        let answer: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
        answer["session"].as_str().unwrap().to_owned()
    };
    let parent = run(&[&format!("{PROMPT_MARK} parent")]);
    let child = run(&["--parent", &parent, "child"]);
    // The child session resumed later: its turn links to the parent's trace as the first did.
    server.push(Reply::text("three"));
    run(&["--session", &child, "child again"]);

    let requests = collector.requests();
    assert!(!requests.is_empty());
    assert!(
        requests
            .iter()
            .all(|r| r["authorization"] == "Bearer t0k3n")
    );
    let spans = collector.spans();
    let turns: Vec<&Value> = spans.iter().filter(|s| s["name"] == "turn").collect();
    assert_eq!(turns.len(), 3, "{spans:#?}");
    let parent_turn = turns
        .iter()
        .find(|t| attr(t, "session") == json!(parent))
        .unwrap();
    let child_turns: Vec<&&Value> = turns
        .iter()
        .filter(|t| attr(t, "session") == json!(child))
        .collect();
    assert_eq!(child_turns.len(), 2, "{turns:#?}");
    assert!(
        attr(parent_turn, "gen_ai.prompt")
            .as_str()
            .unwrap()
            .contains(PROMPT_MARK)
    );
    for child_turn in child_turns {
        let links = child_turn["links"].as_array().unwrap();
        assert_eq!(links.len(), 1, "{child_turn}");
        assert_eq!(links[0]["traceId"], parent_turn["traceId"]);
        assert_eq!(links[0]["spanId"], parent_turn["parentSpanId"]);
        assert_ne!(child_turn["traceId"], parent_turn["traceId"]);
    }
}

#[test]
fn a_collector_that_refuses_hangs_or_is_absent_costs_a_count_said_once() {
    let test = "a_collector_that_refuses_hangs_or_is_absent_costs_a_count_said_once";
    for mode in ["refuse", "hang", "absent"] {
        let env = TestEnv::new();
        let (collector, endpoint) = if mode == "absent" {
            let listener = TcpListener::bind("127.0.0.1:0").unwrap();
            let port = listener.local_addr().unwrap().port();
            drop(listener);
            (None, format!("http://127.0.0.1:{port}"))
        } else {
            let Some(collector) = Collector::start(test, &env, mode) else {
                return;
            };
            let endpoint = collector.endpoint();
            (Some(collector), endpoint)
        };
        env.user_config(&format!("[telemetry]\nendpoint = \"{endpoint}\"\n"));
        env.project_config(MODEL);
        let server = MockServer::start().unwrap();
        server.push(Reply::text("answered"));
        let (code, value, err) = run(&env, &server, &["hello"]);
        assert_eq!(code, Some(0), "{mode}: {err}");
        assert_eq!(value["outcome"], "answered", "{mode}");
        let said: Vec<&str> = err.lines().filter(|l| l.contains("telemetry")).collect();
        assert_eq!(said.len(), 1, "{mode}: {err}");
        assert!(said[0].contains("could not be sent"), "{mode}: {err}");
        let session = value["session"].as_str().unwrap();
        let events = audit_lines(&env, session);
        assert!(
            said[0].contains(&format!("{events} of {events} audit events")),
            "{mode}: {} audit events: {err}",
            events
        );
        let doctor = env.run(&["doctor"]);
        let text = stdout(&doctor);
        assert!(
            text.lines().any(|l| l.starts_with("FAIL")
                && l.contains("telemetry: last export")
                && l.contains("lost")),
            "{mode}: {text}"
        );
        drop(collector);
    }
}

/// A password in the endpoint URL was printed in the exit warning and `warden doctor` and
/// stored in the state file: it is shown and stored nowhere.
#[test]
fn a_password_in_the_endpoint_is_shown_and_stored_nowhere() {
    let env = TestEnv::new();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    drop(listener);
    env.user_config(&format!(
        "[telemetry]\nendpoint = \"http://otel-user:hunter2-pass@127.0.0.1:{port}\"\n"
    ));
    env.project_config(MODEL);
    let server = MockServer::start().unwrap();
    server.push(Reply::text("answered"));
    let (code, _, err) = run(&env, &server, &["hello"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("could not be sent to http://REDACTED@127.0.0.1:"),
        "{err}"
    );
    assert!(!err.contains("hunter2-pass"), "{err}");
    let doctor = env.run(&["doctor"]);
    let text = format!("{}{}", stdout(&doctor), stderr(&doctor));
    assert!(text.contains("REDACTED@127.0.0.1"), "{text}");
    assert!(!text.contains("hunter2-pass"), "{text}");
    let state = std::fs::read_to_string(env.state_home().join("telemetry-state.json")).unwrap();
    assert!(!state.contains("hunter2-pass"), "{state}");
    assert!(state.contains("REDACTED@127.0.0.1"), "{state}");
}
