//! Python and JavaScript plugins on WIT 0.2.0, built with the real toolchains and run by the
//! real binary: the examples `python-tool-guard` (an interceptor denying and rewriting tool
//! calls, adding a note after a failed one) and `js-tool` (a tool plugin). An uncaught
//! exception shows its type and message; the first load of a large component says it compiles,
//! the second does not. (`plugin new --lang python|js` projects are on the newest WIT:
//! `plugin_langs_v0_3`.)
//!
//! Each component is built once and compiled once per environment: a Python build costs
//! seconds of CPU and its first compile about ten more. A missing toolchain prints a SKIP line
//! (a failure under `CI=true`).

use std::path::Path;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::plugin_langs::built_example;
use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};
use crate::tool_plugins::{MODEL, content, tool_entry};

const NOTICE: &str = "once; later starts use the cache";

/// One turn in which the model makes `calls` then answers `done`: exit code, stderr, stdout
/// and the second request's body (which carries the tool results back).
fn turn(
    env: &TestEnv,
    calls: &[(&str, &str, Value)],
    json: bool,
) -> (Option<i32>, String, String, Value) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls("Working.", calls));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .arg("run");
    if json {
        cmd.arg("--json");
    }
    cmd.arg("go");
    let out = output_within(cmd, HANG_LIMIT);
    let second = server
        .requests()
        .get(1)
        .map(|r| r.body.clone())
        .unwrap_or(Value::Null);
    (out.status.code(), stderr(&out), stdout(&out), second)
}

/// The tool results of a request body, by call id.
fn tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .map(|messages| {
            messages
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
        .unwrap_or_default()
}

fn guard_config(wasm: &Path) -> String {
    format!(
        "{MODEL}{}",
        plugin_entry(
            "interceptor",
            "guard",
            wasm,
            "",
            &[
                ("deny", "read_file:secret"),
                ("rewrite", "old/=>new/"),
                ("note", "A tool call failed; say so."),
            ],
        )
    )
}

/// Through the guard configured by [`guard_config`]: deny one call, rewrite another, note the
/// failed one; the run's stderr.
fn guard_acts_in_a_turn(env: &TestEnv, json: bool) -> String {
    env.write("secret.txt", "the secret\n");
    env.write("new/a.txt", "new content\n");
    let (code, err, _, body) = turn(
        env,
        &[
            ("c1", "read_file", json!({"path": "./secret.txt"})),
            ("c2", "read_file", json!({"path": "old/a.txt"})),
        ],
        json,
    );
    assert_eq!(code, Some(0), "{err}");
    let tools = tool_results(&body);
    let denied = content(&tools, "c1");
    assert!(
        denied.contains("denied by plugin:guard")
            && denied.contains("`read_file` on `secret.txt` is denied"),
        "{tools:?}"
    );
    assert!(!denied.contains("the secret"), "{denied}");
    assert!(content(&tools, "c2").contains("new content"), "{tools:?}");
    // post-tool-call: the note follows the failed (denied) call.
    assert!(
        body.to_string().contains("A tool call failed; say so."),
        "{body}"
    );
    err
}

#[test]
fn python_tool_guard_denies_rewrites_and_says_once_that_it_compiles() {
    let Some(wasm) = built_example("python-tool-guard") else {
        return;
    };
    let env = TestEnv::new();
    env.project_config(&guard_config(&wasm));
    let err = guard_acts_in_a_turn(&env, false);
    let lines: Vec<&str> = err.lines().filter(|l| l.contains(NOTICE)).collect();
    assert_eq!(lines.len(), 1, "{err}");
    assert!(lines[0].starts_with("compiling plugin guard (18."), "{err}");
    // Now cached: no notice.
    let err = guard_acts_in_a_turn(&env, false);
    assert!(!err.contains("compiling"), "{err}");
}

#[test]
fn js_tool_answers_and_a_type_error_shows_its_message() {
    let Some(wasm) = built_example("js-tool") else {
        return;
    };
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{}", tool_entry("stats", &wasm, "")));
    let (code, err, out, body) = turn(
        &env,
        &[
            ("t1", "text_stats", json!({"text": "one two\nthree\n"})),
            ("t2", "text_stats", json!({})),
        ],
        true,
    );
    assert_eq!(code, Some(0), "{err}");
    let tools = tool_results(&body);
    assert_eq!(content(&tools, "t1"), "2 lines, 3 words, 14 characters");
    // No grant, no notice in a `--json` run.
    assert!(!err.contains("compiling"), "{err}");
    let failed = content(&tools, "t2");
    for shown in [failed, err.as_str()] {
        assert!(shown.contains("TypeError: "), "{shown}\n{out}");
        assert!(shown.contains("text is undefined"), "{shown}");
        assert!(shown.contains("call@"), "{shown}");
    }
}

/// `doctor` counts the compiled-code cache's entries and size; `plugin clear-cache` removes
/// them (and only them). The built-in resolver, compiled by a first run, is the one entry.
#[test]
fn doctor_counts_the_compiled_code_cache_and_clear_cache_empties_it() {
    let env = TestEnv::new();
    let out = env.run(&["run", "--json", "hello"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let cache = env.state_home().join("cache").join("compiled");
    let entries = || {
        let mut n = 0;
        for dir in std::fs::read_dir(&cache).unwrap() {
            for file in std::fs::read_dir(dir.unwrap().path()).unwrap() {
                n += usize::from(
                    file.unwrap()
                        .path()
                        .extension()
                        .is_some_and(|e| e == "cwasm"),
                );
            }
        }
        n
    };
    assert_eq!(entries(), 1);
    let out = env.run(&["doctor"]);
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.contains("compiled-code cache"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(line.contains(&cache.display().to_string()), "{line}");
    assert!(line.contains(": 1 entries, "), "{line}");
    assert!(
        line.contains("`warden plugin clear-cache` empties it"),
        "{line}"
    );

    let engine_dir = std::fs::read_dir(&cache)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let keep = engine_dir.join("notes.txt");
    std::fs::write(&keep, "not an entry").unwrap();
    let out = env.run(&["plugin", "clear-cache"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).starts_with("removed 1 compiled-code cache entries"),
        "{}",
        stdout(&out)
    );
    assert_eq!(entries(), 0);
    assert!(keep.is_file());
}
