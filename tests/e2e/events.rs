//! What a turn shows of its tool calls, through the real binary: a command's exit status and
//! last output lines, ✗ for a failing command or an error, each change's diff and the turn's
//! change summary (`run`, `run -v`), `run --json-stream` (every line valid against
//! `docs/events.schema.json`), and `run`'s exit status when every write and command was denied.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::{OPENAI, sandbox_missing};
use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};

/// The calls of the turn the tests run: a write, an edit, a failing command, a command a
/// guard denies, and a read of a missing file (an error).
fn busy_turn() -> Vec<(&'static str, &'static str, Value)> {
    vec![
        (
            "w1",
            "write_file",
            json!({"path": "notes.txt", "content": "alpha\nbeta\n"}),
        ),
        (
            "e1",
            "edit_file",
            json!({"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
        ),
        (
            "s1",
            "shell",
            json!({"command": "echo first; echo second; echo 'test failed: boom' >&2; exit 101"}),
        ),
        ("s2", "shell", json!({"command": "rm -rf keep"})),
        ("r1", "read_file", json!({"path": "missing.txt"})),
    ]
}

/// A workspace whose guard denies `rm -rf`, and a model that makes `calls` then answers.
fn setup(calls: &[(&str, &str, Value)]) -> (TestEnv, MockServer) {
    let env = TestEnv::new();
    env.write("keep/file.txt", "kept\n");
    env.project_config(&format!(
        "{OPENAI}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "shell:*rm -rf*")]
        ),
    ));
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("", calls));
    server.push(Reply::text("all done"));
    (env, server)
}

fn run(env: &TestEnv, server: &MockServer, args: &[&str]) -> std::process::Output {
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run")
        .args(args)
        .arg("go");
    output_within(cmd, HANG_LIMIT)
}

macro_rules! require_sandbox {
    ($name:expr) => {
        if let Some(missing) = sandbox_missing() {
            eprintln!(
                "SKIP {}: the sandbox cannot be built here: {missing}",
                $name
            );
            return;
        }
    };
}

#[test]
fn run_marks_a_failing_command_with_its_exit_status_and_last_lines() {
    require_sandbox!("run_marks_a_failing_command_with_its_exit_status_and_last_lines");
    let (env, server) = setup(&busy_turn());
    let out = run(&env, &server, &["--mode", "full-auto"]);
    let err = stderr(&out);
    assert!(err.contains("✗ shell echo first"), "{err}");
    assert!(err.contains("— exit 101"), "{err}");
    assert!(err.contains("│ test failed: boom"), "{err}");
    assert!(!err.contains("✓ shell echo first"), "{err}");
    // The error of the missing file is no ✓ either.
    assert!(err.contains("✗ read_file missing.txt — error"), "{err}");
    assert!(!err.contains("✓ read_file missing.txt"), "{err}");
    // The denial names the guard.
    assert!(
        err.contains("✗ shell rm -rf keep — denied by plugin:guard"),
        "{err}"
    );
    // The turn's change summary.
    assert!(err.contains("changed 1 file (+2 −0): notes.txt"), "{err}");
}

#[test]
fn run_verbose_shows_each_call_and_each_changes_diff() {
    require_sandbox!("run_verbose_shows_each_call_and_each_changes_diff");
    let (env, server) = setup(&busy_turn());
    let out = run(&env, &server, &["-v", "--mode", "full-auto"]);
    let err = stderr(&out);
    assert!(err.contains("✓ write_file notes.txt"), "{err}");
    assert!(err.contains("✓ edit_file notes.txt"), "{err}");
    assert!(err.contains("✗ shell echo first"), "{err}");
    assert!(err.contains("— exit 101"), "{err}");
    // Each change, with its diff.
    assert!(err.contains("write_file notes.txt (+2 −0)"), "{err}");
    assert!(err.contains("+alpha"), "{err}");
    assert!(err.contains("edit_file notes.txt (+1 −1)"), "{err}");
    assert!(err.contains("-beta") && err.contains("+gamma"), "{err}");
}

/// The schema of `--json-stream`'s lines, as documented.
pub(crate) fn schema() -> jsonschema::Validator {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/events.schema.json");
    let text = std::fs::read_to_string(&path).expect("docs/events.schema.json");
    let schema: Value = serde_json::from_str(&text).expect("the schema is JSON");
    jsonschema::validator_for(&schema).expect("the schema is a valid JSON schema")
}

#[test]
fn the_json_stream_is_one_valid_line_per_event_of_the_turn() {
    require_sandbox!("the_json_stream_is_one_valid_line_per_event_of_the_turn");
    let (env, server) = setup(&busy_turn());
    let out = run(&env, &server, &["--json-stream", "--mode", "full-auto"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let validator = schema();
    let text = stdout(&out);
    let events: Vec<Value> = text
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}")))
        .collect();
    for event in &events {
        let errors: Vec<String> = validator
            .iter_errors(event)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{event}: {errors:?}");
    }
    let of = |kind: &str| -> Vec<&Value> { events.iter().filter(|e| e["type"] == kind).collect() };
    assert_eq!(
        events.first().map(|e| &e["type"]),
        Some(&json!("turn_started"))
    );
    assert_eq!(
        events.last().map(|e| &e["type"]),
        Some(&json!("turn_ended"))
    );
    assert_eq!(of("tool_call_requested").len(), 5);
    // Each answer's tokens, as the provider reported them.
    let usages = of("usage");
    assert!(!usages.is_empty(), "{text}");
    assert!(
        usages
            .iter()
            .all(|u| u["input_tokens"].as_u64().is_some_and(|n| n > 0)),
        "{text}"
    );
    // Who decided each call.
    let decided = of("tool_call_decided");
    let by: Vec<(&Value, &Value, &Value)> = decided
        .iter()
        .map(|e| (&e["call"]["id"], &e["allowed"], &e["by"]))
        .collect();
    assert_eq!(
        by,
        [
            (&json!("w1"), &json!(true), &json!("mode")),
            (&json!("e1"), &json!(true), &json!("mode")),
            (&json!("s1"), &json!(true), &json!("mode")),
            (&json!("s2"), &json!(false), &json!("plugin:guard")),
            (&json!("r1"), &json!(true), &json!("default")),
        ]
    );
    let ran = of("tool_call_ran");
    let failing = ran
        .iter()
        .find(|e| e["call"]["id"] == "s1")
        .expect("s1 ran");
    assert_eq!(failing["exit_code"], 101);
    assert!(
        failing["output"]
            .as_str()
            .unwrap_or_default()
            .contains("boom")
    );
    let missing = ran
        .iter()
        .find(|e| e["call"]["id"] == "r1")
        .expect("r1 ran");
    assert_eq!(missing["is_error"], true);
    assert!(
        ran.iter().all(|e| e["call"]["id"] != "s2"),
        "a denied call never runs"
    );
    let changed = of("file_changed");
    assert_eq!(changed.len(), 2, "{changed:?}");
    assert_eq!(changed[0]["kind"], "created");
    assert!(
        changed[1]["diff"]
            .as_str()
            .unwrap_or_default()
            .contains("-beta\n+gamma\n")
    );
    // Every committed item, the prompt first and the answer last.
    let items = of("item_committed");
    assert_eq!(
        items.first().map(|e| &e["item"]["role"]),
        Some(&json!("user"))
    );
    assert_eq!(
        items.last().map(|e| &e["item"]["text"]),
        Some(&json!("all done"))
    );
    let ended = events.last().cloned().unwrap_or_default();
    assert_eq!(ended["outcome"], "answered");
    assert_eq!(
        ended["changes"],
        json!([{"path": "notes.txt", "added": 2, "removed": 0}])
    );
}

#[test]
fn a_run_whose_every_write_and_command_was_denied_exits_4() {
    let calls = [
        ("w1", "write_file", json!({"path": "x.txt", "content": "x"})),
        ("s1", "shell", json!({"command": "ls"})),
    ];
    let (env, server) = setup(&calls);
    let out = run(&env, &server, &["--mode", "read-only"]);
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    assert!(stdout(&out).contains("all done"));
    assert!(!env.workspace().join("x.txt").exists());
    // One that ran (a read only asks nothing of the mode) exits 0.
    let reads = [("r1", "read_file", json!({"path": "keep/file.txt"}))];
    let (env, server) = setup(&reads);
    let out = run(&env, &server, &["--mode", "read-only"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn a_file_a_command_changed_is_shown_with_its_diff() {
    require_sandbox!("a_file_a_command_changed_is_shown_with_its_diff");
    let calls = [(
        "s1",
        "shell",
        json!({"command": "printf 'made by a command\\n' > made.txt; rm keep/file.txt"}),
    )];
    let (env, server) = setup(&calls);
    let out = run(&env, &server, &["-v", "--mode", "full-auto"]);
    let err = stderr(&out);
    assert!(err.contains("✓ shell printf"), "{err}");
    assert!(err.contains("shell made.txt (+1 −0)"), "{err}");
    assert!(err.contains("+made by a command"), "{err}");
    assert!(err.contains("shell keep/file.txt (+0 −1)"), "{err}");
    assert!(err.contains("-kept"), "{err}");
    assert!(err.contains("changed 2 files (+1 −1)"), "{err}");
    // The same in the stream.
    let (env, server) = setup(&calls);
    let out = run(&env, &server, &["--json-stream", "--mode", "full-auto"]);
    let changed: Vec<Value> = stdout(&out)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|e| e["type"] == "file_changed")
        .collect();
    let kinds: Vec<(&Value, &Value)> = changed.iter().map(|e| (&e["path"], &e["kind"])).collect();
    assert_eq!(
        kinds,
        [
            (&json!("keep/file.txt"), &json!("deleted")),
            (&json!("made.txt"), &json!("created"))
        ]
    );
}

#[test]
fn command_output_and_diffs_cannot_drive_the_terminal() {
    require_sandbox!("command_output_and_diffs_cannot_drive_the_terminal");
    let calls = [
        (
            "w1",
            "write_file",
            json!({"path": "t.txt", "content": "plain\n\u{1b}[2Jcleared\n"}),
        ),
        (
            "s1",
            "shell",
            json!({"command": "printf 'a\\033]0;title\\007b\\033[2J\\n'; exit 1"}),
        ),
    ];
    let (env, server) = setup(&calls);
    let out = run(&env, &server, &["-v", "--mode", "full-auto"]);
    let err = stderr(&out);
    assert!(!err.contains('\u{1b}'), "{err:?}");
    assert!(err.contains("+\\u{1b}[2Jcleared"), "{err}");
    assert!(err.contains("│ a\\u{1b}]0;title\\u{7}b\\u{1b}[2J"), "{err}");
    let (env, server) = setup(&calls);
    let out = run(&env, &server, &["--json-stream", "--mode", "full-auto"]);
    assert!(
        !stdout(&out).contains('\u{1b}'),
        "raw escapes in the stream"
    );
}
