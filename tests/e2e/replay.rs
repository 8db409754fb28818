//! `warden plugin replay` from the call points the audit log recorded as they happened: a tool
//! guard replayed on a session with tool calls shows exactly the call it would have denied, and
//! what that decision (or a cancelled prompt) would have prevented; a session without the
//! records still replays its prompts, saying so.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n";

/// Runs `warden plugin replay SESSION PLUGIN --config …` with `extra` arguments; its stdout.
fn replay(
    env: &TestEnv,
    session: &str,
    plugin: &std::path::Path,
    config: &[&str],
    extra: &[&str],
) -> String {
    let mut args = vec!["plugin", "replay", session];
    let plugin = plugin.display().to_string();
    args.push(&plugin);
    for pair in config {
        args.extend(["--config", pair]);
    }
    args.extend(extra);
    let out = env.run(&args);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    stdout(&out)
}

/// A session recorded with no plugin, in which the model reads `a.txt`, `secret.txt` and
/// `b.txt` in one answer, then answers.
fn session_with_three_reads(env: &TestEnv) -> String {
    env.write("a.txt", "alpha\n");
    env.write("secret.txt", "hunter2\n");
    env.write("b.txt", "beta\n");
    env.project_config(MODEL);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Reading.",
        &[
            ("c1", "read_file", json!({"path": "a.txt"})),
            ("c2", "read_file", json!({"path": "secret.txt"})),
            ("c3", "read_file", json!({"path": "b.txt"})),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "read the three files"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["session"].as_str().unwrap().to_owned()
}

#[test]
fn a_tool_guard_replayed_shows_exactly_the_call_it_would_deny() {
    let env = TestEnv::new();
    let session = session_with_three_reads(&env);
    let guard = fixtures::tool_guard();
    let json_out = replay(
        &env,
        &session,
        &guard,
        &["deny=read_file:secret*"],
        &["--json"],
    );
    let value: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(value["from"], "audit");
    let points = value["points"].as_array().unwrap();
    let kinds: Vec<&str> = points
        .iter()
        .map(|p| p["point"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        [
            "on-prompt-submit",
            "pre-llm-request",
            "pre-tool-call",
            "post-tool-call",
            "pre-tool-call",
            "post-tool-call",
            "pre-tool-call",
            "post-tool-call",
            "pre-llm-request",
            "on-turn-end",
        ]
    );
    let tools: Vec<Value> = points
        .iter()
        .filter(|p| p["point"] == "pre-tool-call")
        .map(|p| {
            json!([
                p["input"]["call_id"],
                p["input"]["arguments"]["path"],
                p["then"]["decision"],
                p["now"]["decision"],
                p["differs"]
            ])
        })
        .collect();
    assert_eq!(
        tools,
        vec![
            json!(["c1", "a.txt", "allow", "allow", false]),
            json!(["c2", "secret.txt", "allow", "deny", true]),
            json!(["c3", "b.txt", "allow", "allow", false]),
        ]
    );
    assert_eq!(value["differ"], 1);
    // The denied call's result would never have reached `post-tool-call`.
    let posts: Vec<(Value, bool)> = points
        .iter()
        .filter(|p| p["point"] == "post-tool-call")
        .map(|p| (p["input"]["call_id"].clone(), p["unreached"] == true))
        .collect();
    assert_eq!(
        posts,
        [
            (json!("c1"), false),
            (json!("c2"), true),
            (json!("c3"), false)
        ]
    );
    let deny = points
        .iter()
        .find(|p| p["now"]["decision"] == "deny")
        .unwrap();
    assert_eq!(
        deny["would_not_happen"],
        json!([r#"post-tool-call read_file {"path":"secret.txt"} (c2)"#])
    );

    // --diff prints that call alone, with the rule that denies it.
    let text = replay(
        &env,
        &session,
        &guard,
        &["deny=read_file:secret*"],
        &["--diff"],
    );
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    // The summary counts every point, not only those shown.
    assert_eq!(
        lines[3],
        "replayed 9 of 10 call points: 1 differs, 1 would not have happened"
    );
    assert_eq!(
        lines[0],
        r#"turn 1 pre-tool-call read_file {"path":"secret.txt"} (c2)  ← differs"#
    );
    assert_eq!(lines[1], "  then: allow");
    assert!(
        lines[2].starts_with("  now:  deny(") && lines[2].ends_with(") by plugin:tool_guard"),
        "{text}"
    );
    assert!(lines[2].contains("read_file:secret*"), "{text}");
}

#[test]
fn after_a_cancel_now_replay_names_the_points_that_would_not_have_happened() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "first question"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let first: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = first["session"].as_str().unwrap().to_owned();
    let out = env.run(&["run", "--session", &session, "the forbidden plan"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    // The call points are recorded by reference: no prompt's text is in the audit log.
    let audit = std::fs::read_to_string(
        env.state_home()
            .join("sessions")
            .join(&session)
            .join("audit.jsonl"),
    )
    .unwrap();
    assert!(audit.contains(r#""point":"on-prompt-submit""#), "{audit}");
    assert!(
        !audit.contains("first question") && !audit.contains("forbidden plan"),
        "{audit}"
    );

    let guard = fixtures::pattern_guard();
    let text = replay(
        &env,
        &session,
        &guard,
        &["pattern=forbidden", "reason=blocked"],
        &[],
    );
    let turn_two = &text[text.find("turn 2 on-prompt-submit").unwrap()..];
    let lines: Vec<&str> = turn_two.lines().collect();
    assert_eq!(
        lines[..6],
        [
            "turn 2 on-prompt-submit \"the forbidden plan\"  ← differs",
            "  then: continue",
            "  now:  cancel(blocked) by pattern_guard",
            "  would not have happened after it:",
            "    pre-llm-request step 0",
            lines[5],
        ],
        "{text}"
    );
    assert!(lines[5].starts_with("    on-turn-end answer "), "{text}");
    // The prevented points are listed in place, not fed to the plugin.
    assert_eq!(lines[6], "turn 2 pre-llm-request step 0", "{text}");
    assert_eq!(lines[8], "  now:  (would not have happened)", "{text}");
    // Turn 1 was replayed as usual.
    assert!(
        text.starts_with(
            "turn 1 on-prompt-submit \"first question\"\n  then: continue\n  now:  continue\n"
        ),
        "{text}"
    );
}

#[test]
fn a_session_without_recorded_points_replays_its_prompts_and_says_so() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "about the forbidden plan"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap().to_owned();
    // Written as an older warden wrote it: no `point` records.
    let audit = env
        .state_home()
        .join("sessions")
        .join(&session)
        .join("audit.jsonl");
    let text = std::fs::read_to_string(&audit).unwrap();
    assert!(text.contains(r#""type":"point""#), "{text}");
    crate::escape_audit::as_written_before_the_chain(&env, &session, |l| {
        !l.contains(r#""type":"point""#)
    });

    let guard = fixtures::pattern_guard();
    let text = replay(&env, &session, &guard, &["pattern=forbidden"], &["--diff"]);
    let mut lines = text.lines();
    assert!(
        lines.next().is_some_and(|l| l
            .starts_with("note: this session has no recorded call points")
            && l.contains("tool calls are not replayed")),
        "{text}"
    );
    assert_eq!(
        lines.next(),
        Some("turn 1 on-prompt-submit \"about the forbidden plan\"  ← differs"),
        "{text}"
    );
    let json_out = replay(&env, &session, &guard, &["pattern=forbidden"], &["--json"]);
    let value: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(value["from"], "history");
    assert_eq!(value["differ"], 1);
}
