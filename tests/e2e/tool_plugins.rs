//! Tool plugins (WIT 0.2.0) through the real binary and the mock model server: the model calls
//! a plugin's tool and gets its result; the tool holds exactly its grants (`fs`, `env`,
//! `allowed_hosts`) and nothing else; a tool past its deadline or memory cap fails under its
//! failure policy; tool names are unique across plugins and built-ins.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::path::Path;

use serde_json::{Value, json};
use warden::domain::{Interceptor, ToolCall, ToolDecision};
use warden::plugin::{EngineOptions, InterceptorPlugin, Limits, PluginEngine, WitVersion};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};

pub(crate) const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n";

/// Lets a tool granted `fs = "read-write"` (a Write) run under `warden run` without asking.
pub(crate) const AUTO_EDIT: &str = "[tools]\nmode = \"auto-edit\"\n\n";

pub(crate) fn tool_entry(name: &str, path: &Path, extra: &str) -> String {
    plugin_entry("tool", name, path, extra, &[])
}

/// Runs one turn in which the model makes `calls`, then answers `done`; returns the exit
/// code, stderr and the tool messages of the second request (content by call id).
pub(crate) fn turn_with_calls(
    env: &TestEnv,
    calls: &[(&str, &str, Value)],
    extra_env: &[(&str, &str)],
) -> (
    Option<i32>,
    String,
    Vec<(String, String)>,
    MockServer,
    Value,
) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("Working.", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "go"]);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let out = output_within(cmd, HANG_LIMIT);
    let err = stderr(&out);
    let value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    let requests = server.requests();
    let tools = requests
        .get(1)
        .map(|r| {
            r.body["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or("").to_owned(),
                        m["content"].as_str().unwrap_or("").to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    (out.status.code(), err, tools, server, value)
}

pub(crate) fn content<'a>(tools: &'a [(String, String)], id: &str) -> &'a str {
    tools
        .iter()
        .find(|(i, _)| i == id)
        .map(|(_, c)| c.as_str())
        .unwrap_or_else(|| panic!("no result for {id} in {tools:?}"))
}

#[test]
fn the_model_calls_a_plugin_tool_and_its_result_is_committed_and_sent_back() {
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\nnothing\n");
    env.write(".env", "needle=secret\n");
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("grep", &fixtures::grep_tool(), "fs = \"read\"")
    ));
    let (code, err, tools, server, value) = turn_with_calls(
        &env,
        &[(
            "call_1",
            "search_text",
            json!({"pattern": "needle", "literal": true}),
        )],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    // Offered to the model beside the built-in tools.
    let offered: Vec<String> = server.requests()[0].body["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["function"]["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        offered,
        [
            "read_file",
            "list_files",
            "write_file",
            "edit_file",
            "grep",
            "glob",
            "shell",
            "update_plan",
            "search_text"
        ]
    );
    // The result reaches the model; the denied `.env` is skipped.
    assert_eq!(content(&tools, "call_1"), "notes.txt:1: a needle here");

    let session = value["session"].as_str().unwrap();
    let out = env.run(&["session", "export", session]);
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let tool_item = history
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["role"] == "tool")
        .cloned()
        .unwrap();
    assert_eq!(tool_item["text"], "notes.txt:1: a needle here", "{history}");
}

#[test]
fn the_edit_tool_writes_inside_the_workspace_and_is_refused_outside_and_on_denied_globs() {
    let env = TestEnv::new();
    let outside = env.outside();
    std::fs::create_dir_all(&outside).unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(&outside, env.workspace().join("link")).unwrap();
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}",
        tool_entry("edit", &fixtures::edit_tool(), "fs = \"read-write\"")
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "w1",
                "put_file",
                json!({"path": "src/new.txt", "content": "hello"}),
            ),
            (
                "w2",
                "put_file",
                json!({"path": "../escape.txt", "content": "x"}),
            ),
            ("w3", "put_file", json!({"path": ".env", "content": "x"})),
            (
                "w4",
                "put_file",
                json!({"path": "link/escape.txt", "content": "x"}),
            ),
            (
                "w5",
                "put_file",
                json!({"path": outside.join("abs.txt"), "content": "x"}),
            ),
            (
                "r1",
                "replace_in_file",
                json!({"path": "src/new.txt", "old": "hello", "new": "bye"}),
            ),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(content(&tools, "w1").contains("wrote 5 bytes"), "{tools:?}");
    assert!(
        content(&tools, "w2").contains("`..` is refused"),
        "{tools:?}"
    );
    assert!(content(&tools, "w3").contains("deny globs"), "{tools:?}");
    assert!(
        content(&tools, "w4").contains("link/escape.txt"),
        "{tools:?}"
    );
    assert!(
        content(&tools, "w5").contains("absolute paths are refused"),
        "{tools:?}"
    );
    assert!(
        content(&tools, "r1").contains("replaced 1 occurrence"),
        "{tools:?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("src/new.txt")).unwrap(),
        "bye"
    );
    assert!(!env.workspace().join(".env").exists());
    assert!(!outside.join("escape.txt").exists());
    assert!(!outside.join("abs.txt").exists());
    assert!(!env.root().join("escape.txt").exists());
}

/// The edit tool reads with the SDK's `fs::read_to_string` (one `descriptor.read` per 64 KiB
/// instead of a stream): a file of several reads comes back whole, an empty one reads as empty,
/// and a link to a denied file is refused by the host as it is for `std::fs`.
#[test]
fn the_edit_tool_reads_files_of_any_size_whole_and_not_through_a_link_to_a_denied_file() {
    let env = TestEnv::new();
    let mut big = String::new();
    let mut n = 0;
    while big.len() < 200_000 {
        big.push_str(&format!("line {n} of a file read in several calls\n"));
        n += 1;
    }
    big.push_str("MARK at the end\n");
    env.write("big.txt", &big);
    env.write("empty.txt", "");
    env.write(".env", "TOKEN=secret\n");
    #[cfg(unix)]
    std::os::unix::fs::symlink(".env", env.workspace().join("innocent")).unwrap();
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}",
        tool_entry("edit", &fixtures::edit_tool(), "fs = \"read-write\"")
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "big",
                "replace_in_file",
                json!({"path": "big.txt", "old": "MARK", "new": "DONE"}),
            ),
            (
                "empty",
                "replace_in_file",
                json!({"path": "empty.txt", "old": "x", "new": "y"}),
            ),
            (
                "link",
                "replace_in_file",
                json!({"path": "innocent", "old": "secret", "new": "x"}),
            ),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        content(&tools, "big").contains("replaced 1 occurrence"),
        "{tools:?}"
    );
    assert_eq!(
        std::fs::read_to_string(env.workspace().join("big.txt")).unwrap(),
        big.replace("MARK", "DONE")
    );
    assert_eq!(
        content(&tools, "empty"),
        "[error] empty.txt: `old` does not occur in the file",
        "{tools:?}"
    );
    let refused = content(&tools, "link");
    assert!(
        refused.starts_with("[error] innocent: refused by the host (permission denied)"),
        "{tools:?}"
    );
    assert!(!refused.contains("TOKEN"), "{tools:?}");
    assert_eq!(
        std::fs::read_to_string(env.workspace().join(".env")).unwrap(),
        "TOKEN=secret\n"
    );
}

#[test]
fn a_tool_holds_only_its_grants() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha");
    let ws = env.workspace();
    let file = ws.join("a.txt");
    let probe = fixtures::hostile_tool();
    env.user_config("[policy.project_tool_grants]\nenv = [\"GRANTED_VAR\"]\n");
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("probe", &probe, "env = [\"GRANTED_VAR\"]")
    ));
    let read = |p: &Path| json!({"action": format!("read {}", p.display())});
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            ("r1", "probe", read(&file)),
            ("r2", "probe", read(Path::new("/etc/passwd"))),
            (
                "r3",
                "probe",
                json!({"action": format!("write {}", ws.join("w.txt").display())}),
            ),
            ("e1", "probe", json!({"action": "env GRANTED_VAR"})),
            ("e2", "probe", json!({"action": "env OTHER_VAR"})),
            ("e3", "probe", json!({"action": "env WARDEN_LOG_LEVEL"})),
        ],
        &[("GRANTED_VAR", "granted"), ("OTHER_VAR", "secret")],
    );
    assert_eq!(code, Some(0), "{err}");
    // No `fs` grant: no file can be opened, in the workspace or anywhere else.
    for id in ["r1", "r2"] {
        assert!(content(&tools, id).contains("[error] read "), "{tools:?}");
        assert!(!content(&tools, id).contains("alpha"), "{tools:?}");
        assert!(!content(&tools, id).contains("root:"), "{tools:?}");
    }
    assert!(
        content(&tools, "r3").contains("[error] write "),
        "{tools:?}"
    );
    assert!(!ws.join("w.txt").exists());
    assert_eq!(content(&tools, "e1"), "granted");
    assert_eq!(content(&tools, "e2"), "unset");
    // The one variable the host adds: the least severe log level it records (`warn` by
    // default), so the SDK neither formats nor sends lines it would drop.
    assert_eq!(content(&tools, "e3"), "warn");

    // With `fs = "read"` the same read works and a write is still refused.
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("probe", &probe, "fs = \"read\"")
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            ("r1", "probe", read(&file)),
            ("r2", "probe", read(Path::new("/etc/passwd"))),
            (
                "r3",
                "probe",
                json!({"action": format!("write {}", ws.join("w.txt").display())}),
            ),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(content(&tools, "r1"), "alpha");
    assert!(!content(&tools, "r2").contains("root:"), "{tools:?}");
    assert!(
        content(&tools, "r3").contains("[error] write "),
        "{tools:?}"
    );
    assert!(!ws.join("w.txt").exists());
}

#[test]
fn a_tool_past_its_deadline_or_memory_cap_fails_as_an_error_result() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry(
            "probe",
            &fixtures::hostile_tool(),
            "timeout_ms = 200\nmemory_mb = 16\nmax_output_bytes = 1000"
        )
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            ("t1", "probe", json!({"action": "loop"})),
            ("t2", "probe", json!({"action": "grow"})),
            ("t3", "probe", json!({"action": "big 10"})),
        ],
        &[],
    );
    // `failure = "open"` (the default for tools): each failure is an error result the model
    // sees, with a warning, and the turn goes on.
    assert_eq!(code, Some(0), "{err}");
    assert!(
        content(&tools, "t1").contains("200 ms deadline"),
        "{tools:?}"
    );
    assert!(
        content(&tools, "t2").contains("memory cap 16 MiB"),
        "{tools:?}"
    );
    assert!(
        err.contains("(failure policy: open; the model sees the error)"),
        "{err}"
    );
    // After two failures in a turn the plugin is not called again in that turn.
    assert!(
        content(&tools, "t3").contains("not called: it failed 2 times this turn"),
        "{tools:?}"
    );

    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            ("t4", "probe", json!({"action": "big 5000"})),
            ("t5", "probe", json!({"action": "big 10"})),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        content(&tools, "t4").contains("over the cap of 1000"),
        "{tools:?}"
    );
    // A fresh instance serves the next call.
    assert_eq!(content(&tools, "t5"), "x".repeat(10));
}

/// A one-shot HTTP server on 127.0.0.1 answering `200 hello from test`.
fn http_once() -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let handle = std::thread::spawn(move || {
        if let Ok((mut stream, _)) = listener.accept() {
            let mut buf = [0u8; 4096];
            let _ = stream.read(&mut buf);
            let body = "hello from test";
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    (port, handle)
}

#[test]
fn fetch_reaches_granted_hosts_only() {
    let env = TestEnv::new();
    let (port, server_thread) = http_once();
    let other = TcpListener::bind("127.0.0.1:0").unwrap();
    let other_port = other.local_addr().unwrap().port();
    // A project's tool may reach a host only where the user allows it.
    env.user_config(&format!(
        "[policy.project_tool_grants]\nallowed_hosts = [\"127.0.0.1:{port}\"]\n"
    ));
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry(
            "probe",
            &fixtures::hostile_tool(),
            &format!("allowed_hosts = [\"127.0.0.1:{port}\"]")
        )
    ));
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            (
                "f1",
                "probe",
                json!({"action": format!("fetch http://127.0.0.1:{port}/x")}),
            ),
            (
                "f2",
                "probe",
                json!({"action": format!("fetch http://127.0.0.1:{other_port}/x")}),
            ),
            ("f3", "probe", json!({"action": "fetch http://localhost/x"})),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(content(&tools, "f1"), "200 hello from test");
    assert!(
        content(&tools, "f2").contains("is not granted to this plugin"),
        "{tools:?}"
    );
    assert!(
        content(&tools, "f3").contains("is not granted to this plugin"),
        "{tools:?}"
    );
    server_thread.join().unwrap();
}

#[test]
fn a_tool_name_taken_twice_is_a_configuration_error_naming_both() {
    let env = TestEnv::new();
    let grep = fixtures::grep_tool();
    env.project_config(&format!(
        "{}{}",
        tool_entry("first", &grep, "fs = \"read\""),
        tool_entry("second", &grep, "fs = \"read\"")
    ));
    let out = env.run(&["run", "hello"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "plugin `second` offers a tool named `search_text`, which plugin `first` already offers"
        ),
        "{err}"
    );
}

#[test]
fn plugin_check_prints_a_tool_plugins_version_and_tools() {
    let env = TestEnv::new();
    let out = env.run(&["plugin", "check", fixtures::edit_tool().to_str().unwrap()]);
    let text = stdout(&out);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(text.contains("world:       tool"), "{text}");
    assert!(text.contains("api:         warden:plugin@0.3.0"), "{text}");
    assert!(text.contains("put_file"), "{text}");
    assert!(text.contains("replace_in_file"), "{text}");
}

#[test]
fn the_tool_guard_denies_and_rewrites_tool_calls() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    let mut guard = InterceptorPlugin::load(
        &engine,
        "guard",
        &fixtures::tool_guard(),
        None,
        Limits::default(),
        vec![
            ("deny".into(), "write_file:*.lock,grep:secret*".into()),
            ("rewrite".into(), "old/=>new/".into()),
        ],
    )
    .unwrap();
    assert_eq!(guard.version(), WitVersion::V0_3);
    let call = |name: &str, arguments: Value| ToolCall {
        id: "c".into(),
        name: name.into(),
        arguments,
    };
    let denied = Interceptor::pre_tool_call(
        &mut guard,
        &call("write_file", json!({"path": "Cargo.lock", "content": ""})),
    )
    .unwrap();
    assert!(
        matches!(&denied, ToolDecision::Deny(r) if r.contains("write_file:*.lock")),
        "{denied:?}"
    );
    assert_eq!(
        Interceptor::pre_tool_call(&mut guard, &call("read_file", json!({"path": "old/a.rs"})))
            .unwrap(),
        ToolDecision::Rewrite(json!({"path": "new/a.rs"}))
    );
    assert_eq!(
        Interceptor::pre_tool_call(&mut guard, &call("read_file", json!({"path": "src/a.rs"})))
            .unwrap(),
        ToolDecision::Allow
    );
}

/// `pre-tool-call` and `post-tool-call` of a 0.2.0 interceptor run under the same deadline and
/// caps as the other points: a loop is stopped, rewritten arguments must be a JSON object
/// within `max_output_bytes`, flooded items are refused.
#[test]
fn tool_call_points_are_held_to_the_deadline_and_caps() {
    let engine = PluginEngine::new(EngineOptions::default()).unwrap();
    // The loop gets a short deadline; the other modes the default one, so that building a
    // flood of items on a loaded machine is judged by the caps, not the clock.
    let load = |mode: &str| {
        let limits = Limits {
            timeout: if mode == "loop" {
                std::time::Duration::from_millis(100)
            } else {
                Limits::default().timeout
            },
            ..Limits::default()
        };
        InterceptorPlugin::load(
            &engine,
            mode,
            &fixtures::hostile(),
            None,
            limits,
            vec![("mode".into(), mode.into())],
        )
        .unwrap()
    };
    let call = ToolCall {
        id: "c".into(),
        name: "grep".into(),
        arguments: json!({"pattern": "x"}),
    };
    let output = warden::domain::ToolOutput::ok("found");
    let message = |r: Result<ToolDecision, warden::domain::PluginFailure>| {
        r.err().map(|e| e.to_string()).unwrap_or_default()
    };

    let mut looping = load("loop");
    let err = message(Interceptor::pre_tool_call(&mut looping, &call));
    assert!(
        err.contains("pre-tool-call ran past its 100 ms deadline"),
        "{err}"
    );
    let err = message(Interceptor::pre_tool_call(&mut load("rewrite-bad"), &call));
    assert!(err.contains("not a JSON object"), "{err}");
    let err = message(Interceptor::pre_tool_call(&mut load("rewrite-big"), &call));
    assert!(err.contains("over the cap of 262144"), "{err}");
    let err = Interceptor::post_tool_call(&mut load("items"), &call, &output)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(err.contains("100000 items, over the cap of 64"), "{err}");
    assert_eq!(
        Interceptor::pre_tool_call(&mut load("pre"), &call).unwrap(),
        ToolDecision::Allow
    );
}
