//! `plugin bench` and `plugin replay` on what a project configures, through the real binary:
//! every call point of a guard (the tool-call points included) with the `[plugins.config]` of
//! its entry, a tool plugin's tools one by one, and a replay of `builtin:NAME` under the name
//! and config of a configured entry.

use std::path::Path;

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};

const MODEL: &str = "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\n\n";

fn bench_json(env: &TestEnv, args: &[&str]) -> Value {
    let mut all = vec!["plugin", "bench", "--json"];
    all.extend(args);
    let out = env.run(&all);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    serde_json::from_str(&stdout(&out)).unwrap()
}

fn points(json: &Value) -> Vec<String> {
    json["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            assert!(c["warm_ns"].as_f64().unwrap() > 0.0, "{c}");
            assert!(c["fresh_ns"].as_f64().unwrap() > 0.0, "{c}");
            c["point"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn bench_times_every_point_of_a_configured_guard_with_its_config() {
    let env = TestEnv::new();
    // keyword-context refuses to start without `word`: only the entry's config gives it.
    env.untrusted_project_config(&format!(
        "{MODEL}{}{}",
        plugin_entry(
            "interceptor",
            "notes",
            Path::new("builtin:keyword-context"),
            "",
            &[("word", "lorem")]
        ),
        plugin_entry(
            "interceptor",
            "guard",
            Path::new("builtin:tool-guard"),
            "",
            &[("deny", "read_file:16k*")]
        ),
    ));
    let every = [
        "on-prompt-submit",
        "pre-llm-request",
        "on-turn-end",
        "pre-tool-call",
        "post-tool-call",
        "compaction",
    ];
    let json = bench_json(&env, &["--name", "notes"]);
    assert_eq!(json["name"], "notes");
    assert_eq!(json["config"], json!(["word"]));
    assert_eq!(points(&json), every);
    // The entry is found by its component too.
    let json = bench_json(&env, &["builtin:tool-guard"]);
    assert_eq!(json["name"], "guard");
    assert_eq!(json["config"], json!(["deny"]));
    assert_eq!(points(&json), every);

    // As a table: one row per point, the config's origin named.
    let out = env.run(&["plugin", "bench", "--name", "guard"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for point in every {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{point} "))),
            "{point} missing:\n{text}"
        );
    }
    assert!(text.contains("config:   deny (from "), "{text}");
    assert!(text.contains(".warden/config.toml"), "{text}");

    // A name no entry has, without a file, says so.
    let out = env.run(&["plugin", "bench", "--name", "nothing"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no [[plugins]] entry named"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bench_times_each_tool_of_a_tool_plugin() {
    let env = TestEnv::new();
    let path = fixtures::grep_tool();
    let json = bench_json(&env, &[path.to_str().unwrap()]);
    assert_eq!(json["world"], "tool");
    let calls = json["calls"].as_array().unwrap();
    assert!(!calls.is_empty(), "{json}");
    let names = points(&json);
    for (call, name) in calls.iter().zip(&names) {
        assert!(name.starts_with("call "), "{name}");
        assert!(call["arguments"].is_object(), "{call}");
    }
    // Arguments given for a tool are those it is called with.
    let tool = names[0].trim_start_matches("call ").to_owned();
    let given = format!(r#"{tool}={{"pattern":"value","path":"."}}"#);
    let json = bench_json(&env, &[path.to_str().unwrap(), "--args", &given]);
    assert_eq!(
        json["calls"][0]["arguments"],
        json!({"pattern": "value", "path": "."})
    );
    let out = env.run(&["plugin", "bench", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("world:    tool"), "{text}");
    assert!(
        text.lines()
            .any(|l| l.starts_with(&format!("call {tool} "))),
        "{text}"
    );
    assert!(text.contains("  arguments {"), "{text}");
    // With no entry it has no `fs` grant: the search answers with an error, timed like a
    // result, and the table shows why.
    assert!(
        text.contains("(answered with an error: ")
            && text.contains(r#"grant it with `fs = "read"`"#),
        "{text}"
    );

    // A wrong `--args` says what was wrong, whole in `--json`.
    let wrong = format!(r#"{tool}={{"path":"."}}"#);
    let json = bench_json(&env, &[path.to_str().unwrap(), "--args", &wrong]);
    assert_eq!(json["calls"][0]["is_error"], true, "{json}");
    assert_eq!(
        json["calls"][0]["error"], "missing string argument `pattern`",
        "{json}"
    );
    assert!(
        json["calls"][0]["warm_ns"].as_f64().unwrap() > 0.0,
        "{json}"
    );
    let out = env.run(&["plugin", "bench", path.to_str().unwrap(), "--args", &wrong]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("(answered with an error: missing string argument `pattern`)"),
        "{text}"
    );

    // The table says why, and how to grant it here.
    assert!(
        text.contains("note:     no [[plugins]] entry, so no grants: `--fs read`"),
        "{text}"
    );

    // `--fs read` grants the synthetic workspace: the same call answers with a result.
    let json = bench_json(
        &env,
        &[path.to_str().unwrap(), "--fs", "read", "--args", &given],
    );
    assert_eq!(json["fs"], "read", "{json}");
    assert_eq!(json["calls"][0]["is_error"], false, "{json}");
    // Not a tool plugin's world, or not a grant: a usage error.
    let out = env.run(&["plugin", "bench", "builtin:tool-guard", "--fs", "read"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("--fs is a tool plugin's grant; this component is an interceptor"),
        "{}",
        stderr(&out)
    );
    let out = env.run(&["plugin", "bench", path.to_str().unwrap(), "--fs", "write"]);
    assert_eq!(out.status.code(), Some(2), "{}", stdout(&out));

    // Configured with the grant, the same call answers with a result, which carries no `error`.
    env.untrusted_project_config(&format!(
        "{MODEL}{}",
        plugin_entry("tool", "search", &path, "fs = \"read\"", &[])
    ));
    let json = bench_json(&env, &["--name", "search", "--args", &given]);
    assert_eq!(json["fs"], "read", "{json}");
    assert_eq!(json["calls"][0]["is_error"], false, "{json}");
    assert!(json["calls"][0].get("error").is_none(), "{json}");
    let out = env.run(&["plugin", "bench", "--name", "search", "--args", &given]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("(answered with a result)"),
        "{}",
        stdout(&out)
    );
}

/// A session recorded with no plugin, in which the model reads `a.txt` and `secret.txt`.
fn session_with_two_reads(env: &TestEnv) -> String {
    env.write("a.txt", "alpha\n");
    env.write("secret.txt", "hunter2\n");
    env.project_config(MODEL);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "Reading.",
        &[
            ("c1", "read_file", json!({"path": "a.txt"})),
            ("c2", "read_file", json!({"path": "secret.txt"})),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "read the files"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    value["session"].as_str().unwrap().to_owned()
}

#[test]
fn replay_of_a_builtin_under_a_configured_name_uses_that_entrys_config() {
    let env = TestEnv::new();
    let session = session_with_two_reads(&env);
    // Configured after the session: its entry gives the guard its rule.
    env.untrusted_project_config(&format!(
        "{MODEL}{}",
        plugin_entry(
            "interceptor",
            "secrets",
            Path::new("builtin:tool-guard"),
            "",
            &[("deny", "read_file:secret*")]
        ),
    ));
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        "--name",
        "secrets",
        "builtin:tool-guard",
        "--diff",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], r#"turn 1 pre-tool-call read_file {"path":"secret.txt"} (c2)  ← differs"#,
        "{text}"
    );
    assert!(
        lines[2].starts_with("  now:  deny(") && lines[2].ends_with(") by plugin:secrets"),
        "{text}"
    );

    // Another name, with no entry: the config comes from --config alone.
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        "--name",
        "other",
        "builtin:tool-guard",
        "--config",
        "deny=read_file:a.*",
        "--diff",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.starts_with(r#"turn 1 pre-tool-call read_file {"path":"a.txt"} (c1)  ← differs"#),
        "{text}"
    );
    assert!(text.contains(") by plugin:other"), "{text}");
}
