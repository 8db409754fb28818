//! An interceptor in `shadow` mode: a `tool-guard` with stricter rules than the enforcing one
//! runs beside it on a scripted session; nothing only it would deny is denied (the calls run,
//! the files are written), and `warden plugin shadow-report` lists exactly those calls.

use serde_json::{Value, json};
use warden_tests::fixtures;
use warden_tests::mock_server::{MockServer, Reply};

use crate::support::{TestEnv, plugin_entry, run_go_json, stderr, stdout};
use crate::tool_plugins::AUTO_EDIT;

const MODEL: &str =
    "[model]\nprovider = \"openai\"\nname = \"test-model\"\nmax_retries = 0\nstream = false\n\n";

/// `secret.txt`, and a project with an enforcing guard (denying `*.key` writes) and a
/// stricter one in shadow mode (denying `*.lock` writes and reading `secret*` too).
pub(crate) fn guard_and_stricter(env: &TestEnv) {
    env.write("secret.txt", "the secret\n");
    env.project_config(&format!(
        "{MODEL}{AUTO_EDIT}{}{}",
        plugin_entry(
            "interceptor",
            "guard",
            &fixtures::tool_guard(),
            "",
            &[("deny", "write_file:*.key")]
        ),
        plugin_entry(
            "interceptor",
            "stricter",
            &fixtures::tool_guard(),
            "mode = \"shadow\"",
            &[(
                "deny",
                "write_file:*.key,write_file:*.lock,read_file:secret*"
            )]
        ),
    ));
}

#[test]
fn a_shadow_guard_denies_nothing_and_its_report_lists_exactly_its_would_be_denials() {
    let env = TestEnv::new();
    guard_and_stricter(&env);
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
                json!({"path": "b.lock", "content": "b\n"}),
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
    let (_, session) = run_go_json(&env, &server.openai_url());

    // What only the shadow would deny ran; what the enforcing guard denies stayed denied.
    let ws = env.workspace();
    assert_eq!(std::fs::read_to_string(ws.join("a.txt")).unwrap(), "a\n");
    assert_eq!(std::fs::read_to_string(ws.join("b.lock")).unwrap(), "b\n");
    assert!(!ws.join("x.key").exists());
    let tool_messages: Vec<String> = server.requests()[1].body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(tool_messages.len(), 4, "{tool_messages:?}");
    assert!(tool_messages[2].contains("the secret"), "{tool_messages:?}");
    assert!(
        tool_messages[3].contains("denied by plugin:guard"),
        "{tool_messages:?}"
    );
    let audit = env.run(&["audit", &session, "--json"]);
    let audit: Value = serde_json::from_str(stdout(&audit).trim()).unwrap();
    let decisions: Vec<(String, String)> = audit["turns"][0]["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| {
            (
                t["call_id"].as_str().unwrap_or_default().to_owned(),
                t["decision"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        decisions,
        [
            ("c1".into(), "allowed".into()),
            ("c2".into(), "allowed".into()),
            ("c3".into(), "allowed".into()),
            ("c4".into(), "denied".into()),
        ]
    );

    // The report lists exactly the calls where the shadow disagreed.
    let out = env.run(&["plugin", "shadow-report", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let calls = report["calls"].as_array().unwrap();
    let listed: Vec<(&str, &str, &str, &str, &str)> = calls
        .iter()
        .map(|c| {
            (
                c["session"].as_str().unwrap_or_default(),
                c["point"].as_str().unwrap_or_default(),
                c["call_id"].as_str().unwrap_or_default(),
                c["decision"].as_str().unwrap_or_default(),
                c["chain"].as_str().unwrap_or_default(),
            )
        })
        .collect();
    assert_eq!(
        listed,
        [
            (session.as_str(), "pre-tool-call", "c2", "deny", "allow"),
            (session.as_str(), "pre-tool-call", "c3", "deny", "allow"),
        ],
        "{report}"
    );
    for call in calls {
        assert_eq!(call["plugin"], "stricter");
        assert_eq!(call["sha256"].as_str().map(str::len), Some(64), "{call}");
    }
    let text = stdout(&env.run(&["plugin", "shadow-report"]));
    // Two rows, then the totals line.
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(
        text.lines()
            .take(2)
            .all(|l| l.contains(&session) && l.contains("would deny, the chain decided allow")),
        "{text}"
    );
    assert!(
        text.lines()
            .nth(2)
            .is_some_and(|l| l.starts_with("stricter: 2 of ")),
        "{text}"
    );
    // Nothing is that recent in the future: `--since` filters.
    let out = env.run(&[
        "plugin",
        "shadow-report",
        "--json",
        "--since",
        "2999-01-01T00:00:00Z",
    ]);
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["calls"], json!([]));
    let out = env.run(&["plugin", "shadow-report", "--json", "--since", "1h"]);
    let report: Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    assert_eq!(report["calls"].as_array().map(Vec::len), Some(2));
}

#[test]
fn shadow_mode_on_a_tool_plugin_is_a_configuration_error() {
    let env = TestEnv::new();
    env.project_config(&format!(
        "{MODEL}{}",
        plugin_entry(
            "hook",
            "watch",
            &fixtures::tool_guard(),
            "mode = \"shadow\"",
            &[]
        ),
    ));
    let out = env.run(&["config", "show"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(
        stderr(&out).contains("interceptors only"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_managed_shadow_entry_can_be_neither_removed_nor_enforced_by_a_lower_layer() {
    let env = TestEnv::new();
    let managed = plugin_entry(
        "interceptor",
        "candidate",
        &fixtures::tool_guard(),
        "mode = \"shadow\"",
        &[("deny", "write_file:*.lock")],
    );
    env.managed_config(&managed);
    env.project_config(MODEL);
    let out = env.run(&["config", "show", "--json"]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("\"mode\":\"shadow\""),
        "{}",
        stdout(&out)
    );
    // `plugin remove` edits the project and user files only: the managed entry stays.
    let out = env.run(&["plugin", "remove", "candidate"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    let out = env.run(&["config", "show", "--json"]);
    assert!(stdout(&out).contains("\"candidate\""), "{}", stdout(&out));
    // An entry of the same name in the user layer, enforcing, is refused, not merged.
    env.user_config(&plugin_entry(
        "interceptor",
        "candidate",
        &fixtures::tool_guard(),
        "mode = \"enforce\"",
        &[("deny", "write_file:*.lock")],
    ));
    let out = env.run(&["config", "show"]);
    assert_ne!(out.status.code(), Some(0), "{}", stdout(&out));
    assert!(stderr(&out).contains("used twice"), "{}", stderr(&out));
}
