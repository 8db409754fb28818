//! Rolling out an interceptor in `shadow` mode, as an operator sees it: `plugin list` and
//! `config show` name each interceptor's mode, `warden audit` shows the shadow decisions, and
//! `plugin shadow-report -C DIR` gives each call's arguments (escaped, capped) and the totals
//! per plugin.

use serde_json::{Value, json};
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, run_go_json, stderr, stdout};

/// A long argument with a terminal escape in it.
fn long_content() -> String {
    format!("b\u{1b}[31m{}", "x".repeat(600))
}

/// An enforcing guard and a stricter one in shadow mode; one turn of four calls, two of which
/// only the shadow would deny. The session's id.
fn shadowed_session(env: &TestEnv) -> String {
    crate::shadow::guard_and_stricter(env);
    let server = MockServer::start().unwrap();
    server.push(Reply::tool_calls(
        "",
        &[
            (
                "c1",
                "write_file",
                json!({"path": "a.txt", "content": "a\n"}),
            ),
            (
                "c2",
                "write_file",
                json!({"path": "b.lock", "content": long_content()}),
            ),
            ("c3", "read_file", json!({"path": "secret.txt"})),
            (
                "c4",
                "write_file",
                json!({"path": "x.key", "content": "k\n"}),
            ),
        ],
    ));
    server.push(Reply::text("done"));
    run_go_json(env, &server.openai_url()).1
}

#[test]
fn list_and_config_show_name_each_interceptors_mode() {
    let env = TestEnv::new();
    shadowed_session(&env);
    let out = env.run(&["plugin", "list"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.lines().next().unwrap_or("").contains("MODE"), "{text}");
    let line = |name: &str| {
        text.lines()
            .find(|l| l.starts_with(&format!("{name} ")))
            .unwrap_or_default()
            .to_owned()
    };
    assert!(line("stricter").contains(" shadow "), "{text}");
    assert!(line("guard").contains(" enforce "), "{text}");
    let out = env.run(&["plugin", "list", "--json"]);
    let rows: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let modes: Vec<(&str, &str)> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["name"].as_str().unwrap(),
                r["mode"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(modes, [("guard", "enforce"), ("stricter", "shadow")]);

    let out = env.run(&["config", "show"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("plugin stricter (interceptor, mode shadow)"),
        "{text}"
    );
    assert!(
        text.contains("plugin guard (interceptor, mode enforce)"),
        "{text}"
    );
}

#[test]
fn audit_shows_the_shadow_decisions() {
    let env = TestEnv::new();
    let session = shadowed_session(&env);
    let out = env.run(&["audit", &session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    for call in ["write_file c2", "read_file c3"] {
        assert!(
            text.contains(&format!(
                "shadow stricter at pre-tool-call {call}: would deny, the chain decided allow"
            )),
            "{call}: {text}"
        );
    }
    let out = env.run(&["audit", &session, "--json"]);
    let audit: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let differing: Vec<&str> = audit["turns"][0]["shadow"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["differs"] == true)
        .map(|s| s["call_id"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(differing, ["c2", "c3"], "{audit}");
}

#[test]
fn shadow_report_takes_a_workspace_and_shows_arguments_and_totals() {
    let env = TestEnv::new();
    let session = shadowed_session(&env);
    let elsewhere = env.root().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    let ws = env.workspace().to_string_lossy().into_owned();

    let out = env.run_in(
        &elsewhere,
        &["plugin", "shadow-report", "-C", &ws, "--json"],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let calls = report["calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{report}");
    assert!(calls.iter().all(|c| c["session"] == session.as_str()));
    let args = calls[0]["arguments"].as_str().unwrap();
    assert!(args.starts_with("{\"content\":\"b\\u001b[31mxxx"), "{args}");
    assert!(args.ends_with('…'), "{args}");
    assert!(args.chars().count() < 300, "{args}");
    assert_eq!(
        calls[1]["arguments"].as_str(),
        Some("{\"path\":\"secret.txt\"}")
    );
    let totals = report["totals"].as_array().unwrap();
    assert_eq!(totals.len(), 1, "{report}");
    assert_eq!(totals[0]["plugin"], "stricter");
    assert_eq!(totals[0]["differ"], 2);
    let decisions = totals[0]["decisions"].as_u64().unwrap();
    assert!(decisions >= 4, "{report}");

    let out = env.run_in(&elsewhere, &["plugin", "shadow-report", "-C", &ws]);
    let text = stdout(&out);
    assert!(!text.contains('\u{1b}'), "{text}");
    assert!(text.contains("args {\"path\":\"secret.txt\"}"), "{text}");
    assert!(
        text.contains(&format!(
            "stricter: 2 of {decisions} shadow decisions differ from the chain"
        )),
        "{text}"
    );

    // Another workspace's report holds none of this one's sessions.
    let out = env.run_in(
        &elsewhere,
        &[
            "plugin",
            "shadow-report",
            "-C",
            &elsewhere.to_string_lossy(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["calls"], json!([]), "{report}");
}
