//! `warden audit`'s text names a shell call's escalation: the kind, the hosts and the reason.

use serde_json::json;
use warden_tests::mock_server::{MockServer, Reply};

use crate::shell::OPENAI;
use crate::support::{HANG_LIMIT, TestEnv, output_within, stderr, stdout};

#[test]
fn the_text_names_the_escalation_a_call_asked_for() {
    let env = TestEnv::new();
    env.project_config(OPENAI);
    let server = MockServer::start().unwrap();
    let args = json!({
        "command": "touch ran.txt",
        "escalate": {"kind": "network", "hosts": ["index.example"], "reason": "fetch the index"},
    });
    server.push(Reply::tool_calls("", &[("c1", "shell", args)]));
    server.push(Reply::text("done"));
    let mut cmd = env.command();
    cmd.env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", server.openai_url())
        .args(["run", "--json", "--mode", "full-auto", "go"]);
    let out = output_within(cmd, HANG_LIMIT);
    // Nobody could say yes: denied, and audited with what it asked for.
    assert_eq!(out.status.code(), Some(4), "{}", stderr(&out));
    let value: serde_json::Value = serde_json::from_str(stdout(&out).trim()).unwrap();
    let session = value["session"].as_str().unwrap();
    let out = env.run(&["audit", session]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let text = stdout(&out);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with("tool shell"))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.contains("escalation network to index.example: fetch the index"),
        "{line}"
    );
}
