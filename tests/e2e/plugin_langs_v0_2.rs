//! Python and JavaScript plugins on WIT 0.2.0, built with the real toolchains and run by the
//! real binary: the examples `python-tool-guard` (an interceptor denying and rewriting tool
//! calls, adding a note after a failed one) and `js-tool` (a tool plugin), and the projects
//! `warden plugin new --lang python|js` writes for the interceptor and tool worlds, built in a
//! directory outside the checkout. An uncaught exception shows its type and message; the first
//! load of a large component says it compiles, the second does not.
//!
//! Each component is built once and compiled once per environment: a Python build costs
//! seconds of CPU and its first compile about ten more. A missing toolchain prints a SKIP line
//! (a failure under `CI=true`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::plugin_langs::{built_example, componentize_js, has_componentize_py, skip};
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

/// A project written by `warden plugin new NAME --lang LANG --world WORLD` in a temporary
/// directory outside the checkout, `edit`ed, then built by its own `build.sh`: the temporary
/// directory and the component. `None` (after a SKIP line) when the toolchain is missing.
fn built_template(
    env: &TestEnv,
    lang: &str,
    world: &str,
    edit: impl FnOnce(&Path),
) -> Option<(tempfile::TempDir, PathBuf)> {
    let mut build_env: Vec<(&str, PathBuf)> = Vec::new();
    if lang == "python" {
        if !has_componentize_py() {
            skip(
                &format!("plugin new --lang python --world {world}"),
                "componentize-py",
            );
            return None;
        }
    } else {
        let Some(cjs) = componentize_js() else {
            skip(
                &format!("plugin new --lang js --world {world}"),
                "componentize-js",
            );
            return None;
        };
        build_env.push(("COMPONENTIZE_JS", cjs));
    }
    let dir = tempfile::tempdir().unwrap();
    let name = format!("{lang}-{world}");
    let out = env.run_in(
        dir.path(),
        &["plugin", "new", &name, "--lang", lang, "--world", world],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let project = dir.path().join(&name);
    edit(&project);
    let mut cmd = Command::new("bash");
    cmd.arg(project.join("build.sh"));
    for (key, value) in build_env {
        cmd.env(key, value);
    }
    let built = cmd.output().unwrap();
    assert!(
        built.status.success(),
        "{name}/build.sh failed:\n{}{}",
        String::from_utf8_lossy(&built.stdout),
        String::from_utf8_lossy(&built.stderr)
    );
    let wasm = project.join("plugin.wasm");
    assert!(wasm.is_file(), "{name}/build.sh wrote no plugin.wasm");
    Some((dir, wasm))
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

#[test]
fn python_tool_project_builds_outside_the_checkout_reads_its_grant_and_shows_an_exception() {
    let env = TestEnv::new();
    let raise = |project: &Path| {
        let app = project.join("app.py");
        let text = std::fs::read_to_string(&app).unwrap();
        let marker = "        if name != \"count_lines\":";
        assert!(text.contains(marker), "{text}");
        let text = text.replacen(
            marker,
            &format!(
                "        if \"boom\" in arguments:\n            raise KeyError('x')\n{marker}"
            ),
            1,
        );
        std::fs::write(app, text).unwrap();
    };
    let Some((_dir, wasm)) = built_template(&env, "python", "tool", raise) else {
        return;
    };
    env.write("notes.txt", "one\ntwo\nthree\n");
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("counter", &wasm, "fs = \"read\"")
    ));
    let (code, err, _, body) = turn(
        &env,
        &[
            ("c1", "count_lines", json!({"path": "notes.txt"})),
            (
                "c2",
                "count_lines",
                json!({"path": "notes.txt", "boom": true}),
            ),
        ],
        false,
    );
    assert_eq!(code, Some(0), "{err}");
    let tools = tool_results(&body);
    assert_eq!(content(&tools, "c1"), "notes.txt: 3 lines");
    let failed = content(&tools, "c2");
    for shown in [failed, err.as_str()] {
        assert!(shown.contains("KeyError: 'x'"), "{shown}");
        assert!(shown.contains("app.py, line "), "{shown}");
        assert!(shown.contains("in call"), "{shown}");
    }
}

#[test]
fn js_interceptor_project_builds_outside_the_checkout_and_guards_tool_calls() {
    let env = TestEnv::new();
    let Some((_dir, wasm)) = built_template(&env, "js", "interceptor", |_| {}) else {
        return;
    };
    env.project_config(&guard_config(&wasm));
    guard_acts_in_a_turn(&env, true);
}

/// The same sources as the examples, which act in the tests above: here they only need to
/// build outside the checkout into components (`plugin check` would compile each again).
#[test]
fn python_interceptor_and_js_tool_projects_build_outside_the_checkout() {
    let env = TestEnv::new();
    for (lang, world) in [("python", "interceptor"), ("js", "tool")] {
        let Some((_dir, wasm)) = built_template(&env, lang, world, |_| {}) else {
            continue;
        };
        let bytes = std::fs::read(&wasm).unwrap();
        // `\0asm`, then the component encoding's version and layer.
        assert_eq!(
            bytes.get(..8),
            Some(&b"\0asm\x0d\x00\x01\x00"[..]),
            "{lang} {world}"
        );
    }
    // The other worlds are Rust-only, and say so.
    let dir = tempfile::tempdir().unwrap();
    let out = env.run_in(
        dir.path(),
        &["plugin", "new", "x", "--lang", "python", "--world", "hook"],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--lang rust"), "{}", stderr(&out));
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
