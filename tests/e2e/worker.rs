//! The turn loop through the real binary: commit order, notifications, resume, cancellation,
//! failure policies, hooks that cannot act, continuations, the tool loop. Whole histories and
//! whole recorded requests are compared.

use pretty_assertions::assert_eq;
use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry as plugin, stderr, stdout};

/// A project config using the OpenAI-compatible provider, plus `extra`.
fn openai_config(extra: &str) -> String {
    format!(
        "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nsystem_prompt = \"SYS\"\n\n{extra}"
    )
}

fn interceptor(name: &str, path: &std::path::Path, config: &[(&str, &str)]) -> String {
    plugin("interceptor", name, path, "", config)
}

fn hook(name: &str, path: &std::path::Path, config: &[(&str, &str)]) -> String {
    plugin("hook", name, path, "", config)
}

/// Run `warden ARGS` with the OpenAI variables pointing at `server`.
fn run_with(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(args);
    output_within(cmd, HANG_LIMIT)
}

fn json_run(
    env: &TestEnv,
    server: Option<&MockServer>,
    args: &[&str],
) -> (Option<i32>, Value, String) {
    let out = match server {
        Some(server) => run_with(env, server, args),
        None => env.run(args),
    };
    let value = serde_json::from_str(stdout(&out).trim()).unwrap_or(Value::Null);
    (out.status.code(), value, stderr(&out))
}

fn export(env: &TestEnv, session: &str) -> Value {
    let out = env.run(&["session", "export", session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

/// One field of every item of an exported history.
fn column<'a>(history: &'a Value, key: &str) -> Vec<&'a str> {
    history
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i[key].as_str().unwrap())
        .collect()
}

/// The messages of the `n`th recorded request.
fn messages(server: &MockServer, n: usize) -> Value {
    server.requests()[n].body["messages"].clone()
}

#[test]
fn commit_order_with_files_interceptors_and_a_notification_in_history_and_request() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("b.txt", "beta\n");
    let kw = fixtures::keyword_context();
    env.project_config(&openai_config(&format!(
        "{}{}",
        interceptor("kw1", &kw, &[("word", "ship"), ("context", "ctx one")]),
        interceptor("kw2", &kw, &[("word", "ship"), ("context", "ctx two")]),
    )));
    let server = MockServer::start().unwrap();
    server.push(Reply::text("first answer"));
    server.push(Reply::text("second answer"));

    let (code, first, err) = json_run(&env, Some(&server), &["run", "--json", "hello"]);
    assert_eq!(code, Some(0), "{err}");
    let session = first["session"].as_str().unwrap().to_owned();
    assert_eq!(first["answer"], "first answer");

    let out = env.run(&["notify", "--session", &session, "build is red"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let (code, second, err) = json_run(
        &env,
        Some(&server),
        &[
            "run",
            "--json",
            "--session",
            &session,
            "ship @a.txt and @b.txt",
        ],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(second["answer"], "second answer");

    let expected_history = json!([
        {"role": "user", "text": "hello", "source": "user"},
        {"role": "assistant", "text": "first answer", "source": "provider"},
        {"role": "user", "text": "ship @a.txt and @b.txt", "source": "user"},
        {"role": "system", "text": "[File: a.txt]\nalpha\n", "source": "fileref"},
        {"role": "system", "text": "[File: b.txt]\nbeta\n", "source": "fileref"},
        {"role": "system", "text": "ctx one", "source": "plugin:kw1"},
        {"role": "system", "text": "ctx two", "source": "plugin:kw2"},
        {"role": "system", "text": "[Notification] build is red (not a blocking request)", "source": "notify"},
        {"role": "assistant", "text": "second answer", "source": "provider"},
    ]);
    assert_eq!(export(&env, &session), expected_history);

    // The request is built from history alone, in the same order.
    let expected_request = json!([
        {"role": "system", "content": "SYS"},
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "first answer"},
        {"role": "user", "content": "ship @a.txt and @b.txt"},
        {"role": "system", "content": "[File: a.txt]\nalpha\n"},
        {"role": "system", "content": "[File: b.txt]\nbeta\n"},
        {"role": "system", "content": "ctx one"},
        {"role": "system", "content": "ctx two"},
        {"role": "system", "content": "[Notification] build is red (not a blocking request)"},
    ]);
    assert_eq!(messages(&server, 1), expected_request);
    // Resume: the second request starts with exactly the first request's messages and answer.
    let first_request = messages(&server, 0);
    let n = first_request.as_array().unwrap().len();
    assert_eq!(
        expected_request.as_array().unwrap()[..n],
        first_request.as_array().unwrap()[..]
    );

    // The notification was committed once: a further turn does not repeat it.
    server.push(Reply::text("third"));
    let (code, _, err) = json_run(
        &env,
        Some(&server),
        &["run", "--json", "--session", &session, "again"],
    );
    assert_eq!(code, Some(0), "{err}");
    let history = export(&env, &session);
    let notes = history
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["source"] == "notify")
        .count();
    assert_eq!(notes, 1);
}

#[test]
fn a_cancelling_interceptor_stops_the_turn_and_commits_nothing_of_it() {
    let env = TestEnv::new();
    env.write("secret-plan.txt", "plan\n");
    env.project_config(&interceptor(
        "guard",
        &fixtures::pattern_guard(),
        &[
            ("pattern", "forbidden"),
            ("reason", "that topic is blocked here"),
        ],
    ));
    let out = env.run(&[
        "run",
        "--json",
        "tell me the forbidden thing from @secret-plan.txt",
    ]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(value["outcome"], "cancelled");
    assert_eq!(value["reason"], "that topic is blocked here");
    let err = stderr(&out);
    assert!(
        err.contains("plugin:guard") && err.contains("that topic is blocked here"),
        "{err}"
    );
    let session = value["session"].as_str().unwrap();
    assert_eq!(export(&env, session), json!([]));

    // The audit log records the decision.
    let audit = std::fs::read_to_string(
        env.state_home()
            .join("sessions")
            .join(session)
            .join("audit.jsonl"),
    )
    .unwrap();
    assert!(
        audit.contains("\"decision\":\"cancel\"") && audit.contains("guard"),
        "{audit}"
    );

    // Without the word the same plugin lets the prompt through.
    let out = env.run(&["run", "fine question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn failure_policy_closed_cancels_and_open_continues_without_the_plugin() {
    let env = TestEnv::new();
    let hostile = fixtures::hostile();
    let closed = plugin(
        "interceptor",
        "looper",
        &hostile,
        "timeout_ms = 100\n",
        &[("mode", "loop")],
    );
    env.project_config(&closed);
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("plugin looper: on-prompt-submit ran past its 100 ms deadline"),
        "{}",
        stderr(&out)
    );

    let open = format!(
        "{}{}",
        plugin(
            "interceptor",
            "looper",
            &hostile,
            "timeout_ms = 100\nfailure = \"open\"\n",
            &[("mode", "loop")]
        ),
        plugin(
            "interceptor",
            "forger",
            &hostile,
            "failure = \"open\"\n",
            &[("mode", "orphan")]
        ),
    );
    env.project_config(&open);
    let (code, value, err) = json_run(&env, None, &["run", "--json", "hi"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("failure policy: open"), "{err}");
    assert!(
        err.contains("no preceding item"),
        "orphan tool result refused: {err}"
    );
    let history = export(&env, value["session"].as_str().unwrap());
    let sources = column(&history, "source");
    assert_eq!(
        sources,
        ["user", "provider"],
        "nothing from the failed plugins"
    );
}

#[test]
fn hooks_cannot_change_the_turn_even_when_they_misbehave() {
    let quiet = TestEnv::new();
    quiet.write("a.txt", "alpha\n");
    let (code, baseline, err) = json_run(&quiet, None, &["run", "--json", "read @a.txt"]);
    assert_eq!(code, Some(0), "{err}");
    let baseline_history = export(&quiet, baseline["session"].as_str().unwrap());

    let noisy = TestEnv::new();
    noisy.write("a.txt", "alpha\n");
    let hh = fixtures::hostile_hook();
    noisy.project_config(&format!(
        "{}{}{}{}",
        hook("looper", &hh, &[("mode", "loop")]),
        hook("panicker", &hh, &[("mode", "panic")]),
        hook("writer", &hh, &[("mode", "fs")]),
        hook("counter", &fixtures::event_counter(), &[]),
    ));
    let (code, value, err) = json_run(&noisy, None, &["run", "--json", "read @a.txt"]);
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(value["answer"], baseline["answer"]);
    assert_eq!(
        export(&noisy, value["session"].as_str().unwrap()),
        baseline_history
    );
    // Each failing hook is reported once, not once per event.
    assert_eq!(err.matches("plugin:looper").count(), 1, "{err}");
    assert_eq!(err.matches("plugin:panicker").count(), 1, "{err}");
    assert!(!err.contains("plugin:writer"), "{err}");
}

#[test]
fn turn_end_continuations_are_bounded_and_pre_request_items_are_committed_first() {
    let env = TestEnv::new();
    let hostile = fixtures::hostile();
    env.project_config(&format!(
        "[worker]\nmax_continuations = 2\n\n{}{}",
        interceptor("pre", &hostile, &[("mode", "pre")]),
        interceptor("again", &hostile, &[("mode", "turn-end")]),
    ));
    let (code, value, err) = json_run(&env, None, &["run", "--json", "go"]);
    assert_eq!(code, Some(0), "{err}");
    assert!(err.contains("limit of 2 continuations"), "{err}");
    let history = export(&env, value["session"].as_str().unwrap());
    let shape: Vec<(String, String)> = history
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["source"].as_str().unwrap().to_owned(),
                i["text"]
                    .as_str()
                    .unwrap()
                    .lines()
                    .next()
                    .unwrap_or("")
                    .to_owned(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = [
        ("user", "go"),
        ("plugin:pre", "pre-request note for step 0"),
        (
            "provider",
            "[echo provider] received 2 items (1 user, 1 system).",
        ),
        ("plugin:again", "keep going (continuation 1)"),
        ("plugin:pre", "pre-request note for step 1"),
        (
            "provider",
            "[echo provider] received 5 items (1 user, 3 system, 1 assistant).",
        ),
        ("plugin:again", "keep going (continuation 2)"),
        ("plugin:pre", "pre-request note for step 2"),
        (
            "provider",
            "[echo provider] received 8 items (1 user, 5 system, 2 assistant).",
        ),
    ]
    .iter()
    .map(|(a, b)| ((*a).to_owned(), (*b).to_owned()))
    .collect();
    assert_eq!(shape, expected);
}

#[test]
fn the_model_reads_files_through_the_tool_loop() {
    let env = TestEnv::new();
    env.write("notes/todo.md", "1. write tests\n2. ship\n");
    env.project_config(&openai_config(""));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Let me look.",
        &[("call_1", "read_file", json!({"path": "notes/todo.md"}))],
    ));
    server.push(Reply::text("You plan to write tests, then ship."));
    let (code, value, err) = json_run(
        &env,
        Some(&server),
        &["run", "--json", "what is on my list?"],
    );
    assert_eq!(code, Some(0), "{err}");
    assert_eq!(value["answer"], "You plan to write tests, then ship.");
    let second = messages(&server, 1);
    let tool_message = second
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
        .unwrap();
    assert_eq!(tool_message["tool_call_id"], "call_1");
    assert!(
        tool_message["content"]
            .as_str()
            .unwrap()
            .contains("1. write tests"),
        "{tool_message}"
    );
    let history = export(&env, value["session"].as_str().unwrap());
    let roles = column(&history, "role");
    assert_eq!(roles, ["user", "assistant", "tool", "assistant"]);
    assert_eq!(history[2]["source"], "tool");
}

#[test]
fn echo_answers_offline_and_names_what_it_received() {
    let env = TestEnv::new();
    env.write("src/main.rs", "fn main() {}\n");
    let out = env.run(&["run", "explain @src/main.rs and @nope.rs"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let answer = stdout(&out);
    assert!(answer.starts_with("[echo provider]"), "{answer}");
    assert!(answer.contains("src/main.rs"), "{answer}");
    assert!(answer.contains("2 items"), "{answer}");
    let err = stderr(&out);
    assert!(
        err.contains("warning [fileref]") && err.contains("nope.rs"),
        "{err}"
    );
}

#[test]
fn session_commands_list_show_export_and_refuse_unknown_ids() {
    let env = TestEnv::new();
    let (code, value, err) = json_run(&env, None, &["run", "--json", "one"]);
    assert_eq!(code, Some(0), "{err}");
    let id = value["session"].as_str().unwrap().to_owned();
    let (code, _, err) = json_run(&env, None, &["run", "--json", "two"]);
    assert_eq!(code, Some(0), "{err}");

    let out = env.run(&["session", "list", "--json"]);
    assert_eq!(out.status.code(), Some(0));
    let list: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let list = list.as_array().unwrap();
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["id"], id.as_str(), "oldest first");
    assert_eq!(list[0]["items"], 2);
    assert_eq!(list[0]["workspace"], env.workspace().to_str().unwrap());
    assert!(list[0]["created"].as_str().unwrap().ends_with('Z'));

    let out = env.run(&["session", "show", &id]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stdout(&out).contains("one"));

    for cmd in ["show", "export"] {
        let out = env.run(&["session", cmd, "no-such-session"]);
        assert_ne!(out.status.code(), Some(0));
        assert!(stderr(&out).contains("no-such-session"), "{}", stderr(&out));
    }
    let out = env.run(&["notify", "--session", "no-such-session", "hello"]);
    assert_ne!(out.status.code(), Some(0));
}

#[test]
fn a_missing_api_key_names_the_variable_and_exits_2() {
    let env = TestEnv::new();
    env.project_config("[model]\nprovider = \"anthropic\"\n");
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("ANTHROPIC_API_KEY"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_config_exits_2_naming_file_line_and_key() {
    let env = TestEnv::new();
    let path = env.project_config("[model]\nprovider = \"echo\"\nbogus = 1\n");
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains(&format!("{}:3:", path.display())) && err.contains("model.bogus"),
        "{err}"
    );

    let wrong = "0".repeat(64);
    env.project_config(&plugin(
        "interceptor",
        "kw",
        &fixtures::keyword_context(),
        &format!("sha256 = \"{wrong}\"\n"),
        &[("word", "x")],
    ));
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));
}

#[test]
fn the_tool_loop_is_bounded_by_max_steps() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.project_config(&openai_config("[worker]\nmax_steps = 2\n"));
    let server = MockServer::start().unwrap();
    for i in 0..3 {
        server.push(Reply::tool_calls(
            "again",
            &[(&format!("call_{i}"), "read_file", json!({"path": "a.txt"}))],
        ));
    }
    let (code, value, err) = json_run(&env, Some(&server), &["run", "--json", "loop forever"]);
    // A limit ends the turn resumably, with its own exit code (docs: README, exit codes).
    assert_eq!(code, Some(5), "{err}");
    assert_eq!(value["outcome"], "limited");
    assert!(err.contains("limit of 2 model requests"), "{err}");
    assert_eq!(server.requests().len(), 2);
    // Every call made was answered (the history stays well-formed for the next turn), and
    // the note that says how to go on is history too.
    let history = export(&env, value["session"].as_str().unwrap());
    let roles = column(&history, "role");
    assert_eq!(
        roles,
        ["user", "assistant", "tool", "assistant", "tool", "system"]
    );
}
