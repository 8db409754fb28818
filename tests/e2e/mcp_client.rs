//! MCP servers' tools and resources through the real binary and the mock model server, against
//! real MCP implementations: a FastMCP server written with the official Python SDK
//! (`tests/fixtures/mcp/server.py`) and `@modelcontextprotocol/server-everything` (installed
//! into `tests/mcp-npm/` by `.ci/run`). Each call passes the chain, approval and the audit log;
//! a stdio server runs in the sandbox with only its grants; a server that crashes or hangs at
//! start, and a call that never answers, each end in one alert or error, within bounded time.
//!
//! A test whose tool is missing (Python's `mcp` package, Node and the npm folder) prints one
//! `SKIP` line and passes, except under `CI=true`, where it fails.

use std::io::Write;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::sandbox_missing;
use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};

pub(crate) const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";
/// MCP tools count as commands: `full-auto` lets them run unasked (their `approve` still asks).
pub(crate) const FULL_AUTO: &str = "[tools]\nmode = \"full-auto\"\n\n";

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_owned()
}

/// A missing tool: a SKIP line outside CI (`false`: skip the test), a failure under CI.
fn skip(test: &str, tool: &str) -> bool {
    let line = format!("SKIP {test}: {tool} not installed");
    if std::env::var("CI").is_ok_and(|v| v == "true") {
        panic!("{line}, but CI=true: .ci/run must install it");
    }
    let _ = writeln!(std::io::stderr().lock(), "{line}");
    false
}

/// The Python interpreter that has the `mcp` package (its real path, so that the sandbox needs
/// no shim), or `None` after a SKIP line.
pub(crate) fn python(test: &str) -> Option<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sys, mcp.server.fastmcp; print(sys.executable)",
        ])
        .output();
    match out {
        Ok(out) if out.status.success() => {
            Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
        }
        _ => skip(
            test,
            "python3 with the `mcp` package (pip install 'mcp==1.*')",
        )
        .then(PathBuf::new),
    }
}

/// `node` and the server-everything entry point, or `None` after a SKIP line.
fn everything(test: &str) -> Option<(PathBuf, PathBuf)> {
    let script = repo()
        .join("tests/mcp-npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js");
    let node = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()));
    match node {
        Some(node) if script.is_file() => Some((node, script)),
        _ => skip(
            test,
            "node with tests/mcp-npm installed (cd tests/mcp-npm && npm install)",
        )
        .then(|| (PathBuf::new(), PathBuf::new())),
    }
}

/// False (after a SKIP line) when the sandbox cannot be built here.
pub(crate) fn sandbox(test: &str) -> bool {
    match sandbox_missing() {
        None => true,
        Some(missing) => {
            eprintln!("SKIP {test}: the sandbox cannot be built here: {missing}");
            false
        }
    }
}

fn fixture() -> String {
    repo()
        .join("tests/fixtures/mcp/server.py")
        .display()
        .to_string()
}

/// A `[[mcp]]` entry running the fixture in `mode`, with `extra` keys.
pub(crate) fn fixture_entry(name: &str, python: &Path, mode: &str, extra: &str) -> String {
    format!(
        "[[mcp]]\nname = \"{name}\"\ncommand = [{:?}, {:?}, {mode:?}]\n{extra}\n",
        python.display().to_string(),
        fixture()
    )
}

pub(crate) struct Turn {
    pub(crate) code: Option<i32>,
    pub(crate) err: String,
    pub(crate) value: Value,
    server: MockServer,
    elapsed: Duration,
}

impl Turn {
    /// The content of the tool message for `id` in the second request.
    pub(crate) fn result(&self, id: &str) -> String {
        let requests = self.server.requests();
        let Some(request) = requests.get(1) else {
            panic!("no second request; stderr: {}", self.err);
        };
        request.body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["role"] == "tool" && m["tool_call_id"] == id)
            .and_then(|m| m["content"].as_str())
            .unwrap_or_else(|| panic!("no result for {id}: {}", request.body))
            .to_owned()
    }

    pub(crate) fn offered(&self) -> Vec<Value> {
        self.server.requests()[0].body["tools"]
            .as_array()
            .cloned()
            .unwrap_or_default()
    }
}

/// One `warden run` in which the model makes `calls`, then answers `done`.
pub(crate) fn turn(
    env: &TestEnv,
    calls: &[(&str, &str, Value)],
    args: &[&str],
    prompt: &str,
) -> Turn {
    let server = MockServer::start().unwrap();
    if !calls.is_empty() {
        server.push(Reply::tool_calls("Working.", calls));
    }
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .arg("--json")
        .args(args)
        .arg(prompt);
    let started = Instant::now();
    let out = output_within(cmd, HANG_LIMIT);
    Turn {
        code: out.status.code(),
        err: stderr(&out),
        value: serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null),
        server,
        elapsed: started.elapsed(),
    }
}

/// The `tool_call` records of the session's audit log.
fn audit_calls(env: &TestEnv, session: &str) -> Vec<Value> {
    let path = env
        .state_home()
        .join("sessions")
        .join(session)
        .join("audit.jsonl");
    std::fs::read_to_string(&path)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.to_string().contains("\"tool_call\""))
        .collect()
}

#[test]
fn a_stdio_server_tool_is_offered_called_committed_and_audited() {
    let test = "a_stdio_server_tool_is_offered_called_committed_and_audited";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}{}",
        fixture_entry("fx", &python, "stdio", "approve = \"never\"")
    ));
    let t = turn(
        &env,
        &[("c1", "mcp__fx__echo", json!({"text": "hi there"}))],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let echo = t
        .offered()
        .into_iter()
        .find(|tool| tool["function"]["name"] == "mcp__fx__echo")
        .unwrap_or_else(|| panic!("mcp__fx__echo not offered: {:?}", t.offered()));
    assert_eq!(
        echo["function"]["parameters"]["properties"]["text"]["type"],
        "string"
    );
    assert_eq!(t.result("c1"), "echo: hi there");
    // Committed to the history, and audited with the server's figures.
    let session = t.value["session"].as_str().unwrap();
    let export = env.run(&["session", "export", session]);
    assert!(
        stdout(&export).contains("echo: hi there"),
        "{}",
        stdout(&export)
    );
    let calls = audit_calls(&env, session);
    let call = calls
        .iter()
        .find(|c| c.to_string().contains("mcp__fx__echo"))
        .unwrap_or_else(|| panic!("no audit record: {calls:?}"));
    let record = if call["tool_call"].is_object() {
        &call["tool_call"]
    } else {
        call
    };
    let text = record.to_string();
    assert!(text.contains("\"server\":\"fx\""), "{text}");
    assert!(text.contains("\"tool\":\"echo\""), "{text}");
    assert!(text.contains("duration_ms"), "{text}");
    assert!(text.contains("\"plugin\":\"mcp:fx\""), "{text}");
}

#[test]
fn an_interceptor_denies_one_server_tool_and_approval_ask_is_refused_without_yes() {
    let test = "an_interceptor_denies_one_server_tool_and_approval_ask_is_refused_without_yes";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}{}{}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "mcp__fx__read_secret")]
        ),
        fixture_entry("fx", &python, "stdio", "approve = \"never\""),
        // The default `approve = "ask"`: `run` refuses it without `--yes`.
        fixture_entry("asks", &python, "stdio", ""),
    ));
    let t = turn(
        &env,
        &[
            ("c1", "mcp__fx__read_secret", json!({})),
            ("c2", "mcp__fx__echo", json!({"text": "allowed"})),
            ("c3", "mcp__asks__echo", json!({"text": "asked"})),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let denied = t.result("c1");
    assert!(
        denied.starts_with("[error] tool call denied by plugin:guard"),
        "{denied}"
    );
    assert_eq!(t.result("c2"), "echo: allowed");
    let refused = t.result("c3");
    assert!(
        refused.starts_with("[error] tool call denied by approval"),
        "{refused}"
    );
    // With --yes the asking server's call runs.
    let t = turn(
        &env,
        &[("c1", "mcp__asks__echo", json!({"text": "yes"}))],
        &["--yes"],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert_eq!(t.result("c1"), "echo: yes");
}

#[test]
fn a_confined_server_cannot_read_ssh_keys_or_reach_an_ungranted_port() {
    let test = "a_confined_server_cannot_read_ssh_keys_or_reach_an_ungranted_port";
    let Some(python) = python(test) else { return };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.write("../home/.ssh/id_rsa", "PRIVATE KEY\n");
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}{}{}",
        fixture_entry(
            "boxed",
            &python,
            "stdio",
            "approve = \"never\"\nfs = \"read\""
        ),
        // The same server unconfined (the operator's explicit choice) reads and connects: the
        // refusals above are the sandbox's doing.
        fixture_entry(
            "open",
            &python,
            "stdio",
            "approve = \"never\"\nsandbox = \"none\""
        ),
    ));
    let t = turn(
        &env,
        &[
            ("c1", "mcp__boxed__read_secret", json!({})),
            ("c2", "mcp__boxed__connect", json!({"port": port})),
            ("c3", "mcp__boxed__write_file", json!({"name": "x.txt"})),
            ("c4", "mcp__open__read_secret", json!({})),
            ("c5", "mcp__open__connect", json!({"port": port})),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let secret = t.result("c1");
    assert!(secret.starts_with("REFUSED"), "{secret}");
    assert!(!secret.contains("PRIVATE KEY"), "{secret}");
    let connect = t.result("c2");
    assert!(connect.starts_with("REFUSED"), "{connect}");
    let write = t.result("c3");
    assert!(write.starts_with("REFUSED"), "fs = \"read\" wrote: {write}");
    assert!(!env.workspace().join("x.txt").exists());
    assert_eq!(t.result("c4"), "READ: PRIVATE KEY\n");
    assert_eq!(t.result("c5"), "CONNECTED");
}

#[test]
fn servers_that_crash_or_hang_at_start_give_one_alert_each_and_the_turn_goes_on() {
    let test = "servers_that_crash_or_hang_at_start_give_one_alert_each_and_the_turn_goes_on";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}{}{}{}",
        fixture_entry("crashes", &python, "crash", "sandbox = \"none\""),
        fixture_entry(
            "hangs",
            &python,
            "hang",
            "sandbox = \"none\"\nstart_timeout_s = 2"
        ),
        fixture_entry(
            "works",
            &python,
            "stdio",
            "sandbox = \"none\"\napprove = \"never\""
        ),
    ));
    let t = turn(
        &env,
        &[("c1", "mcp__works__echo", json!({"text": "still here"}))],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert!(t.elapsed < Duration::from_secs(60), "{:?}", t.elapsed);
    assert_eq!(t.result("c1"), "echo: still here");
    let crash: Vec<&str> = t
        .err
        .lines()
        .filter(|l| l.contains("MCP server `crashes`"))
        .collect();
    assert_eq!(crash.len(), 1, "{}", t.err);
    assert!(crash[0].contains("exited at start"), "{}", crash[0]);
    assert!(
        crash[0].contains("crashing at start on purpose"),
        "{}",
        crash[0]
    );
    let hang: Vec<&str> = t
        .err
        .lines()
        .filter(|l| l.contains("MCP server `hangs`"))
        .collect();
    assert_eq!(hang.len(), 1, "{}", t.err);
    assert!(
        hang[0].contains("within its start deadline of 2 s"),
        "{}",
        hang[0]
    );
    let names: Vec<String> = t
        .offered()
        .iter()
        .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
        .filter(|n| n.starts_with("mcp__"))
        .collect();
    assert!(
        names.iter().all(|n| n.starts_with("mcp__works__")),
        "{names:?}"
    );
}

#[test]
fn a_closed_server_that_fails_to_start_ends_the_turn() {
    let test = "a_closed_server_that_fails_to_start_ends_the_turn";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}",
        fixture_entry(
            "needed",
            &python,
            "crash",
            "sandbox = \"none\"\nfailure = \"closed\""
        ),
    ));
    let t = turn(&env, &[], &[], "go");
    assert_eq!(t.code, Some(1), "{}", t.err);
    assert!(
        t.err
            .contains("MCP server `needed` failed to start and its failure policy is closed"),
        "{}",
        t.err
    );
    assert!(t.server.requests().is_empty(), "the model was asked");
}

#[test]
fn a_call_that_never_answers_ends_at_its_deadline() {
    let test = "a_call_that_never_answers_ends_at_its_deadline";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}{}",
        fixture_entry(
            "slow",
            &python,
            "stdio",
            "sandbox = \"none\"\napprove = \"never\"\ntimeout_s = 2"
        ),
    ));
    let t = turn(
        &env,
        &[
            ("c1", "mcp__slow__slow", json!({"seconds": 600})),
            ("c2", "mcp__slow__echo", json!({"text": "after"})),
        ],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    assert!(t.elapsed < Duration::from_secs(60), "{:?}", t.elapsed);
    let late = t.result("c1");
    assert!(
        late.contains("did not answer within 2 s; the call was abandoned"),
        "{late}"
    );
    // Failure policy open: one warning (beside the call's ✗ line and its output), and the
    // server still answers the next call.
    assert_eq!(
        t.err
            .lines()
            .filter(|l| l.starts_with("warning") && l.contains("did not answer within 2 s"))
            .count(),
        1,
        "{}",
        t.err
    );
    assert_eq!(t.result("c2"), "echo: after");
}

#[test]
fn a_resource_is_attached_by_server_and_uri() {
    let test = "a_resource_is_attached_by_server_and_uri";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}",
        fixture_entry("docs", &python, "stdio", "sandbox = \"none\"")
    ));
    let t = turn(
        &env,
        &[],
        &[],
        "summarise @docs:note://x and @docs:note://missing",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let request = t.server.requests()[0].body.to_string();
    assert!(request.contains("the note body"), "{request}");
    assert!(request.contains("docs:note://x"), "{request}");
    // A resource the server does not have: a warning and the placeholder, never silence.
    assert!(
        request.contains("[unresolved file ref: docs:note://missing]"),
        "{request}"
    );
    assert!(t.err.contains("docs:note://missing"), "{}", t.err);
    // The server answered with an error: said as its answer, without its unrelated stderr.
    assert!(t.err.contains("the server answered"), "{}", t.err);
    assert!(!t.err.contains("error output ends"), "{}", t.err);
}

#[test]
fn a_streamable_http_server_with_an_env_header() {
    let test = "a_streamable_http_server_with_an_env_header";
    let Some(python) = python(test) else { return };
    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = Command::new(&python)
        .args([fixture(), "http".into(), port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(started.elapsed() < Duration::from_secs(30), "server not up");
        std::thread::sleep(Duration::from_millis(100));
    }
    let env = TestEnv::new();
    // A project's server gets a header variable and a host only where the user allows them.
    env.user_config(&format!(
        "[policy.project_tool_grants]\nenv = [\"MCP_TEST_HEADER\"]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}[[mcp]]\nname = \"web\"\nurl = \"http://127.0.0.1:{port}/mcp\"\napprove = \"never\"\nheaders = {{ X-Test = \"env:MCP_TEST_HEADER\" }}\n"
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[("c1", "mcp__web__echo", json!({"text": "over http"}))],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .env("MCP_TEST_HEADER", "header-value")
        .args(["run", "--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let t = Turn {
        code: out.status.code(),
        err: stderr(&out),
        value: Value::Null,
        server,
        elapsed: Duration::ZERO,
    };
    assert_eq!(t.result("c1"), "echo: over http");
}

#[test]
fn the_everything_server_echoes_and_is_listed() {
    let test = "the_everything_server_echoes_and_is_listed";
    let Some((node, script)) = everything(test) else {
        return;
    };
    if !sandbox(test) {
        return;
    }
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{FULL_AUTO}[[mcp]]\nname = \"ev\"\ncommand = [{:?}, {:?}, \"stdio\"]\napprove = \"never\"\n",
        node.display().to_string(),
        script.display().to_string()
    ));
    let t = turn(
        &env,
        &[("c1", "mcp__ev__echo", json!({"message": "from the model"}))],
        &[],
        "go",
    );
    assert_eq!(t.code, Some(0), "{} {}", t.err, t.value);
    let echoed = t.result("c1");
    assert!(echoed.contains("from the model"), "{echoed}");
    // One of its resources, attached like a file.
    let uri = "demo://resource/static/document/architecture.md";
    let t = turn(&env, &[], &[], &format!("explain @ev:{uri}"));
    assert_eq!(t.code, Some(0), "{}", t.err);
    let request = t.server.requests()[0].body.to_string();
    assert!(request.contains(&format!("[File: ev:{uri}]")), "{request}");
    assert!(!request.contains("unresolved file ref"), "{request}");
    let out = env.run(&["mcp", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let ev = &list["servers"][0];
    assert!(
        ev["resources"].as_array().unwrap().iter().any(|r| r == uri),
        "{ev}"
    );
    assert_eq!(ev["name"], "ev");
    assert_eq!(ev["state"], "started");
    assert_eq!(ev["confinement"], "sandboxed");
    assert!(
        ev["tools"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t == "mcp__ev__echo"),
        "{ev}"
    );
}

#[test]
fn mcp_list_shows_a_failed_server_and_why() {
    let test = "mcp_list_shows_a_failed_server_and_why";
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&fixture_entry(
        "crashes",
        &python,
        "crash",
        "sandbox = \"none\"",
    ));
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("crashes  stdio"), "{text}");
    assert!(text.contains("failed: it exited at start"), "{text}");
}

#[test]
fn secrets_in_config_and_policy_refusals_are_configuration_errors() {
    let env = TestEnv::new();
    let file = env.user_config(
        "[[mcp]]\nname = \"gh\"\nurl = \"https://mcp.example/mcp\"\nheaders = { Authorization = \"Bearer ghp_literal\" }\n",
    );
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("mcp.gh.headers.Authorization"), "{err}");
    assert!(err.contains("user layer"), "{err}");

    let env = TestEnv::new();
    env.managed_config("[policy]\nallowed_mcp = [\"npx @corp/*\"]\n");
    let file = env.user_config("[[mcp]]\nname = \"x\"\ncommand = [\"npx\", \"@evil/server\"]\n");
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains(&file.display().to_string()), "{err}");
    assert!(err.contains("policy.allowed_mcp"), "{err}");
    assert!(err.contains("mcp.x.command"), "{err}");
}

#[test]
fn an_untrusted_project_server_never_starts() {
    let env = TestEnv::new();
    let marker = env.outside().join("started");
    env.untrusted_project_config(&format!(
        "[[mcp]]\nname = \"sneaky\"\ncommand = [\"sh\", \"-c\", \"touch {}\"]\nsandbox = \"none\"\n",
        marker.display()
    ));
    let out = env.run(&["run", "hello"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("mcp:sneaky"), "{}", stderr(&out));
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    std::thread::sleep(Duration::from_millis(300));
    assert!(!marker.exists(), "an untrusted project's server ran");
}

#[test]
fn a_changed_project_server_asks_for_trust_again() {
    let env = TestEnv::new();
    let entry = |program: &str| {
        format!(
            "[[mcp]]\nname = \"tools\"\ncommand = [\"{program}\", \"serve\"]\nstart_timeout_s = 1\n"
        )
    };
    env.project_config(&entry("/bin/false"));
    let out = env.run(&["mcp", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let list: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(list["servers"][0]["state"], "failed", "{list}");
    // Another command line is new code: nothing of it starts until trusted again.
    env.untrusted_project_config(&entry("/bin/true"));
    let out = env.run(&["mcp", "list"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(err.contains("changed since it was trusted"), "{err}");
    assert!(err.contains("mcp:tools"), "{err}");
}

/// `@` completion in the chat offers the started servers' resources as `@server:uri`, and the
/// chosen one is attached like a file.
#[test]
fn chat_completion_offers_a_servers_resources() {
    let test = "chat_completion_offers_a_servers_resources";
    if crate::chat::skip() {
        return;
    }
    let Some(python) = python(test) else { return };
    let env = TestEnv::new();
    env.project_config(&fixture_entry(
        "docs",
        &python,
        "stdio",
        "sandbox = \"none\"",
    ));
    let term = crate::chat::Terminal::start(&env, &["chat"], &[("NO_COLOR", "1".into())]);
    term.wait_for("warden ›");
    std::thread::sleep(std::time::Duration::from_millis(400));
    term.type_text("see @docs:note");
    term.wait_for("docs:note://x");
    term.press("Enter");
    term.wait_for("see @\"docs:note://x\"");
    term.press("Enter");
    let screen = term.wait_for("files: docs:note://x");
    assert!(!screen.contains("not included"), "{screen}");
    term.press("C-d");
    assert_eq!(term.exit_code(), 0);
}
