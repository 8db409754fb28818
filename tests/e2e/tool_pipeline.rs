//! The whole path of a tool call through the real binary and the mock model server, with 0.2.0
//! plugins: the `tool-guard` sample denies one call and rewrites another; a 0.2.0 hook sees the
//! decisions; `approve = "ask"` under `warden run` with and without `--yes`; a tool plugin's own
//! failure under `failure = "closed"` ends the turn, and the audit log keeps the plugin's
//! figures.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{
    HANG_LIMIT, TestEnv, audited_tools, output_within, plugin_entry as entry, stderr, stdout,
};

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// `warden run --json ARGS… go` against a server that makes `calls`, then answers `done`:
/// exit code, the JSON line, stderr.
fn run(
    env: &TestEnv,
    server: &MockServer,
    calls: &[(&str, &str, Value)],
    args: &[&str],
    vars: &[(&str, &str)],
) -> (Option<i32>, Value, String) {
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json"])
        .args(args)
        .arg("go");
    for (k, v) in vars {
        cmd.env(k, v);
    }
    let out = output_within(cmd, HANG_LIMIT);
    let value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code(), value, stderr(&out))
}

/// The committed tool results of `session`: (text, is_error).
fn tool_results(env: &TestEnv, session: &str) -> Vec<(String, bool)> {
    let out = env.run(&["session", "export", session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let history: Value = serde_json::from_str(&stdout(&out)).unwrap();
    history
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["role"] == "tool")
        .map(|i| {
            (
                i["text"].as_str().unwrap_or("").to_owned(),
                i["is_error"] == true,
            )
        })
        .collect()
}

#[test]
fn the_tool_guard_sample_denies_one_call_and_rewrites_another_and_a_hook_sees_the_decisions() {
    let env = TestEnv::new();
    env.write("new/a.txt", "the new text\n");
    env.write("old/a.txt", "the old text\n");
    env.write("secret.txt", "a needle in a secret\n");
    env.project_config(&format!(
        "{MODEL}{}{}{}",
        entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "search_text:secret*"), ("rewrite", "old/=>new/")]
        ),
        entry("tool", "grep", &fixtures::grep_tool(), "fs = \"read\"", &[]),
        entry("hook", "counter", &fixtures::event_counter(), "", &[]),
    ));
    let server = MockServer::start().unwrap();
    let (code, value, err) = run(
        &env,
        &server,
        &[
            (
                "g1",
                "search_text",
                json!({"pattern": "needle", "path": "secret.txt"}),
            ),
            ("r1", "read_file", json!({"path": "old/a.txt"})),
        ],
        &[],
        &[("WARDEN_LOG", "warden::plugin::guest=info")],
    );
    assert_eq!(code, Some(0), "{err}");
    let session = value["session"].as_str().unwrap();
    let results = tool_results(&env, session);
    assert_eq!(results.len(), 2, "{results:?}");
    // The denial names the guard and its rule; the tool never ran.
    assert!(results[0].1, "{results:?}");
    assert!(
        results[0]
            .0
            .starts_with("tool call denied by plugin:guard: "),
        "{results:?}"
    );
    assert!(results[0].0.contains("search_text:secret*"), "{results:?}");
    assert!(!results[0].0.contains("needle in a secret"), "{results:?}");
    // The rewritten call read `new/a.txt`.
    assert!(!results[1].1, "{results:?}");
    assert!(results[1].0.contains("the new text"), "{results:?}");
    assert!(!results[1].0.contains("the old text"), "{results:?}");

    let tools = audited_tools(&env, session);
    let decided: Vec<(&str, &str, &str)> = tools
        .iter()
        .map(|t| {
            (
                t["tool"].as_str().unwrap(),
                t["decision"].as_str().unwrap(),
                t["by"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        decided,
        [
            ("search_text", "denied", "plugin:guard"),
            ("read_file", "rewritten", "plugin:guard")
        ]
    );

    // The 0.2.0 hook got the decisions: the deny and the rewrite of the guard, and the allow
    // of the rewritten call (three `ToolDecided` events), and one `ToolRan`.
    assert!(err.contains("event counts:"), "{err}");
    assert!(err.contains("tool-decided=3"), "{err}");
    assert!(err.contains("tool-ran=1"), "{err}");
}

#[test]
fn run_denies_a_tool_that_asks_for_approval_unless_yes_is_given() {
    let env = TestEnv::new();
    env.write("notes.txt", "a needle here\n");
    env.project_config(&format!(
        "{MODEL}{}",
        entry(
            "tool",
            "grep",
            &fixtures::grep_tool(),
            "fs = \"read\"\napprove = \"ask\"",
            &[]
        ),
    ));
    let call = [(
        "g1",
        "search_text",
        json!({"pattern": "needle", "literal": true}),
    )];

    let server = MockServer::start().unwrap();
    let (code, value, err) = run(&env, &server, &call, &[], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(
        err.contains("tool call `search_text` denied: tool plugin `grep` requires approval"),
        "{err}"
    );
    let results = tool_results(&env, value["session"].as_str().unwrap());
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].1, "{results:?}");
    assert!(
        results[0].0.starts_with("tool call denied by approval: ")
            && results[0].0.contains("unless --yes is given"),
        "{results:?}"
    );
    let tools = audited_tools(&env, value["session"].as_str().unwrap());
    assert_eq!(tools[0]["approval"], "no", "{tools:?}");

    let server = MockServer::start().unwrap();
    let (code, value, err) = run(&env, &server, &call, &["--yes"], &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(!err.contains("denied"), "{err}");
    let results = tool_results(&env, value["session"].as_str().unwrap());
    assert_eq!(results, [("notes.txt:1: a needle here".to_owned(), false)]);
    let tools = audited_tools(&env, value["session"].as_str().unwrap());
    assert_eq!(tools[0]["approval"], "yes", "{tools:?}");
}

#[test]
fn a_tool_plugins_own_failure_under_closed_ends_the_turn_and_is_audited() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.user_config("[policy.project_tool_grants]\nallowed_hosts = [\"127.0.0.1:9\"]\n");
    env.project_config(&format!(
        "{MODEL}{}",
        entry(
            "tool",
            "probe",
            &fixtures::hostile_tool(),
            "timeout_ms = 200\nfailure = \"closed\"\nallowed_hosts = [\"127.0.0.1:9\"]",
            &[]
        ),
    ));
    let server = MockServer::start().unwrap();
    let (code, value, err) = run(
        &env,
        &server,
        &[
            ("f1", "probe", json!({"action": "fetch http://localhost/x"})),
            ("t1", "probe", json!({"action": "loop"})),
            ("r1", "read_file", json!({"path": "a.txt"})),
        ],
        &[],
        &[],
    );
    // Runtime failure: exit 1, the turn stopped, no second request.
    assert_eq!(code, Some(1), "{err}");
    assert_eq!(value["outcome"], "stopped", "{value}");
    assert_eq!(server.requests().len(), 1);
    assert_eq!(
        err.matches("plugin probe failed running tool `probe`")
            .count(),
        1,
        "{err}"
    );
    let session = value["session"].as_str().unwrap();
    let results = tool_results(&env, session);
    assert_eq!(results.len(), 3, "{results:?}");
    assert!(
        results[0].0.contains("is not granted to this plugin"),
        "{results:?}"
    );
    assert!(
        results[1].1 && results[1].0.contains("200 ms deadline"),
        "{results:?}"
    );
    assert_eq!(
        results[2],
        (
            "tool call not run: the turn stopped when plugin probe failed on an earlier call"
                .to_owned(),
            true
        )
    );

    let tools = audited_tools(&env, session);
    assert_eq!(
        tools[0]["http"],
        json!({"requests": 0, "refused": 1, "bytes_out": 0, "bytes_in": 0}),
        "{tools:?}"
    );
    assert!(tools[0].get("plugin_failure").is_none(), "{tools:?}");
    assert!(
        tools[1]["plugin_failure"]
            .as_str()
            .unwrap_or("")
            .contains("200 ms deadline"),
        "{tools:?}"
    );
    let out = env.run(&["audit", session]);
    let text = stdout(&out);
    assert!(
        text.contains("http 0 requests (1 refused), 0 bytes out, 0 in"),
        "{text}"
    );
    assert!(text.contains("; plugin failed: "), "{text}");
}

/// A closed failure at `pre-tool-call` refuses that one call (the model is told, the turn goes
/// on, `run` exits 0 after a read), where one at a prompt point cancels the turn (exit 3).
#[test]
fn a_closed_failure_at_pre_tool_call_refuses_that_call_and_the_turn_goes_on() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.project_config(&format!(
        "{MODEL}{}",
        entry(
            "interceptor",
            "bad",
            &fixtures::hostile(),
            "failure = \"closed\"",
            &[("mode", "rewrite-bad")]
        ),
    ));
    let server = MockServer::start().unwrap();
    let (code, value, err) = run(
        &env,
        &server,
        &[("r1", "read_file", json!({"path": "a.txt"}))],
        &[],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(value["outcome"], "answered", "{value}");
    assert_eq!(
        server.requests().len(),
        2,
        "the turn went on to a second request"
    );
    let results = tool_results(&env, value["session"].as_str().unwrap());
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(results[0].1, "{results:?}");
    assert!(
        results[0].0.contains("plugin bad failed")
            && results[0].0.contains("failure policy is closed")
            && !results[0].0.contains("alpha"),
        "{results:?}"
    );
}
