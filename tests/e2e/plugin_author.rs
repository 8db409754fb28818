//! What a plugin author is told: `plugin replay` names the plugin as the config and the audit
//! log do and ends with a summary line; a deadline says the plugin was retried once; a file
//! error under `fs = "none"` names the missing grant; a sha256 mismatch points at
//! `warden plugin pin`; `preview` exits 3 when the prompt would be cancelled.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{HANG_LIMIT, TestEnv, output_within, plugin_entry, stderr, stdout};
use crate::tool_plugins::{MODEL, tool_entry, turn_with_calls};

#[test]
fn replay_names_the_plugin_as_configured_and_sums_up() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.write("secret.txt", "hunter2\n");
    // Built as cargo names it, configured as its author does.
    let file = env.write(
        "plugins/card_guard.wasm",
        std::fs::read(fixtures::tool_guard()).unwrap(),
    );
    env.project_config(&format!(
        "{MODEL}{}",
        plugin_entry(
            "interceptor",
            "card-guard",
            &file,
            "",
            &[("deny", "read_file:nothing*")]
        )
    ));
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
        .args(["run", "--json", "read both"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap().to_owned();

    let file = file.display().to_string();
    let out = env.run(&[
        "plugin",
        "replay",
        &session,
        &file,
        "--config",
        "deny=read_file:secret*",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(") by plugin:card-guard"), "{text}");
    assert!(!text.contains("card_guard"), "{text}");
    let last = text.lines().last().unwrap_or_default();
    assert!(
        last.starts_with("replayed ") && last.contains("1 differs"),
        "{text}"
    );
}

#[test]
fn a_deadline_says_the_plugin_was_retried_once() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("slowpoke", &fixtures::hostile_tool(), "timeout_ms = 300")
    ));
    // Two calls in one answer: each runs into the deadline (the second on a fresh instance).
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[
            ("p1", "probe", json!({"action": "loop"})),
            ("p2", "probe", json!({"action": "loop"})),
        ],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    assert!(
        tools[0].1.contains("ran past its 300 ms deadline"),
        "{tools:?}"
    );
    assert!(!tools[0].1.contains("retried"), "{tools:?}");
    assert!(
        tools[1]
            .1
            .contains("ran past its 300 ms deadline after it was retried once this turn (2 tries)"),
        "{tools:?}"
    );
}

#[test]
fn a_file_error_without_an_fs_grant_names_the_grant() {
    let env = TestEnv::new();
    env.write("a.txt", "alpha\n");
    env.project_config(&format!(
        "{MODEL}{}",
        tool_entry("prober", &fixtures::hostile_tool(), "")
    ));
    let path = env.workspace().join("a.txt").display().to_string();
    let (code, err, tools, _server, _) = turn_with_calls(
        &env,
        &[("p1", "probe", json!({"action": format!("read {path}")}))],
        &[],
    );
    assert_eq!(code, Some(0), "{err}");
    let result = &tools[0].1;
    assert!(result.contains("os error 44"), "{result}");
    assert!(
        result.contains("plugin `prober` has no file system access (`fs = \"none\"`)"),
        "{result}"
    );
    assert!(result.contains("fs = \"read\""), "{result}");
}

#[test]
fn a_sha256_mismatch_suggests_plugin_pin() {
    let env = TestEnv::new();
    env.project_config(&plugin_entry(
        "interceptor",
        "pinned",
        &fixtures::pattern_guard(),
        &format!("sha256 = \"{}\"", "0".repeat(64)),
        &[("pattern", "x")],
    ));
    let out = env.run(&["run", "hi"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("sha256 mismatch"), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("warden plugin pin pinned"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn preview_exits_3_when_the_prompt_would_be_cancelled() {
    let env = TestEnv::new();
    env.project_config(&plugin_entry(
        "interceptor",
        "guard",
        &fixtures::pattern_guard(),
        "",
        &[("pattern", "forbidden"), ("reason", "blocked")],
    ));
    let out = env.run(&["preview", "the forbidden plan"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = env.run(&["preview", "--json", "the forbidden plan"]);
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let out = env.run(&["preview", "an allowed plan"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
}

#[test]
fn the_scaffold_readme_states_the_sdk_version_the_features_and_the_log_filters() {
    let env = TestEnv::new();
    let out = env.run(&["plugin", "new", "my-tool", "--world", "tool"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let project = env.workspace().join("my-tool");
    let manifest =
        std::fs::read_to_string(project.join("vendor/warden-plugin/Cargo.toml")).unwrap();
    let readme = std::fs::read_to_string(project.join("README.md")).unwrap();
    // The version of the SDK written into the project is the one the README names.
    let version = manifest
        .lines()
        .find_map(|line| line.strip_prefix("version = \""))
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_default()
        .to_owned();
    assert!(!version.is_empty(), "{manifest}");
    assert!(
        readme.contains(&format!("(version {version})")),
        "{version}: {readme}"
    );
    assert!(readme.contains("`tool`"), "{readme}");
    assert!(
        readme.contains("`WARDEN_LOG=warden::plugin::guest=debug`"),
        "{readme}"
    );
    assert!(
        !readme.contains("logs alone with `WARDEN_LOG=warden::plugin=debug`"),
        "{readme}"
    );
}
