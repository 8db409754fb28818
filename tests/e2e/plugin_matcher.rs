//! `matcher` on an interceptor entry, through the binary: the `tool-guard` sample set to deny
//! every read and write is asked only about the calls its matcher names, in warden's spelling
//! or Claude Code's; a call it does not match is neither judged nor listed among those that
//! saw it; a bad matcher, or one on another kind of plugin, is a configuration error naming it.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{
    HANG_LIMIT, TestEnv, audited_tools, output_within, plugin_entry, stderr, stdout,
};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

fn guard(matcher: &str) -> String {
    plugin_entry(
        "interceptor",
        "guard",
        &fixtures::tool_guard(),
        &format!("matcher = {matcher:?}"),
        &[("deny", "read_file:*,write_file:*")],
    )
}

/// One run reading `notes.txt` and writing `out.txt`: whether each call ran, and who saw each.
fn run(env: &TestEnv) -> (Vec<bool>, Vec<Vec<String>>) {
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            ("c1", "read_file", json!({"path": "notes.txt"})),
            (
                "c2",
                "write_file",
                json!({"path": "out.txt", "content": "x"}),
            ),
        ],
    ));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    assert!(matches!(out.status.code(), Some(0 | 4)), "{}", stderr(&out));
    let value: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap();
    let tools = audited_tools(env, session);
    let ran = tools
        .iter()
        .map(|t| t["decision"].as_str() != Some("denied"))
        .collect();
    let seen = tools
        .iter()
        .map(|t| {
            t["seen_by"]
                .as_array()
                .map(|s| {
                    s.iter()
                        .filter_map(|p| p["plugin"].as_str().map(str::to_owned))
                        .collect()
                })
                .unwrap_or_default()
        })
        .collect();
    (ran, seen)
}

#[test]
fn an_interceptor_is_asked_only_about_the_tools_its_matcher_names() {
    // (matcher, guard asked about the read, about the write): asked means denied, since the
    // guard denies every read and write it is asked about.
    for (matcher, read_asked, write_asked) in [
        ("Write|Edit", false, true),
        ("write_file", false, true),
        ("Read", true, false),
        ("*", true, true),
        ("", true, true),
        ("Bash", false, false),
        ("mcp__.*", false, false),
    ] {
        let env = TestEnv::new();
        env.write("notes.txt", "plain notes\n");
        env.project_config(&format!("{MODEL}{AUTO_EDIT}{}", guard(matcher)));
        let (ran, seen) = run(&env);
        assert_eq!(
            ran,
            vec![!read_asked, !write_asked],
            "matcher {matcher:?}: {seen:?}"
        );
        let saw = |i: usize| seen[i].iter().any(|p| p == "guard");
        assert_eq!(
            (saw(0), saw(1)),
            (read_asked, write_asked),
            "matcher {matcher:?}"
        );
        assert_eq!(
            env.workspace().join("out.txt").exists(),
            !write_asked,
            "matcher {matcher:?}"
        );
    }
}

#[test]
fn a_bad_matcher_or_one_on_a_hook_is_a_configuration_error_naming_it() {
    let env = TestEnv::new();
    env.project_config(&format!("{MODEL}{AUTO_EDIT}{}", guard("Write|(")));
    env.trust();
    let out = env.run(&["config", "show"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(
        err.contains("plugins.guard")
            && err.contains("matcher")
            && err.contains("regular expression"),
        "{err}"
    );

    env.project_config(&format!(
        "{MODEL}{}",
        plugin_entry(
            "hook",
            "observer",
            &fixtures::tool_guard(),
            "matcher = \"Bash\"",
            &[]
        )
    ));
    env.trust();
    let out = env.run(&["config", "show"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("applies to interceptors only"), "{err}");
}
